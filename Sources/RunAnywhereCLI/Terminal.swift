import Foundation
import RunAnywhere
import Synchronization

/// Writing to the terminal: unbuffered output and ANSI styles only when standard output is one.
enum Terminal {
    static let isInteractive = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    /// Writes `text` to standard output at once (no buffering), so streamed text appears as it comes.
    static func write(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Writes a line to standard error.
    static func standardError(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` to `descriptor` as far as it can: output that cannot be written (a closed
    /// pipe, a full disk, a file-size limit) is dropped, never a reason to crash; standard
    /// output's failure is remembered for ``outputFailure()``.
    static func write(_ text: String, to descriptor: Int32) {
        do {
            try Data(text.utf8).write(toDescriptor: descriptor)
        } catch {
            guard descriptor == STDOUT_FILENO else { return }
            let code = (error as? POSIXError)?.code.rawValue ?? EIO
            failedOutput.withLock { $0 = $0 ?? code }
        }
    }

    private static let failedOutput = Mutex<Int32?>(nil)

    /// The error (an `errno`) by which standard output did not take everything written to it by
    /// ``write(_:)`` (the commands' one way to it), or nil when it did.
    static func outputFailure() -> Int32? {
        failedOutput.withLock { $0 }
    }

    /// `text` dimmed on a terminal, unchanged otherwise.
    static func dim(_ text: String) -> String { style(text, "2") }
    /// `text` in bold on a terminal.
    static func bold(_ text: String) -> String { style(text, "1") }
    /// `text` in green on a terminal.
    static func green(_ text: String) -> String { style(text, "32") }
    /// `text` in red on a terminal.
    static func red(_ text: String) -> String { style(text, "31") }

    private static func style(_ text: String, _ code: String) -> String {
        isInteractive && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// A byte count for people: "98.4 MB".
    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .decimal)
    }

    /// Rows as aligned columns.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        return ([bold(line(header))] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}

/// What a command reads from standard input (`-` for its text, `--api-key-stdin`).
enum StandardInput {
    /// All of standard input as text; input that is not UTF-8 is refused rather than read with
    /// U+FFFD in place of its bad bytes.
    static func text() throws -> String {
        try text(of: FileHandle.standardInput.readDataToEndOfFile())
    }

    /// `data`, read from standard input, as text; refused unless it is UTF-8.
    static func text(of data: Data) throws -> String {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw SDKError(.invalidInput, "Standard input is not UTF-8 text: convert it to UTF-8 first")
        }
        return text
    }
}
