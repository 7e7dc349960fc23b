import Foundation

/// A status line on standard error: redrawn in place on a terminal, one line per update otherwise.
struct StatusLine {
    /// Whether standard error is a terminal.
    let interactive = isatty(STDERR_FILENO) == 1
    private var drawn = false

    /// Shows `text`, in place of the previous status on a terminal.
    mutating func show(_ text: String) {
        if interactive {
            Terminal.write("\r\u{1B}[K\(text)", to: STDERR_FILENO)
            drawn = true
        } else {
            Terminal.standardError(text)
        }
    }

    /// Erases the status drawn on a terminal, so that the next output starts on a clean line.
    mutating func clear() {
        if drawn { Terminal.write("\r\u{1B}[K", to: STDERR_FILENO) }
        drawn = false
    }

    /// Leaves the status drawn on a terminal where it is, ending its line.
    func keep() {
        if interactive { Terminal.write("\n", to: STDERR_FILENO) }
    }

    /// A `width`-character bar, `fraction` (0 to 1) of it filled: `[####......]` without brackets.
    static func bar(_ fraction: Double, width: Int = 20) -> String {
        let filled = fraction.isNaN ? 0 : Int(max(0, min(1, fraction)) * Double(width))  // clamped before converting
        return String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
    }
}
