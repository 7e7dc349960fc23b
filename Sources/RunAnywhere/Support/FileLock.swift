import Foundation

/// An exclusive advisory lock on a file (flock), so that processes sharing a data folder take
/// turns at read-modify-write updates.
package enum FileLock {
    /// Runs `body` while holding the lock on `url`, creating the lock file if needed.
    package static func withLock<T>(at url: URL, _ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(url.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SDKError.fileManagement(.fileWriteFailed, "Cannot open lock file \(url.path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw SDKError.fileManagement(.fileWriteFailed, "Cannot lock \(url.path): \(String(cString: strerror(errno)))")
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
