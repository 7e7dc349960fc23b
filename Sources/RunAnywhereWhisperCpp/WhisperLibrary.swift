internal import CWhisperCpp
import Foundation
import Logging
import RunAnywhere

/// libwhisper opened with dlopen(RTLD_LOCAL) (its ggml 0.13 must not meet llama.cpp's 0.25),
/// its function table, and its log. Opened once per process and never closed.
final class WhisperLibrary: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_whisper_api
    /// The library file.
    let path: String
    /// whisper.cpp's log; its latest errors explain a failure.
    let logSink: EngineLogSink
    /// The names of the languages whisper.cpp knows, as it reads them: codes (ISO 639-1, such as
    /// "en", and a few more) and full names ("english").
    let languages: Set<String>

    private init(api: ra_whisper_api, path: String, logSink: EngineLogSink) {
        self.api = api
        self.path = path
        self.logSink = logSink
        languages = Set(
            (0...max(api.whisper_lang_max_id(), 0)).flatMap { id in
                [api.whisper_lang_str(id), api.whisper_lang_str_full(id)].compactMap { $0.map { String(cString: $0) } }
            })
    }

    private static let libraries = EngineLibraryCache<WhisperLibrary>(
        engine: "whisper.cpp", hint: "set RUNANYWHERE_WHISPER_LIB to a libwhisper.so"
    )

    /// `$RUNANYWHERE_WHISPER_LIB`, then the engines cache, then the system's `libwhisper.so`.
    static func candidatePaths() -> [String] {
        EngineLibraryLocator.candidates(
            environmentVariable: "RUNANYWHERE_WHISPER_LIB", engine: "whisper.cpp", fileName: "libwhisper", systemName: "libwhisper.so")
    }

    /// The compute backends this build of whisper.cpp has (its ggml's registry: "CPU" for the
    /// wheel scripts/setup installs; a GPU build would add "CUDA" or "Vulkan").
    var backends: [String] {
        GGMLBackends.names(count: api.ggml_backend_reg_count, get: api.ggml_backend_reg_get, name: api.ggml_backend_reg_name)
    }

    /// Opens the first library that exists among `candidates` (cached per process); the
    /// library's log goes to `logger`.
    static func load(candidates: [String] = candidatePaths(), logger: Logger) throws -> WhisperLibrary {
        let load = {
            (path: UnsafePointer<CChar>, api: UnsafeMutablePointer<ra_whisper_api>, error: UnsafeMutablePointer<CChar>, size: Int) in
            // OpenMP threads that spin while waiting made transcription up to 15× slower under load.
            setenv("OMP_WAIT_POLICY", "PASSIVE", 0)
            return ra_whisper_api_load(path, api, error, size)
        }
        return try libraries.library(candidates: candidates, load: load) { api, path in
            let sink = EngineLogSink(logger: logger, prefix: "whisper.cpp")
            api.whisper_log_set(
                { level, text, data in
                    guard let text, let data else { return }
                    Unmanaged<EngineLogSink>.fromOpaque(data).takeUnretainedValue().receive(
                        level: level.rawValue, text: String(cString: text))
                }, Unmanaged.passRetained(sink).toOpaque())
            logger.debug(
                "Opened whisper.cpp",
                metadata: ["path": "\(path)", "version": "\(api.whisper_version().map { String(cString: $0) } ?? "?")"])
            return WhisperLibrary(api: api, path: path, logSink: sink)
        }
    }
}
