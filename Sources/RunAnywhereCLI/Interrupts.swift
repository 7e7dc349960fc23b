import Dispatch
import Foundation
import Synchronization

/// Ctrl-C handling: while an action is set, SIGINT runs it (e.g. cancels a generation) instead
/// of killing the process; with none set, SIGINT exits with status 130.
final class Interrupts: Sendable {
    static let shared = Interrupts()

    private let action = Mutex<(@Sendable () -> Void)?>(nil)
    /// The signal source; a Dispatch object used only to keep the handler alive.
    private nonisolated(unsafe) let source: any DispatchSourceSignal

    private init() {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [self] in
            if let handler = action.withLock({ $0 }) {
                handler()
            } else {
                Terminal.write("\n", to: STDERR_FILENO)
                exit(130)
            }
        }
        source.resume()
    }

    /// Runs `body` with SIGINT calling `onInterrupt`.
    func whileRunning<T>(onInterrupt: @escaping @Sendable () -> Void, _ body: () async throws -> T) async rethrows -> T {
        action.withLock { $0 = onInterrupt }
        defer { action.withLock { $0 = nil } }
        return try await body()
    }
}
