import Foundation
import Logging
import RunAnywhere

/// Speech-to-text and voice activity detection on whisper.cpp, opened at run time from the
/// engines cache that scripts/setup fills (or `$RUNANYWHERE_WHISPER_LIB`).
public struct WhisperCppAdapter: FrameworkAdapter {
    /// ``RunAnywhere/InferenceFramework/whisperCpp``.
    public let framework = InferenceFramework.whisperCpp
    /// Speech-to-text.
    public let supportedModalities: Set<FrameworkModality> = [.voiceToText]
    /// whisper.cpp's ggml model files.
    private let libraryCandidates: [String]
    private let logger: Logger
    /// What the machine offers: the default thread count.
    private var hardware: any HardwareDetector = SystemHardwareDetector()

    /// Creates the adapter; whisper.cpp's own log goes to `logger`.
    public init(
        libraryPath: String? = nil, logger: Logger = Logger(label: "runanywhere.whispercpp", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.libraryCandidates = libraryPath.map { [$0] } ?? WhisperLibrary.candidatePaths()
        self.logger = logger
    }

    /// This adapter with `hardwareDetector`'s default thread count.
    public func using(hardwareDetector: any HardwareDetector) -> any FrameworkAdapter {
        var adapter = self
        adapter.hardware = hardwareDetector
        return adapter
    }

    /// Speech recognition models, and the voice activity detector (category `audio`).
    public func canHandle(model: ModelInfo) -> Bool {
        supportedFormats.contains(model.format) && [.speechRecognition, .audio].contains(model.category)
    }

    /// Available when libwhisper opens and has every function the SDK calls; the detail names the
    /// library and the compute backends its ggml has (CPU for the wheel scripts/setup installs).
    public func availability() -> FrameworkAvailability {
        do {
            let library = try WhisperLibrary.load(candidates: libraryCandidates, logger: logger)
            return .available(detail: "\(library.path); backends: \(library.backends.joined(separator: ", "))")
        } catch {
            return .unavailable(reason: (error as? SDKError)?.message ?? "\(error)")
        }
    }

    /// The file plus working buffers (whisper.cpp's compute buffers are about a third of the model).
    public func estimateMemoryUsage(for model: ModelInfo) -> Int64 {
        let size = model.primaryFileSize
        return size + size / 3 + (32 << 20)
    }

    /// Loads a whisper.cpp speech recognition model after checking the file
    /// (RunAnywhere's GGML reader), so that a damaged header is refused before whisper.cpp sizes its
    /// buffers from it.
    public func loadSpeechRecognitionModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any STTService {
        try options.validate()  // its threads reach C as an int
        let (candidates, engineLogger) = (libraryCandidates, self.logger)
        guard let path = model.primaryFile?.path else { throw SDKError(.modelNotDownloaded, "Model '\(model.id)' has no local file") }
        let threads = options.threads ?? hardware.profile(accelerators: []).defaultThreads
        return try await runBlocking {
            try WhisperGGMLReader.validate(URL(fileURLWithPath: path))
            return try WhisperSTTService(
                library: WhisperLibrary.load(candidates: candidates, logger: engineLogger), path: path, threads: threads)
        }
    }

    /// Loads the Silero voice activity model whisper.cpp runs.
    public func loadVoiceActivityModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any VADService {
        try options.validate()  // its threads reach C as an int
        let (candidates, engineLogger) = (libraryCandidates, self.logger)
        guard let path = model.primaryFile?.path else { throw SDKError(.modelNotDownloaded, "Model '\(model.id)' has no local file") }
        let threads = options.threads ?? 1
        return try await runBlocking {
            try WhisperVADService(library: WhisperLibrary.load(candidates: candidates, logger: engineLogger), path: path, threads: threads)
        }
    }
}
