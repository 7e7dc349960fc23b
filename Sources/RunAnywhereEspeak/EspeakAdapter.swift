internal import CEspeakNG
import Foundation
import Logging
import RunAnywhere

/// eSpeak NG's own formant voices (robotic but instant, in about a hundred languages). A
/// separate product because eSpeak NG is GPL-3.
public struct EspeakAdapter: FrameworkAdapter {
    /// ``RunAnywhere/InferenceFramework/espeakNG``.
    public let framework = InferenceFramework.espeakNG
    /// Text-to-speech.
    public let supportedModalities: Set<FrameworkModality> = [.textToVoice]
    /// None: the voices come with eSpeak NG itself.

    /// Creates the adapter; libespeak-ng is looked for in `$RUNANYWHERE_ESPEAK_LIB`, then the
    /// engines cache, then the system's library path.
    public init() {}

    /// eSpeak NG's speech synthesis voices (`espeak-ng-<voice>`).
    public func canHandle(model: ModelInfo) -> Bool {
        model.framework == .espeakNG && model.category == .speechSynthesis
    }

    /// Available when libespeak-ng opens and starts; the detail is the library that loaded.
    public func availability() -> FrameworkAvailability {
        do {
            return .available(detail: try EspeakEngine.load().path)
        } catch {
            return .unavailable(reason: (error as? SDKError)?.message ?? "\(error)")
        }
    }

    /// A small fixed amount: the voices are tiny.
    public func estimateMemoryUsage(for model: ModelInfo) -> Int64 { 16 << 20 }

    /// Starts eSpeak NG with the model's voice (`espeak-ng-de` speaks German; else `en-us`).
    public func loadSpeechSynthesisModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any TTSService {
        let voice = model.id.hasPrefix("espeak-ng-") ? String(model.id.dropFirst("espeak-ng-".count)) : "en-us"
        return try await runBlocking {
            let engine = try EspeakEngine.load()
            try engine.withLock { try engine.setVoice(voice) }
            return EspeakTTSService(engine: engine, voiceName: voice)
        }
    }
}

/// Speech from an eSpeak NG voice.
final class EspeakTTSService: TTSService {
    let voiceName: String
    var language: String { voiceName }
    private let engine: EspeakEngine

    init(engine: EspeakEngine, voiceName: String) {
        self.engine = engine
        self.voiceName = voiceName
    }

    func synthesize(_ text: String, options: TTSOptions, cancellation: CancellationFlag) throws -> AudioSamples {
        try engine.withLock {
            try engine.setVoice(options.voice ?? voiceName)
            _ = engine.api.espeak_SetParameter(espeakRATE, Int32(max(80, min(450, 175 * options.rate))), 0)
            _ = engine.api.espeak_SetParameter(espeakPITCH, Int32(max(0, min(100, 50 * options.pitch))), 0)
            _ = engine.api.espeak_SetParameter(espeakVOLUME, 100, 0)
            let collector = SampleCollector(cancellation: cancellation)
            let box = Unmanaged.passRetained(collector)
            defer { box.release() }
            let status = text.withCString { pointer in
                engine.api.espeak_Synth(pointer, strlen(pointer) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, box.toOpaque())
            }
            if cancellation.isCancelled { throw CancellationError() }
            guard status == EE_OK else {
                throw SDKError(.generationFailed, "eSpeak NG could not speak the text (error \(status.rawValue))")
            }
            return try AudioSamples(samples: collector.samples, sampleRate: engine.sampleRate)
        }
    }
}
