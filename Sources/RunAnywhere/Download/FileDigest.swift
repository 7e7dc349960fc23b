import Crypto
import Foundation

/// File checks used by downloads and storage.
package enum FileDigest {
    /// Bytes in a file, or in every file below a folder; 0 when nothing is there.
    package static func size(of url: URL) -> Int64 {
        let size = { (url: URL) in Int64((try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
        guard (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true else { return size(url) }
        let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey])?.allObjects as? [URL] ?? []
        return files.reduce(0) { $0 + size($1) }
    }

    /// The sha256 of a file as lowercase hex, read in 1 MiB pieces.
    package static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hex(hasher.finalize())
    }

    /// The sha256 of `data` as lowercase hex.
    package static func sha256(of data: some DataProtocol) -> String {
        hex(SHA256.hash(data: data))
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// Free bytes on the volume holding `url` (its nearest existing ancestor).
    package static func freeSpace(at url: URL) -> Int64? {
        var directory = url
        while !FileManager.default.fileExists(atPath: directory.path), directory.pathComponents.count > 1 {
            directory.deleteLastPathComponent()
        }
        var stats = statvfs()
        guard statvfs(directory.path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
