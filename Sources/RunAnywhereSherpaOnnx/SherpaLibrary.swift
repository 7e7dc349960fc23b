internal import CSherpaOnnx
import RunAnywhere

/// libsherpa-onnx-c-api (with its ONNX Runtime beside it), opened once per process.
final class SherpaLibrary: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_sherpa_api
    /// The library file.
    let path: String

    private init(api: ra_sherpa_api, path: String) {
        self.api = api
        self.path = path
    }

    private static let libraries = EngineLibraryCache<SherpaLibrary>(
        engine: "sherpa-onnx", hint: "set RUNANYWHERE_SHERPA_LIB"
    )

    /// `$RUNANYWHERE_SHERPA_LIB`, then the engines cache, then the system's library.
    static func candidatePaths() -> [String] {
        EngineLibraryLocator.candidates(
            environmentVariable: "RUNANYWHERE_SHERPA_LIB", engine: "sherpa-onnx", fileName: "libsherpa-onnx-c-api",
            systemName: "libsherpa-onnx-c-api.so")
    }

    /// Opens the first library that exists among `candidates` (cached per process).
    static func load(candidates: [String] = candidatePaths()) throws -> SherpaLibrary {
        try libraries.library(candidates: candidates, load: ra_sherpa_api_load, setup: SherpaLibrary.init)
    }
}
