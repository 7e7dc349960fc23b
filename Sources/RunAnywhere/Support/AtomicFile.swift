import Foundation

/// Whole-file writes that never leave a half-written file behind.
public enum AtomicFile {
    /// Writes `data` to a temporary file beside `url`, flushes it, then renames it over `url`.
    /// With `permissions`, the file has that mode from its creation on (e.g. 0o600 for secrets).
    public static func write(_ data: Data, to url: URL, permissions: Int? = nil) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions ?? 0o644))
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(descriptor) }
            if let permissions, fchmod(descriptor, mode_t(permissions)) != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            try data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                    }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0, rename(temporary.path, url.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Moves an unreadable file aside as `<name>.corrupt-<timestamp>` and returns the new location.
    public static func moveAside(_ url: URL) throws -> URL {
        let stamp = Int(Date().timeIntervalSince1970)
        var target = url.deletingLastPathComponent().appendingPathComponent("\(url.lastPathComponent).corrupt-\(stamp)")
        var attempt = 1
        while FileManager.default.fileExists(atPath: target.path) {
            attempt += 1
            target = url.deletingLastPathComponent().appendingPathComponent("\(url.lastPathComponent).corrupt-\(stamp)-\(attempt)")
        }
        try FileManager.default.moveItem(at: url, to: target)
        return target
    }
}
