import Foundation
import RunAnywhere

/// A command's output file (`--output`): written whole or not at all (``AtomicFile``), to the
/// file a symbolic link names rather than over the link, and straight into a device or a named
/// pipe (`/dev/stdout`, a FIFO a player reads) rather than replacing it. A path that names a
/// folder, or whose folder does not exist, is refused: a mistyped path creates nothing.
enum OutputFile {
    /// Refuses `path` if it cannot be written (before a command does its work): a file is tried
    /// by creating, then removing, a scratch file where it goes (a folder that is read-only,
    /// immutable or on a file system that takes no files refuses that as it would the file).
    static func check(_ path: String) throws {
        let (target, existing) = try destination(path)
        guard existing == nil || existing == S_IFREG else { return }
        let trial = ScratchFile.url(in: target.deletingLastPathComponent(), prefix: ".\(target.lastPathComponent).", suffix: ".tmp")
        let descriptor = open(trial.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SDKError(.fileWriteFailed, "Cannot write \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        unlink(trial.path)
    }

    /// Writes `data` to `path`.
    static func write(_ data: Data, to path: String) throws {
        let (target, existing) = try destination(path)
        do {
            if let existing, existing != S_IFREG {
                try writeThrough(data, to: target)
            } else {
                try AtomicFile.write(data, to: target)
            }
        } catch {
            throw SDKError.writeFailed("Cannot write \(path)", error)
        }
    }

    /// Where `path` is written and what is there: the path itself for a device or a pipe (opened
    /// as it is, so that `/dev/stdout`, a link to a pipe's descriptor, works), else the file its
    /// symbolic links end at, which may not exist yet.
    private static func destination(_ path: String) throws -> (URL, mode_t?) {
        guard !path.isEmpty else { throw SDKError(.fileWriteFailed, "The output path is empty: name a file") }
        let url = URL(fileURLWithPath: path)
        var status = stat()
        if stat(path, &status) == 0 {
            let kind = status.st_mode & S_IFMT
            guard kind != S_IFDIR, !path.hasSuffix("/") else {
                throw SDKError(.fileWriteFailed, "Cannot write \(path): it is a folder; name a file")
            }
            return kind == S_IFREG ? (try following(url), kind) : (url, kind)
        }
        guard !path.hasSuffix("/") else { throw SDKError(.fileWriteFailed, "Cannot write \(path): it names a folder; name a file") }
        let target = try following(url)
        let folder = target.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw SDKError(.fileWriteFailed, "Cannot write \(path): the folder \(folder) does not exist")
        }
        return (target, nil)
    }

    /// `url`, or the file its chain of symbolic links ends at, whether or not that file exists
    /// (Foundation's `resolvingSymlinksInPath` leaves a link to a missing file as it is).
    private static func following(_ url: URL) throws -> URL {
        var current = url
        for _ in 0..<32 {
            guard let next = try? FileManager.default.destinationOfSymbolicLink(atPath: current.path) else { return current }
            current = next.hasPrefix("/") ? URL(fileURLWithPath: next) : current.deletingLastPathComponent().appendingPathComponent(next)
        }
        throw SDKError(.fileWriteFailed, "Cannot write \(url.path): too many symbolic links")
    }

    /// Writes `data` into the device or pipe at `url`, as it is.
    private static func writeThrough(_ data: Data, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        try data.write(toDescriptor: descriptor)
    }
}
