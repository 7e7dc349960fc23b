import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/audio/speech`: `model` (a text-to-speech model id, such as `piper-en_US-joe-medium`
/// or `espeak-ng-en-us`), `input`, `voice`, `speed` (0.25 to 4) and `response_format` `wav`
/// (the voice's own rate) or `pcm` (16-bit little-endian mono at 24 kHz, as OpenAI sends it), and
/// `stream_format` `audio` (the bytes; OpenAI's `sse` events are a 400).
/// OpenAI's model names (`tts-1`, `tts-1-hd`, `gpt-4o-mini-tts`) stand for the default voice
/// model, as `whisper-1` does for transcriptions, so a client made for OpenAI speaks unchanged;
/// OpenAI's voice names (`alloy`, `nova`, …) select the model's own voice; any other `voice` is
/// passed to the engine (eSpeak NG voice names such as `en`, `de`, `fr`).
struct SpeechRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    /// OpenAI's speech models, which the default voice model answers for.
    static let openAIModels: Set = ["tts-1", "tts-1-hd", "gpt-4o-mini-tts"]

    struct SpeechRequest: Decodable, Sendable {
        let model: String
        let input: String
        let voice: String?
        @NumberField var speed: Float?
        let responseFormat: String?
        let streamFormat: String?
        enum CodingKeys: String, CodingKey {
            case model, input, voice, speed, responseFormat = "response_format", streamFormat = "stream_format"
        }
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/audio/speech") { request, _ in
            let body = try await decodeJSON(SpeechRequest.self, from: request, limit: configuration.maxBodySize)
            let format = body.responseFormat ?? "wav"
            guard format == "wav" || format == "pcm" else {
                throw APIError(.badRequest, "response_format '\(format)' is not supported; use wav or pcm", param: "response_format")
            }
            if let stream = body.streamFormat, stream != "audio" {
                throw APIError(
                    .badRequest, "stream_format '\(stream)' is not supported; the audio comes as its bytes (stream_format audio)",
                    param: "stream_format")
            }
            var options = TTSOptions(
                rate: body.speed ?? 1, audioFormat: format == "wav" ? .wav : .pcm, sampleRate: format == "pcm" ? 24_000 : 0)
            if let voice = body.voice, !RealtimeSessionSettings.openAIVoices.contains(voice.lowercased()) { options.voice = voice }
            if let speed = body.speed, !(0.25...4).contains(speed) {
                throw APIError(.badRequest, "speed must be between 0.25 and 4", param: "speed")
            }
            let model = Self.openAIModels.contains(body.model) ? SDKConstants.Models.defaultVoiceID : body.model
            let output = try await runtime.synthesize(body.input, voiceModel: model, options: options)
            return bodyResponse(ByteBuffer(bytes: output.audioData), contentType: format == "wav" ? "audio/wav" : "audio/pcm")
        }
    }
}
