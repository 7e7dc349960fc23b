import Foundation

extension Data {
    /// Writes all of the data to the file descriptor `descriptor`, writing again after a partial
    /// write or an interruption (EINTR), and once a descriptor left non-blocking by whoever
    /// opened it (EAGAIN) takes more; throws what stopped it (a closed pipe's EPIPE, a full
    /// disk's ENOSPC, a file-size limit's EFBIG).
    package func write(toDescriptor descriptor: Int32) throws {
        try withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                    continue
                }
                guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: written < 0 ? errno : EIO) ?? .EIO) }
                offset += written
            }
        }
    }
}
