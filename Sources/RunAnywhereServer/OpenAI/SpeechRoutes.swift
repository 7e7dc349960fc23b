import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/audio/speech`: `model` (a text-to-speech model id, such as `piper-en_US-joe-medium`
/// or `espeak-ng-en-us`), `input`, `voice`, `speed` (0.25 to 4) and `response_format` `wav`
/// (the voice's own rate) or `pcm` (16-bit little-endian mono at 24 kHz, as OpenAI sends it), and
/// `stream_format`: `audio` (the default) sends the bytes, and `sse` sends them as
/// `speech.audio.delta` events (base64), then `speech.audio.done`. PCM comes in pieces as it is
/// spoken (the first sentence alone, then longer runs), so that playback can start before the
/// whole text is spoken: the first sentence is spoken before the answer starts (what fails early
/// is an HTTP error), and a failure later cuts the bytes short or is an `error` event. A WAV's
/// header carries its length, so WAV comes whole (one delta).
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
            let streamFormat = body.streamFormat ?? "audio"
            guard streamFormat == "audio" || streamFormat == "sse" else {
                throw APIError(.badRequest, "stream_format '\(streamFormat)' is not supported; use audio or sse", param: "stream_format")
            }
            var options = TTSOptions(
                rate: body.speed ?? 1, audioFormat: format == "wav" ? .wav : .pcm, sampleRate: format == "pcm" ? 24_000 : 0)
            if let voice = body.voice, !RealtimeSessionSettings.openAIVoices.contains(voice.lowercased()) { options.voice = voice }
            if let speed = body.speed, !(0.25...4).contains(speed) {
                throw APIError(.badRequest, "speed must be between 0.25 and 4", param: "speed")
            }
            let model = Self.openAIModels.contains(body.model) ? SDKConstants.Models.defaultVoiceID : body.model
            let characters: Int
            do {
                characters = try RunAnywhereRuntime.speakableText(body.input).count
            } catch {
                throw APIError.from(error).naming("input")
            }
            guard format == "pcm" else {
                let output = try await runtime.synthesize(body.input, voiceModel: model, options: options)
                guard streamFormat == "sse" else { return bodyResponse(ByteBuffer(bytes: output.audioData), contentType: "audio/wav") }
                return ServerSentEvents.response { send in
                    try await send([
                        try ServerSentEvents.event(AudioDelta(audio: output.audioData.base64EncodedString())),
                        try ServerSentEvents.event(AudioDone(usage: .init(characters: characters))),
                    ])
                }
            }
            let sentences = try await runtime.synthesizeStream(body.input, voiceModel: model, options: options)
            // The first sentence before the answer starts; the rest are read from the same stream
            // (one reader at a time) as they come.
            var first = sentences.makeAsyncIterator()
            guard let opening = try await first.next() else { throw APIError(.internalServerError, "The voice spoke no audio") }
            guard streamFormat == "sse" else {
                return streamingResponse(contentType: "audio/pcm") { writer in
                    try await writer.write(ByteBuffer(bytes: opening.pcm16Data))
                    for try await audio in sentences { try await writer.write(ByteBuffer(bytes: audio.pcm16Data)) }
                }
            }
            return ServerSentEvents.response { send in
                try await send([try ServerSentEvents.event(AudioDelta(audio: opening.pcm16Data.base64EncodedString()))])
                for try await audio in sentences {
                    try await send([try ServerSentEvents.event(AudioDelta(audio: audio.pcm16Data.base64EncodedString()))])
                }
                try await send([try ServerSentEvents.event(AudioDone(usage: .init(characters: characters)))])
            }
        }
    }

    /// A piece of the audio, in `response_format`, base64.
    struct AudioDelta: Encodable {
        let type = "speech.audio.delta"
        let audio: String
    }

    /// The end of the audio. Voices read characters, not tokens: `input_tokens` counts the
    /// characters spoken, and no tokens are made (`output_tokens` 0).
    struct AudioDone: Encodable {
        struct Usage: Encodable {
            let inputTokens: Int
            let outputTokens = 0
            let totalTokens: Int
            init(characters: Int) {
                inputTokens = characters
                totalTokens = characters
            }
            enum CodingKeys: String, CodingKey {
                case inputTokens = "input_tokens", outputTokens = "output_tokens", totalTokens = "total_tokens"
            }
        }
        let type = "speech.audio.done"
        let usage: Usage
    }
}
