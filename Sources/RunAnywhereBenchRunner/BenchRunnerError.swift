import RunAnywhere

/// Why the harness could not run.
enum BenchRunnerError {
    /// An embedded resource could not be materialized.
    static func resource(_ reason: String) -> SDKError {
        SDKError(.modelStorageCorrupted, "BenchRunner's embedded resources are damaged: \(reason)")
    }
}
