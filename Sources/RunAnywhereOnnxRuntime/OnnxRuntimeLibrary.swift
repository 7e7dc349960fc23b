internal import COnnxRuntime
import RunAnywhere

/// libonnxruntime (the ONNX Runtime that comes with sherpa-onnx), opened once per process.
final class OnnxRuntimeLibrary: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_ort_api
    /// The library file.
    let path: String
    /// The runtime's version, e.g. "1.28.2".
    let version: String

    private init(api: ra_ort_api, path: String) {
        self.api = api
        self.path = path
        self.version = withUnsafeBytes(of: api.version) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private static let libraries = EngineLibraryCache<OnnxRuntimeLibrary>(
        engine: "ONNX Runtime", hint: "set RUNANYWHERE_ONNXRUNTIME_LIB (it comes with sherpa-onnx)"
    )

    /// `$RUNANYWHERE_ONNXRUNTIME_LIB`, then the sherpa-onnx engine's folder in the engines cache,
    /// then the system's library.
    static func candidatePaths() -> [String] {
        EngineLibraryLocator.candidates(
            environmentVariable: "RUNANYWHERE_ONNXRUNTIME_LIB", engine: "sherpa-onnx", fileName: "libonnxruntime",
            systemName: "libonnxruntime.so"
        )
    }

    /// Opens the first library that exists among `candidates` (cached per process).
    static func load(candidates: [String] = candidatePaths()) throws -> OnnxRuntimeLibrary {
        try libraries.library(candidates: candidates, load: ra_ort_api_load, setup: OnnxRuntimeLibrary.init)
    }

    /// Throws the message of a failed call's status (and releases it); returns on success.
    func check(_ status: OpaquePointer?, _ action: @autoclosure () -> String) throws {
        guard let status else { return }
        let message = String(cString: api.GetErrorMessage(status))
        api.ReleaseStatus(status)
        throw SDKError(.generationFailed, "ONNX Runtime could not \(action()): \(message)")
    }
}
