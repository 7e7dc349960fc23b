import Foundation

extension Data {
    /// Writes all of the data to the file descriptor `descriptor`, writing again after a partial
    /// write or an interruption (EINTR); throws what stopped it (a closed pipe's EPIPE, a full
    /// disk's ENOSPC, a file-size limit's EFBIG).
    package func write(toDescriptor descriptor: Int32) throws {
        try withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: written < 0 ? errno : EIO) ?? .EIO) }
                offset += written
            }
        }
    }
}
