import Crypto
import Foundation

/// File checks used after downloads.
enum FileDigest {
    /// The sha256 of a file as lowercase hex, read in 1 MiB pieces.
    static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Free bytes on the volume holding `url` (its nearest existing ancestor).
    static func freeSpace(at url: URL) -> Int64? {
        var directory = url
        while !FileManager.default.fileExists(atPath: directory.path), directory.pathComponents.count > 1 {
            directory.deleteLastPathComponent()
        }
        var stats = statvfs()
        guard statvfs(directory.path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
