import Foundation
import RunAnywhere
import Synchronization

/// What each API key used since the server started: requests (and those refused for its rate
/// limit), prompt and completion tokens, and seconds of audio transcribed and spoken. The work
/// a request starts publishes its results on the runtime's event bus from tasks that inherit the
/// request's key (``RequestAccount/key``), which is how they are counted here and in `/metrics`.
/// `GET /api/keys/usage` shows it, or, with the replicas' database, every replica's together
/// (``SharedKeyUsage``).
final class KeyUsage: Sendable {
    /// One key's usage.
    struct Counts: Encodable, Sendable, Equatable {
        var requests = 0
        var rateLimited = 0
        var promptTokens = 0
        var completionTokens = 0
        var audioSecondsIn = 0.0
        var audioSecondsOut = 0.0

        static func + (left: Counts, right: Counts) -> Counts {
            Counts(
                requests: left.requests + right.requests, rateLimited: left.rateLimited + right.rateLimited,
                promptTokens: left.promptTokens + right.promptTokens, completionTokens: left.completionTokens + right.completionTokens,
                audioSecondsIn: left.audioSecondsIn + right.audioSecondsIn, audioSecondsOut: left.audioSecondsOut + right.audioSecondsOut)
        }
    }

    /// The usage of each key, by name.
    struct Listing: Encodable, Sendable { let keys: [String: Counts] }

    private struct State {
        var counts: [String: Counts] = [:]
        /// Counted since the replicas' database was last given the counts; kept only for it.
        var unshared: [String: Counts] = [:]
    }

    private let state = Mutex(State())
    /// Whether the counts are also kept for the replicas' database (``takeUnshared()``).
    private let shared: Bool

    /// Usage counts; `shared` keeps what was counted since ``takeUnshared()`` for the replicas' database.
    init(shared: Bool = false) { self.shared = shared }

    /// Changes the counts of `key` with `change`.
    func count(_ key: String, _ change: (inout Counts) -> Void) {
        state.withLock { state in
            change(&state.counts[key, default: Counts()])
            if shared { change(&state.unshared[key, default: Counts()]) }
        }
    }

    /// What was counted since the last call, which the caller adds to the replicas' database
    /// (or gives back with ``giveBack(_:)`` when it could not).
    func takeUnshared() -> [String: Counts] {
        state.withLock { state in
            defer { state.unshared = [:] }
            return state.unshared
        }
    }

    /// Counts taken with ``takeUnshared()`` that the database did not take, to be given it again.
    func giveBack(_ counts: [String: Counts]) {
        state.withLock { state in state.unshared.merge(counts, uniquingKeysWith: +) }
    }

    /// Every key's usage so far.
    var listing: Listing { Listing(keys: state.withLock { $0.counts }) }
}
