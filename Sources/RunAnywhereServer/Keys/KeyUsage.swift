import Foundation
import RunAnywhere
import Synchronization

/// What each API key used since the server started: requests (and those refused for its rate
/// limit), prompt and completion tokens, and seconds of audio transcribed and spoken. The work
/// a request starts publishes its results on the runtime's event bus from tasks that inherit the
/// request's key (``RequestAccount/key``), which is how they are counted here and in `/metrics`.
/// `GET /api/keys/usage` shows it.
final class KeyUsage: Sendable {
    /// One key's usage.
    struct Counts: Encodable, Sendable, Equatable {
        var requests = 0
        var rateLimited = 0
        var promptTokens = 0
        var completionTokens = 0
        var audioSecondsIn = 0.0
        var audioSecondsOut = 0.0
    }

    /// The usage of each key, by name.
    struct Listing: Encodable, Sendable { let keys: [String: Counts] }

    private let counts = Mutex<[String: Counts]>([:])

    /// Changes the counts of `key` with `change`.
    func count(_ key: String, _ change: (inout Counts) -> Void) {
        counts.withLock { change(&$0[key, default: Counts()]) }
    }

    /// Every key's usage so far.
    var listing: Listing { Listing(keys: counts.withLock { $0 }) }
}
