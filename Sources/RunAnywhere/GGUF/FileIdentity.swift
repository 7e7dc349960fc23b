import Foundation

/// A file as it is now: a replaced or rewritten file has another identity, so that what was
/// read or loaded from it (its parsed header, a loaded LoRA adapter) is not taken for the new one.
package struct FileIdentity: Hashable, Sendable {
    package let device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64

    /// The identity of the file at `path` now; nil when it cannot be read.
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }
}
