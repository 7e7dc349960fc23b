import Foundation
import NIOPosix

/// The threads blocking engine work runs on: model loads, transcriptions, voice activity
/// detection, syntheses and audio decoding. A bounded set, so that many callers at once queue for
/// a thread instead of each starting one; none of Swift's cooperative threads (one per core) is
/// ever held by engine work. A language model's generation, which may last minutes, runs on its
/// batch scheduler's thread or a thread of its own (`LLMEngineRun.start(_:)`) instead.
enum EngineThreads {
    /// As many threads as cores, and at least four, so that a load never waits behind a long
    /// transcription and a synthesis on a 2-core machine.
    static let count = max(4, ProcessInfo.processInfo.activeProcessorCount)

    static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: count)
        pool.start()
        return pool
    }()
}

/// Runs blocking engine work on one of the ``EngineThreads``, waiting for a free one when all are
/// busy.
package func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await EngineThreads.pool.runIfActive(work)
}

extension Duration {
    /// The duration in seconds.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
