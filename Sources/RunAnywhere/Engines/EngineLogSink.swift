import Logging
import Synchronization

/// Receives an engine's log (ggml-based engines send it in pieces) and forwards whole lines to
/// a `Logger`: errors at `notice`, warnings at `info`, the rest at `debug`/`trace`. The last
/// error lines are kept to explain a failure; a caller may watch the lines while its work runs
/// (``watching(_:during:)``: llama.cpp's quantizer says how far it is only in its log).
package final class EngineLogSink: Sendable {
    private let logger: Logger
    private let prefix: String
    /// The line being received, its level, the last error lines with their numbers, and how
    /// many error lines came in all.
    private let state = Mutex<(line: String, level: Logger.Level, errors: [(number: Int, line: String)], count: Int)>(("", .debug, [], 0))
    private let observer = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// A sink whose lines start with `prefix` (e.g. "llama.cpp").
    package init(logger: Logger, prefix: String) {
        self.logger = logger
        self.prefix = prefix
    }

    /// Takes a piece of log text at a ggml log level (1 debug, 2 info, 3 warn, 4 error, 5 continue).
    package func receive(level: UInt32, text: String) {
        let mapped: Logger.Level? =
            switch level {
            case 4: .notice
            case 3: .info
            case 2: .debug
            case 1: .trace
            default: nil  // 0 (none) and 5 (continue) extend the previous line
            }
        let lines = state.withLock { state -> [(String, Logger.Level)] in
            if let mapped { state.level = mapped }
            state.line += text
            var complete: [(String, Logger.Level)] = []
            while let newline = state.line.firstIndex(of: "\n") {
                let line = String(state.line[..<newline])
                state.line = String(state.line[state.line.index(after: newline)...])
                if !line.isEmpty {
                    complete.append((line, state.level))
                    if state.level == .notice {
                        state.errors = Array((state.errors + [(state.count, line)]).suffix(5))
                        state.count += 1
                    }
                }
            }
            return complete
        }
        let watch = observer.withLock { $0 }
        for (line, level) in lines {
            logger.log(level: level, "\(prefix): \(line)")
            watch?(line)
        }
    }

    /// Runs `work` with every whole line the engine logs meanwhile handed to `observer` too (one
    /// watcher at a time: the engine's log is the process's).
    package func watching<T>(_ observer: @escaping @Sendable (String) -> Void, during work: () throws -> T) rethrows -> T {
        self.observer.withLock { $0 = observer }
        defer { self.observer.withLock { $0 = nil } }
        return try work()
    }

    /// Where the error lines stand now: work that may fail takes it first, and explains a failure
    /// with the lines logged since (``explain(_:since:)``), not those another's work left.
    package func mark() -> Int {
        state.withLock { $0.count }
    }

    /// `message` followed by the engine's latest error lines ("message: error; error"), those
    /// logged since `mark` (``mark()``) when given, or just `message` when there are none; the
    /// lines are cleared once reported.
    package func explain(_ message: String, since mark: Int? = nil) -> String {
        let errors = state.withLock { state in
            defer { state.errors = [] }
            return state.errors.filter { $0.number >= mark ?? 0 }.map(\.line).joined(separator: "; ")
        }
        return errors.isEmpty ? message : "\(message): \(errors)"
    }
}
