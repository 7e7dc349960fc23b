import Foundation
import Logging
import RunAnywhere

/// Piper text-to-speech voices on sherpa-onnx (ONNX Runtime). Piper voices read phonemes, so
/// the adapter takes a ``RunAnywhere/Phonemizer`` (e.g. `EspeakPhonemizer` from RunAnywhereEspeak).
public struct SherpaOnnxAdapter: FrameworkAdapter {
    /// ``RunAnywhere/InferenceFramework/onnx``.
    public let framework = InferenceFramework.onnx
    /// Text-to-speech.
    public let supportedModalities: Set<FrameworkModality> = [.textToVoice]
    /// ONNX.
    private let phonemizer: any Phonemizer
    private let libraryCandidates: [String]
    /// What the machine offers: the default thread count.
    private var hardware: any HardwareDetector = SystemHardwareDetector()

    /// Creates the adapter with the phonemizer Piper voices need.
    public init(phonemizer: any Phonemizer, libraryPath: String? = nil) {
        self.phonemizer = phonemizer
        self.libraryCandidates = libraryPath.map { [$0] } ?? SherpaLibrary.candidatePaths()
    }

    /// This adapter with `hardwareDetector`'s default thread count.
    public func using(hardwareDetector: any HardwareDetector) -> any FrameworkAdapter {
        var adapter = self
        adapter.hardware = hardwareDetector
        return adapter
    }

    /// Speech synthesis models in ONNX format (Piper voices).
    public func canHandle(model: ModelInfo) -> Bool {
        model.format == .onnx && model.category == .speechSynthesis
    }

    /// Available when libsherpa-onnx-c-api opens and has every function the SDK calls.
    public func availability() -> FrameworkAvailability {
        do {
            return .available(detail: try SherpaLibrary.load(candidates: libraryCandidates).path)
        } catch {
            return .unavailable(reason: (error as? SDKError)?.message ?? "\(error)")
        }
    }

    /// Twice the voice file, plus ONNX Runtime's own memory.
    public func estimateMemoryUsage(for model: ModelInfo) -> Int64 {
        model.primaryFileSize * 2 + (64 << 20)
    }

    /// Loads a Piper voice: its `.onnx` (with Piper metadata) and `tokens.txt` beside it.
    public func loadSpeechSynthesisModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any TTSService {
        try options.validate()  // its threads reach C as an int
        guard let file = model.primaryFile else { throw SDKError(.modelNotDownloaded, "Voice '\(model.id)' is not installed") }
        let tokens = file.deletingLastPathComponent().appendingPathComponent("tokens.txt")
        guard FileManager.default.fileExists(atPath: tokens.path) else {
            throw SDKError.fileManagement(.fileNotFound, "Voice '\(model.id)' has no tokens.txt beside \(file.lastPathComponent)")
        }
        let (candidates, phonemizer) = (libraryCandidates, self.phonemizer)
        let threads = options.threads ?? hardware.profile(accelerators: []).defaultThreads
        return try await runBlocking {
            try PiperTTSService(
                library: SherpaLibrary.load(candidates: candidates), model: file, tokens: tokens, threads: threads,
                voiceName: model.id, phonemizer: phonemizer)
        }
    }
}
