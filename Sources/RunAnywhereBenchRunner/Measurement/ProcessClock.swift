import Foundation

/// Time since this process started, from the kernel's record of its start (/proc/self/stat,
/// in clock ticks since boot, usually 10 ms) and the boot-time clock.
enum ProcessClock {
    /// How long ago the process started, or nil where /proc cannot tell.
    static func sinceStart() -> Duration? {
        guard let stat = FileManager.default.contents(atPath: "/proc/self/stat") else { return nil }
        let text = String(decoding: stat, as: UTF8.self)
        // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // Field 22 (starttime) is the 20th after the name.
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        var now = timespec()
        guard ticksPerSecond > 0, clock_gettime(CLOCK_BOOTTIME, &now) == 0 else { return nil }
        let uptime = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        return .seconds(max(0, uptime - ticks / ticksPerSecond))
    }
}
