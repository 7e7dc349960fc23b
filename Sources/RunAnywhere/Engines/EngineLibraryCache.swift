import Synchronization

/// An engine's shared libraries, each opened at most once per process: the engine's C loader
/// (`ra_*_api_load`) opens the file and fills its function table, then the engine's own set-up
/// runs. The outcome is kept per path, failures included, so a missing engine is reported the
/// same way every time without being looked for again.
package final class EngineLibraryCache<Library: Sendable>: Sendable {
    private let engine: String
    private let hint: String
    private let opened = Mutex<[String: Result<Library, SDKError>]>([:])

    /// A cache for `engine` (a name for people, e.g. "llama.cpp"); when the library cannot be
    /// opened, the message names ``EngineInstallation/command``, then `hint`: another way to
    /// provide it (an environment variable pointing to a library, a Debian package).
    package init(engine: String, hint: String) {
        self.engine = engine
        self.hint = hint
    }

    /// The library at the first of `candidates` that exists (see
    /// ``EngineLibraryLocator/first(of:)``), opened on first use: `load` is the engine's C loader,
    /// called with the path, a table to fill, and a buffer and its size for the reason it failed;
    /// it returns 0 on success. `setup` then receives the filled table and the path and does the
    /// engine's own start-up (log callback, backend).
    package func library<Table>(
        candidates: [String],
        load: (UnsafePointer<CChar>, UnsafeMutablePointer<Table>, UnsafeMutablePointer<CChar>, Int) -> Int32,
        setup: (Table, String) throws -> Library
    ) throws -> Library {
        let path = EngineLibraryLocator.first(of: candidates)
        return try opened.withLock { cache -> Result<Library, SDKError> in
            if let cached = cache[path] { return cached }
            let result = Result { try setup(open(path, load: load), path) }
                .mapError { $0 as? SDKError ?? SDKError(.frameworkNotAvailable, "\($0)") }
            cache[path] = result
            return result
        }.get()
    }

    private func open<Table>(
        _ path: String, load: (UnsafePointer<CChar>, UnsafeMutablePointer<Table>, UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws -> Table {
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        defer { table.deallocate() }
        var message = [CChar](repeating: 0, count: 1024)
        guard load(path, table, &message, message.count) == 0 else {
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SDKError(
                .frameworkNotAvailable,
                "\(engine) is not installed or cannot be opened (\(detail)); \(EngineInstallation.instructions), or \(hint)")
        }
        return table.move()  // filled completely by a successful load
    }
}
