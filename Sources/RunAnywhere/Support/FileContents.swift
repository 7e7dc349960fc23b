import Foundation

/// The bytes of the file at `url`, mapped rather than read unless `mapped` is false: a missing
/// file is ``ErrorCode/fileNotFound``; a folder, a pipe or a device, or a file that cannot be
/// read, is ``ErrorCode/fileReadFailed`` saying which and why (the system's reason, where
/// Foundation's own message names only its error domain and number).
package func fileContents(of url: URL, mapped: Bool = true) throws -> Data {
    var status = stat()
    guard stat(url.path, &status) == 0 else {
        guard errno != ENOENT, errno != ENOTDIR else { throw SDKError.fileManagement(.fileNotFound, "No such file: \(url.path)") }
        throw SDKError.fileManagement(.fileReadFailed, "Cannot read \(url.path): \(String(cString: strerror(errno)))")
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw SDKError.fileManagement(.fileReadFailed, "Cannot read \(url.path): it is a folder; name a file")
    default:
        throw SDKError.fileManagement(
            .fileReadFailed, "Cannot read \(url.path): it is not a regular file (a pipe or a device); save what it gives to a file first")
    }
    do {
        return try Data(contentsOf: url, options: mapped ? .alwaysMapped : [])
    } catch {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        let reason =
            underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32($0.code))) : nil }
            ?? error.localizedDescription
        throw SDKError.fileManagement(.fileReadFailed, "Cannot read \(url.path): \(reason)")
    }
}
