import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// `POST /api/voice`, the web app's voice turn, multipart: `file` (what the microphone recorded:
/// WebM/Opus, Ogg, WAV…), and optionally `model` (the language model), `voice` (the
/// text-to-speech model), `stt` (the speech-to-text model) and `systemPrompt`. The turn is
/// streamed as server-sent events as each stage finishes: `speech` (the segments voice activity
/// detection found), `transcript`, `delta` (pieces of the answer), `audio` (a piece of the spoken
/// answer as a base64 WAV file: its first phrase, then each sentence, spoken while the model
/// writes the rest), then `done` with the stage timings; `nospeech` ends a turn without speech.
/// A client that goes away stops the turn.
struct VoiceRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    struct VoiceForm: MultipartForm, Sendable {
        let file: UploadedFile
        let model: String?
        let voice: String?
        let stt: String?
        let systemPrompt: String?
        enum CodingKeys: String, CodingKey, CaseIterable { case file, model, voice, stt, systemPrompt }
    }

    struct Segments: Encodable, Sendable { let segments: [SpeechSegment] }
    struct Transcript: Encodable, Sendable { let text: String, language: String? }
    struct Delta: Encodable, Sendable { let content: String }
    struct SpokenAudio: Encodable, Sendable {
        let format = "wav"
        let sampleRate: Int
        let duration: Double
        /// The WAV file, base64.
        let data: String
    }
    struct Done: Encodable, Sendable {
        let transcript: String
        let response: String
        let timings: VoiceTurnTimings
    }
    struct Empty: Encodable, Sendable {}

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("api/voice") { request, _ in
            let form = try await decodeMultipartForm(VoiceForm.self, from: request, limit: configuration.maxBodySize)
            var config = ModularPipelineConfig(threads: configuration.threads)
            if let model = form.model { config.llmModelId = model }
            if let voice = form.voice { config.ttsVoiceId = voice }
            if let stt = form.stt { config.sttModelId = stt }
            if let prompt = form.systemPrompt { config.systemPrompt = prompt.isEmpty ? nil : prompt }
            // Refused before any work: an unknown model, or one of the wrong kind.
            for (id, category, field) in [
                (config.sttModelId, ModelCategory.speechRecognition, "stt"), (config.llmModelId, .language, "model"),
                (config.ttsVoiceId, .speechSynthesis, "voice"),
            ] {
                _ = try runtime.model(id: id, category: category, field: field)
            }
            config.apply(runtime.defaults(of: config.llmModelId), keepingSystemPrompt: form.systemPrompt != nil)
            let audio = try await form.file.audio(decodedBy: runtime, maxDuration: configuration.maxAudioDuration)
            let events = await ModularVoicePipeline(runtime: runtime, config: config).processTurn(audio)
            return ServerSentEvents.response { send in
                for try await event in events {
                    if let next = try Self.event(event) { try await send([next]) }
                }
            }
        }
    }

    /// The server-sent event for a pipeline event, if the web app needs it.
    private static func event(_ event: VoicePipelineEvent) throws -> ServerSentEvent? {
        switch event {
        case .diarizationUnavailable, .responded, .synthesized: nil  // the spoken answer went out piece by piece
        case .speechDetected(let segments): try ServerSentEvents.event(Segments(segments: segments), name: "speech")
        case .noSpeech: try ServerSentEvents.event(Empty(), name: "nospeech")
        case .transcribed(let output):
            try ServerSentEvents.event(Transcript(text: output.text, language: output.detectedLanguage), name: "transcript")
        case .responseText(let text): try ServerSentEvents.event(Delta(content: text), name: "delta")
        case .spoke(let speech):
            try ServerSentEvents.event(
                SpokenAudio(sampleRate: speech.sampleRate, duration: speech.duration, data: speech.audioData.base64EncodedString()),
                name: "audio")
        case .completed(let turn):
            try ServerSentEvents.event(Done(transcript: turn.transcript, response: turn.response, timings: turn.timings), name: "done")
        }
    }
}
