import Foundation

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
    /// pipe, a full disk, a file-size limit) is dropped, never a reason to crash.
    static func write(_ text: String, to descriptor: Int32) {
        try? Data(text.utf8).write(toDescriptor: descriptor)
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
