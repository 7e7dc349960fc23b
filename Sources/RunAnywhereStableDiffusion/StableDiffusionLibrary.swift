internal import CStableDiffusion
import Foundation
import Logging
import RunAnywhere

/// libstable-diffusion opened with dlopen(RTLD_LOCAL) (the ggml compiled into it must not meet
/// llama.cpp's), its function table, and its log. Opened once per process and never closed.
final class StableDiffusionLibrary: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_sd_api
    /// The library file.
    let path: String
    /// stable-diffusion.cpp's log; its latest errors explain a failure.
    let logSink: EngineLogSink

    private init(api: ra_sd_api, path: String, logSink: EngineLogSink) {
        self.api = api
        self.path = path
        self.logSink = logSink
    }

    /// The compute backends this build has (its ggml's registry: "CPU" for the build scripts/setup
    /// makes; a GPU build would add "CUDA" or "Vulkan").
    var backends: [String] {
        GGMLBackends.names(count: api.ggml_backend_reg_count, get: api.ggml_backend_reg_get, name: api.ggml_backend_reg_name)
    }

    private static let libraries = EngineLibraryCache<StableDiffusionLibrary>(
        engine: "stable-diffusion.cpp", hint: "set RUNANYWHERE_SD_LIB to a libstable-diffusion.so"
    )

    /// `$RUNANYWHERE_SD_LIB`, then the engines cache, then the system's `libstable-diffusion.so`.
    static func candidatePaths() -> [String] {
        EngineLibraryLocator.candidates(
            environmentVariable: "RUNANYWHERE_SD_LIB", engine: "stable-diffusion.cpp", fileName: "libstable-diffusion",
            systemName: "libstable-diffusion.so"
        )
    }

    /// Opens the first library that exists among `candidates` (cached per process); the
    /// library's log goes to `logger`.
    static func load(candidates: [String] = candidatePaths(), logger: Logger) throws -> StableDiffusionLibrary {
        let load = { (path: UnsafePointer<CChar>, api: UnsafeMutablePointer<ra_sd_api>, error: UnsafeMutablePointer<CChar>, size: Int) in
            // OpenMP threads that spin while waiting slow every other engine down (see WhisperLibrary).
            setenv("OMP_WAIT_POLICY", "PASSIVE", 0)
            return ra_sd_api_load(path, api, error, size)
        }
        return try libraries.library(candidates: candidates, load: load) { api, path in
            let sink = EngineLogSink(logger: logger, prefix: "stable-diffusion.cpp")
            api.sd_set_log_callback(
                { level, text, data in
                    guard let text, let data else { return }
                    // sd.cpp's levels are 0 debug … 3 error; the sink takes ggml's, 1 debug … 4 error.
                    Unmanaged<EngineLogSink>.fromOpaque(data).takeUnretainedValue().receive(
                        level: level.rawValue + 1, text: String(cString: text))
                }, Unmanaged.passRetained(sink).toOpaque())
            logger.debug(
                "Opened stable-diffusion.cpp",
                metadata: ["path": "\(path)", "version": "\(api.sd_version().map { String(cString: $0) } ?? "?")"])
            return StableDiffusionLibrary(api: api, path: path, logSink: sink)
        }
    }
}
