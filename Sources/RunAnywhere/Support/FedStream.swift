extension AsyncThrowingStream where Failure == any Error {
    /// A stream that `work` feeds, run as a task: it finishes when `work` returns, or with the
    /// error `work` throws. The consumer cancelling its iteration, or dropping the stream
    /// unfinished, cancels the task, and with it the engine work it waits on.
    package static func fed(by work: @escaping @Sendable (Continuation) async throws -> Void) -> Self {
        let (stream, continuation) = makeStream(of: Element.self)
        let task = Task {
            do {
                try await work(continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return stream
    }
}
