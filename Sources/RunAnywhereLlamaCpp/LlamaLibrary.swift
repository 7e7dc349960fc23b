import CLlamaCpp
import Foundation
import Logging
import RunAnywhere
import Synchronization

/// libllama opened with dlopen(RTLD_LOCAL), its function table, and its process-wide backend.
///
/// llama.cpp brings its own ggml, whose symbols clash with whisper.cpp's; opening it with
/// RTLD_LOCAL keeps them apart. A library is opened once per process and never closed.
final class LlamaLibrary: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_llama_api
    /// The library file.
    let path: String
    private let logSink: EngineLogSink

    private init(api: ra_llama_api, path: String, logSink: EngineLogSink) {
        self.api = api
        self.path = path
        self.logSink = logSink
    }

    private static let opened = Mutex<[String: Result<LlamaLibrary, SDKError>]>([:])

    /// Where libllama is looked for, in order: `$RUNANYWHERE_LLAMA_LIB` (a file or a folder),
    /// the engines cache that scripts/setup fills (`$RUNANYWHERE_HOME/engines/llama.cpp/lib`),
    /// then the system's library path.
    static func candidatePaths() -> [String] {
        EngineLibraryLocator.candidates(environmentVariable: "RUNANYWHERE_LLAMA_LIB", engine: "llama.cpp", fileName: "libllama", systemName: "libllama.so")
    }

    /// Opens the first library that exists among `candidates` (cached per process); the
    /// library's log goes to `logger`.
    static func load(candidates: [String] = candidatePaths(), logger: Logger) throws -> LlamaLibrary {
        let path = EngineLibraryLocator.first(of: candidates)
        let result = opened.withLock { cache -> Result<LlamaLibrary, SDKError> in
            if let cached = cache[path] { return cached }
            let result = Result { try open(path, logger: logger) }.mapError { $0 as? SDKError ?? SDKError(.frameworkNotAvailable, "\($0)") }
            cache[path] = result
            return result
        }
        return try result.get()
    }

    private static func open(_ path: String, logger: Logger) throws -> LlamaLibrary {
        let table = UnsafeMutablePointer<ra_llama_api>.allocate(capacity: 1)
        defer { table.deallocate() }
        var message = [CChar](repeating: 0, count: 1024)
        guard ra_llama_api_load(path, table, &message, message.count) == 0 else {
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SDKError(.frameworkNotAvailable, "llama.cpp is not installed or cannot be opened (\(detail)); run scripts/setup, or set RUNANYWHERE_LLAMA_LIB to a libllama.so")
        }
        let api = table.pointee  // filled completely by a successful load
        let sink = EngineLogSink(logger: logger, prefix: "llama.cpp")
        api.llama_log_set(llamaLogCallback, Unmanaged.passRetained(sink).toOpaque())
        api.llama_backend_init()
        logger.debug("Opened llama.cpp", metadata: ["path": "\(path)", "system": "\(api.llama_print_system_info().map { String(cString: $0) } ?? "")"])
        return LlamaLibrary(api: api, path: path, logSink: sink)
    }

    /// The most recent error lines llama.cpp logged, to explain a failure.
    func recentErrors() -> String { logSink.recentErrors() }
}

private func llamaLogCallback(level: ggml_log_level, text: UnsafePointer<CChar>?, userData: UnsafeMutableRawPointer?) {
    guard let text, let userData else { return }
    Unmanaged<EngineLogSink>.fromOpaque(userData).takeUnretainedValue().receive(level: level.rawValue, text: String(cString: text))
}
