internal import CWhisperCpp
import Foundation
import Logging
import RunAnywhere
import Synchronization

/// libwhisper opened with dlopen(RTLD_LOCAL) (its ggml 0.13 must not meet llama.cpp's 0.25),
/// its function table, and its log. Opened once per process and never closed.
final class WhisperLibrary: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_whisper_api
    let path: String
    let logSink: EngineLogSink

    private init(api: ra_whisper_api, path: String, logSink: EngineLogSink) {
        self.api = api
        self.path = path
        self.logSink = logSink
    }

    private static let opened = Mutex<[String: Result<WhisperLibrary, SDKError>]>([:])

    /// `$RUNANYWHERE_WHISPER_LIB`, then the engines cache, then the system's `libwhisper.so`.
    static func candidatePaths() -> [String] {
        EngineLibraryLocator.candidates(environmentVariable: "RUNANYWHERE_WHISPER_LIB", engine: "whisper.cpp", fileName: "libwhisper", systemName: "libwhisper.so")
    }

    static func load(candidates: [String] = candidatePaths(), logger: Logger) throws -> WhisperLibrary {
        let path = EngineLibraryLocator.first(of: candidates)
        return try opened.withLock { cache -> Result<WhisperLibrary, SDKError> in
            if let cached = cache[path] { return cached }
            let result = Result { try open(path, logger: logger) }.mapError { $0 as? SDKError ?? SDKError(.frameworkNotAvailable, "\($0)") }
            cache[path] = result
            return result
        }.get()
    }

    private static func open(_ path: String, logger: Logger) throws -> WhisperLibrary {
        // OpenMP threads that spin while waiting made transcription up to 15× slower under load.
        setenv("OMP_WAIT_POLICY", "PASSIVE", 0)
        let table = UnsafeMutablePointer<ra_whisper_api>.allocate(capacity: 1)
        defer { table.deallocate() }
        var message = [CChar](repeating: 0, count: 1024)
        guard ra_whisper_api_load(path, table, &message, message.count) == 0 else {
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SDKError(.frameworkNotAvailable, "whisper.cpp is not installed or cannot be opened (\(detail)); run scripts/setup, or set RUNANYWHERE_WHISPER_LIB to a libwhisper.so")
        }
        let api = table.pointee
        let sink = EngineLogSink(logger: logger, prefix: "whisper.cpp")
        api.whisper_log_set({ level, text, data in
            guard let text, let data else { return }
            Unmanaged<EngineLogSink>.fromOpaque(data).takeUnretainedValue().receive(level: level.rawValue, text: String(cString: text))
        }, Unmanaged.passRetained(sink).toOpaque())
        logger.debug("Opened whisper.cpp", metadata: ["path": "\(path)", "version": "\(api.whisper_version().map { String(cString: $0) } ?? "?")"])
        return WhisperLibrary(api: api, path: path, logSink: sink)
    }
}
