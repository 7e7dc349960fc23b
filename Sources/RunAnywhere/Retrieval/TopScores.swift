import Logging
import Synchronization

/// The best scores offered so far, at most `limit`, best first (equal scores in the order
/// offered), safe to offer from any thread.
package final class TopScores: Sendable {
    private struct State {
        var entries: [(id: Int, score: Double)] = []
        var damaged = 0
    }

    private let limit: Int
    private let state = Mutex(State())

    /// At most `limit` of them.
    package init(limit: Int) {
        self.limit = limit
    }

    /// The best entries; rows offered without a score (a vector of the wrong length) are logged
    /// as skipped, naming `collection`.
    package func result(logger: Logger, collection: String) -> [(id: Int, score: Double)] {
        let (entries, damaged) = state.withLock { ($0.entries, $0.damaged) }
        if damaged > 0 {
            logger.error(
                "Chunks whose vectors have the wrong length were skipped", metadata: ["collection": "\(collection)", "count": "\(damaged)"])
        }
        return entries
    }

    /// Offers the row `id` with its `score`, nil when it has none.
    package func offer(_ id: Int, score: Double?) {
        state.withLock { state in
            guard let score else {
                state.damaged += 1
                return
            }
            guard state.entries.count < limit || score > (state.entries.last?.score ?? -.infinity) else { return }
            let index = state.entries.firstIndex { $0.score < score } ?? state.entries.count
            state.entries.insert((id, score), at: index)
            if state.entries.count > limit { state.entries.removeLast() }
        }
    }
}
