import Synchronization
import Testing

@testable import RunAnywhere

/// `withTimeLimit`, which every database query of the server goes through: the operation's
/// answer when it ends in time; at the limit, the failure, the operation cancelled and `expired`
/// run, even when the operation ignores its cancellation; the caller's cancellation passed on.
@Suite(.timeLimit(.minutes(1))) struct TimeLimitTests {
    struct Expired: Error {}

    @Test func anOperationThatEndsInTimeAnswers() async throws {
        #expect(try await withTimeLimit(.seconds(600), failure: { Expired() }) { 42 } == 42)
        await #expect(throws: CancellationError.self) {
            try await withTimeLimit(.seconds(600), failure: { Expired() }) { () async throws -> Int in throw CancellationError() }
        }
    }

    @Test func atTheLimitTheCallFailsAndTheOperationIsCancelledEvenIfItDoesNotStop() async throws {
        let (seen, sawCancellation) = AsyncStream.makeStream(of: Void.self)
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        let expiredRan = Mutex(false)
        await #expect(throws: Expired.self) {
            try await withTimeLimit(
                .milliseconds(50), failure: { Expired() }, expired: { expiredRan.withLock { $0 = true } }
            ) {
                // Ignores its cancellation: it ends only when released, after the call has failed.
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                sawCancellation.yield()
                for await _ in release { break }
                return 1
            }
        }
        #expect(expiredRan.withLock { $0 })
        for await _ in seen { break }
        released.yield()
    }

    @Test func cancellingTheCallerCancelsTheOperation() async throws {
        let (started, didStart) = AsyncStream.makeStream(of: Void.self)
        let call = Task {
            try await withTimeLimit(.seconds(600), failure: { Expired() }) { () async -> Bool in
                didStart.yield()
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                return true
            }
        }
        for await _ in started { break }
        call.cancel()
        #expect(try await call.value, "the operation saw its cancellation and ended")
    }
}
