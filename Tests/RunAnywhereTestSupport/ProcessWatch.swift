import Foundation

/// Waiting for a process a test started, or made something start, to end.
package enum ProcessWatch {
    /// Whether process `pid` is gone within `limit` (looked at every 50 ms); one still there then
    /// is killed (SIGKILL), so that a failing test leaves nothing running.
    package static func gone(_ pid: pid_t, within limit: Duration = .seconds(30)) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while kill(pid, 0) == 0 {
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                return false
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}
