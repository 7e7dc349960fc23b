import Foundation

/// Whole-file writes that never leave a half-written file behind.
///
/// The data goes to a temporary file beside the target, named after the writing process
/// (`.<name>.<pid>.<random>.tmp`), which is flushed and renamed over the target: a reader sees the
/// old file or the new one, whatever happens to the writer. A writer killed before its rename
/// leaves only its temporary file, which the next write of the same target deletes once that
/// process is gone.
package enum AtomicFile {
    /// Writes `data` to a temporary file beside `url`, flushes it, then renames it over `url`.
    /// With `permissions`, the file has that mode from its creation on (e.g. 0o600 for secrets).
    /// A full disk (or a file-size limit) is reported as ``ErrorCode/insufficientStorage``, with
    /// the previous file intact and nothing left behind.
    package static func write(_ data: Data, to url: URL, permissions: Int? = nil) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        ScratchFile.removeAbandoned(in: directory, prefix: ".\(url.lastPathComponent).")
        let temporary = ScratchFile.url(in: directory, prefix: ".\(url.lastPathComponent).", suffix: ".tmp")
        do {
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions ?? 0o644))
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(descriptor) }
            if let permissions, fchmod(descriptor, mode_t(permissions)) != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            try data.write(toDescriptor: descriptor)
            guard fsync(descriptor) == 0, rename(temporary.path, url.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if StorageFull.caused(error) {
                throw SDKError.fileManagement(
                    .insufficientStorage,
                    "No space left to write \(url.path) (\(error.localizedDescription)); the previous file is unchanged")
            }
            throw error
        }
    }

    /// Removes the file `url` written before (a link there, not what it points to); no file there
    /// is nothing to do. Never a folder: one that stands where the file goes (put there by hand)
    /// is left as it is, with ``ErrorCode/fileWriteFailed`` saying so.
    package static func remove(_ url: URL) throws {
        guard unlink(url.path) != 0, errno != ENOENT else { return }
        let reason =
            errno == EISDIR ? "it is a folder, not a file RunAnywhere wrote; it is left as it is" : String(cString: strerror(errno))
        throw SDKError.fileManagement(.fileWriteFailed, "Cannot delete \(url.path): \(reason)")
    }

    /// Moves an unreadable file aside as `<name>.corrupt-<timestamp>` and returns the new location.
    package static func moveAside(_ url: URL) throws -> URL {
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

/// Temporary files named after the process that writes them (`<prefix><pid>.<random><suffix>`),
/// so that one left by a killed process can be told from one still being written.
package enum ScratchFile {
    /// A new name in `directory` for this process.
    package static func url(in directory: URL, prefix: String, suffix: String) -> URL {
        directory.appendingPathComponent("\(prefix)\(getpid()).\(UUID().uuidString)\(suffix)")
    }

    /// Deletes the files in `directory` named `<prefix><pid>.…` whose process has ended.
    package static func removeAbandoned(in directory: URL, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "." }), pid > 0, !isAlive(pid) else { continue }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Whether process `pid` still runs.
    static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}

/// Recognizes the errors of a write that found no room: a full disk, a quota, or the file-size
/// limit (`ulimit -f`).
enum StorageFull {
    /// Whether `error`, or the error under it, is ENOSPC, EDQUOT or EFBIG.
    static func caused(_ error: any Error) -> Bool {
        let codes: Set<Int> = [Int(ENOSPC), Int(EDQUOT), Int(EFBIG)]
        if let error = error as? POSIXError { return codes.contains(Int(error.code.rawValue)) }
        if let error = error as? CocoaError, error.code == .fileWriteOutOfSpace { return true }
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain, codes.contains(error.code) { return true }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? any Error { return caused(underlying) }
        return false
    }
}
