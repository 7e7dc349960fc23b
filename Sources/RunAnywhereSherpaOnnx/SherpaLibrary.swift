internal import CSherpaOnnx
import Foundation
import RunAnywhere
import Synchronization

/// libsherpa-onnx-c-api (with its ONNX Runtime beside it), opened once per process.
final class SherpaLibrary: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_sherpa_api
    let path: String

    private init(api: ra_sherpa_api, path: String) {
        self.api = api
        self.path = path
    }

    private static let opened = Mutex<[String: Result<SherpaLibrary, SDKError>]>([:])

    /// `$RUNANYWHERE_SHERPA_LIB`, then the engines cache, then the system's library.
    static func candidatePaths() -> [String] {
        EngineLibraryLocator.candidates(environmentVariable: "RUNANYWHERE_SHERPA_LIB", engine: "sherpa-onnx", fileName: "libsherpa-onnx-c-api", systemName: "libsherpa-onnx-c-api.so")
    }

    static func load(candidates: [String] = candidatePaths()) throws -> SherpaLibrary {
        let path = EngineLibraryLocator.first(of: candidates)
        return try opened.withLock { cache -> Result<SherpaLibrary, SDKError> in
            if let cached = cache[path] { return cached }
            let result = Result { () throws -> SherpaLibrary in
                let table = UnsafeMutablePointer<ra_sherpa_api>.allocate(capacity: 1)
                defer { table.deallocate() }
                var message = [CChar](repeating: 0, count: 1024)
                guard ra_sherpa_api_load(path, table, &message, message.count) == 0 else {
                    let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    throw SDKError(.frameworkNotAvailable, "sherpa-onnx is not installed or cannot be opened (\(detail)); run scripts/setup, or set RUNANYWHERE_SHERPA_LIB")
                }
                return SherpaLibrary(api: table.pointee, path: path)
            }.mapError { $0 as? SDKError ?? SDKError(.frameworkNotAvailable, "\($0)") }
            cache[path] = result
            return result
        }.get()
    }
}
