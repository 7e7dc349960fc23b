internal import CLiteRt
import RunAnywhere

/// libLiteRt (TensorFlow Lite's runtime, from the ai-edge-litert wheel), opened once per process.
final class LiteRTLibrary: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_litert_api
    /// The library file.
    let path: String

    private init(api: ra_litert_api, path: String) {
        self.api = api
        self.path = path
    }

    private static let libraries = EngineLibraryCache<LiteRTLibrary>(
        engine: "LiteRT (TensorFlow Lite)", hint: "set RUNANYWHERE_TFLITE_LIB to a libLiteRt.so (from the ai-edge-litert wheel)"
    )

    /// `$RUNANYWHERE_TFLITE_LIB`, then the LiteRT engine's folder in the engines cache, then the
    /// system's library.
    static func candidatePaths() -> [String] {
        EngineLibraryLocator.candidates(
            environmentVariable: "RUNANYWHERE_TFLITE_LIB", engine: "litert", fileName: "libLiteRt", systemName: "libLiteRt.so"
        )
    }

    /// Opens the first library that exists among `candidates` (cached per process).
    static func load(candidates: [String] = candidatePaths()) throws -> LiteRTLibrary {
        try libraries.library(candidates: candidates, load: ra_litert_api_load, setup: LiteRTLibrary.init)
    }

    /// Throws when a call's status is not success, naming LiteRT's status; returns otherwise.
    func check(_ status: ra_litert_status, _ action: @autoclosure () -> String) throws {
        guard status != 0 else { return }
        throw SDKError(.generationFailed, "LiteRT could not \(action()): \(Self.describe(status))")
    }

    /// LiteRtStatus's name for `status` (litert_common.h).
    static func describe(_ status: ra_litert_status) -> String {
        let names: [Int32: String] = [
            1: "invalid argument", 2: "memory allocation failure", 3: "runtime failure", 4: "missing input tensor",
            5: "unsupported", 6: "not found", 7: "timeout expired", 8: "wrong version", 9: "unknown error", 10: "already exists",
            100: "cancelled", 500: "file I/O error", 501: "invalid flatbuffer", 502: "dynamic loading failed",
            503: "serialization failed", 504: "compilation failed",
        ]
        return "\(names[status] ?? "error") (status \(status))"
    }
}
