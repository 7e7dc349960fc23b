import Foundation

/// The bytes of the file at `url`, mapped rather than read unless `mapped` is false: a missing
/// file is ``ErrorCode/fileNotFound``; a folder, or a file that cannot be read, is
/// ``ErrorCode/fileReadFailed`` saying which and why (the system's reason, where Foundation's
/// own message names only its error domain and number).
package func fileContents(of url: URL, mapped: Bool = true) throws -> Data {
    do {
        return try Data(contentsOf: url, options: mapped ? .alwaysMapped : [])
    } catch {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw SDKError.fileManagement(.fileNotFound, "No such file: \(url.path)")
        }
        guard !isFolder.boolValue else {
            throw SDKError.fileManagement(.fileReadFailed, "Cannot read \(url.path): it is a folder; name a file")
        }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        let reason =
            underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32($0.code))) : nil }
            ?? error.localizedDescription
        throw SDKError.fileManagement(.fileReadFailed, "Cannot read \(url.path): \(reason)")
    }
}
