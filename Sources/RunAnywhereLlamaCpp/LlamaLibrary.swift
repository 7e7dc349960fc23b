import CLlamaCpp
import Foundation
import Logging
import RunAnywhere

/// libllama opened with dlopen(RTLD_LOCAL), its function table, and its process-wide backend.
///
/// llama.cpp brings its own ggml, whose symbols clash with whisper.cpp's; opening it with
/// RTLD_LOCAL keeps them apart. A library is opened once per process and never closed.
final class LlamaLibrary: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_llama_api
    /// The library file.
    let path: String
    /// llama.cpp's log; its latest errors explain a failure.
    let logSink: EngineLogSink

    private init(api: ra_llama_api, path: String, logSink: EngineLogSink) {
        self.api = api
        self.path = path
        self.logSink = logSink
    }

    private static let libraries = EngineLibraryCache<LlamaLibrary>(
        engine: "llama.cpp", hint: "set RUNANYWHERE_LLAMA_LIB to a libllama.so"
    )

    /// Where libllama is looked for, in order: `$RUNANYWHERE_LLAMA_LIB` (a file or a folder),
    /// the GPU variant when it is installed and the machine has its driver (``LlamaGPUVariant``),
    /// the engines cache that scripts/setup fills (`$RUNANYWHERE_HOME/engines/llama.cpp/lib`),
    /// then the system's library path. `drivers` are the machine's (its hardware detector's).
    static func candidatePaths(drivers: GPUDrivers = .current()) -> [String] {
        let cpu = EngineLibraryLocator.candidates(
            environmentVariable: "RUNANYWHERE_LLAMA_LIB", engine: "llama.cpp", fileName: "libllama", systemName: "libllama.so"
        )
        guard let gpu = LlamaGPUVariant.installed(), gpu.usable(drivers: drivers) else { return cpu }
        return [gpu.library] + cpu
    }

    /// Opens the first library that exists among `candidates` (cached per process); the
    /// library's log goes to `logger`.
    static func load(candidates: [String] = candidatePaths(), logger: Logger) throws -> LlamaLibrary {
        try libraries.library(candidates: candidates, load: ra_llama_api_load) { api, path in
            let sink = EngineLogSink(logger: logger, prefix: "llama.cpp")
            api.llama_log_set(ggmlLogCallback, Unmanaged.passRetained(sink).toOpaque())
            api.llama_backend_init()
            logger.debug(
                "Opened llama.cpp",
                metadata: ["path": "\(path)", "system": "\(api.llama_print_system_info().map { String(cString: $0) } ?? "")"])
            return LlamaLibrary(api: api, path: path, logSink: sink)
        }
    }
}

/// Routes a ggml-style log line (llama.cpp's and libmtmd's) to the `EngineLogSink` in `userData`.
func ggmlLogCallback(level: ggml_log_level, text: UnsafePointer<CChar>?, userData: UnsafeMutableRawPointer?) {
    guard let text, let userData else { return }
    Unmanaged<EngineLogSink>.fromOpaque(userData).takeUnretainedValue().receive(level: level.rawValue, text: String(cString: text))
}
