import CLlamaCpp
import Foundation
import Logging
import RunAnywhere

/// libmtmd, llama.cpp's multimodal library, opened with dlopen(RTLD_LOCAL) from the folder of
/// the libllama in use; it links to that libllama, which is already open, so both share one
/// llama.cpp. Opened the first time a vision-language model loads, and never closed.
final class MtmdLibrary: Sendable {
    /// The function table.
    let api: ra_mtmd_api
    /// The library file.
    let path: String

    private init(api: ra_mtmd_api, path: String) {
        self.api = api
        self.path = path
    }

    private static let libraries = EngineLibraryCache<MtmdLibrary>(
        engine: "llama.cpp's multimodal library (libmtmd)",
        hint: "set RUNANYWHERE_LLAMA_LIB to a llama.cpp build with libmtmd beside libllama"
    )

    /// The libmtmd beside `llama`'s library file.
    static func path(besides llama: String) -> String {
        URL(fileURLWithPath: llama).deletingLastPathComponent().appendingPathComponent("libmtmd.so").path
    }

    /// Opens the libmtmd beside `llama` (cached per process); its log joins llama.cpp's.
    static func load(besides llama: LlamaLibrary) throws -> MtmdLibrary {
        try libraries.library(candidates: [path(besides: llama.path)], load: ra_mtmd_api_load) { api, path in
            api.mtmd_helper_log_set(ggmlLogCallback, Unmanaged.passUnretained(llama.logSink).toOpaque())
            return MtmdLibrary(api: api, path: path)
        }
    }
}
