import ArgumentParser

/// `--idle-timeout`: how long a connection to `serve` or `telemetry serve` may stay open with no
/// request in flight, before its first request or between two, before the server closes it.
struct IdleTimeoutOption: ParsableArguments {
    @Option(
        name: .customLong("idle-timeout"),
        help:
            "Seconds a connection may stay open with no request in flight, before its first or between two; then it is closed. Keep it above the idle time of a proxy's or client's connection pool."
    )
    var seconds = 75

    /// The timeout the server is given.
    var duration: Duration { .seconds(seconds) }

    func validate() throws {
        if !(1...86_400).contains(seconds) { throw ValidationError("--idle-timeout must be 1 to 86400 seconds") }
    }
}
