import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere voice FILE.wav`: one voice turn (VAD → STT → LLM → TTS).
struct VoiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice", abstract: "Answer a spoken question: detect speech, transcribe, generate a reply and speak it."
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The WAV file with the question.") var file: String
    @Option(name: .long, help: "Write the spoken reply to this WAV file.") var output: String?
    @Option(name: .long, help: "Language model id.") var model: String = SDKConstants.Models.defaultModelID
    @Option(name: .long, help: "Voice id.") var voice: String = SDKConstants.Models.defaultVoiceID
    @Option(name: .customLong("max-tokens"), help: "Most tokens of the reply (default: the model's, else 60).") var maxTokens: Int?
    @Option(name: .long, help: "Sampling temperature of the reply (default: the model's, else 0.7).") var temperature: Float?
    @Option(name: .long, help: "CPU threads.") var threads: Int?
    @Flag(name: .long, help: "Ask for speaker diarization (falls back to the standard pipeline on Linux).") var diarization = false
    @Flag(name: .long, help: "Print the turn (transcript, reply, segments, timings) as JSON.") var json = false

    struct Report: Encodable {
        let transcript: String
        let response: String
        let speechSegments: [SpeechSegment]
        let timings: VoiceTurnTimings
        let output: String?
        let replyDuration: Double?
    }

    func run() async throws {
        try await CLIContext.run(global) { _ in
            if let output { try OutputFile.check(output) }  // before a turn's three models run
            let runtime = try RunAnywhere.runtime()
            let audio = try await runtime.decodeAudio(contentsOf: URL(fileURLWithPath: file))
            var config = ModularPipelineConfig(
                llmModelId: model, ttsVoiceId: voice, enableSpeakerDiarization: diarization, threads: threads)
            // The model's defaults (a Modelfile's) over the pipeline's, the flags over both.
            config.apply(runtime.defaults(of: model), keepingSystemPrompt: false)
            if let maxTokens { config.generationOptions.maxTokens = maxTokens }
            if let temperature { config.generationOptions.temperature = temperature }
            let pipeline = try await RunAnywhere.createVoicePipeline(config: config)
            var turn: VoiceTurn?
            for try await event in await pipeline.processTurn(audio) {
                switch event {
                case .transcribed(let text) where !json:
                    Terminal.write(Terminal.bold("You said: ") + text.text + "\n" + Terminal.bold("Reply: "))
                case .responseText(let piece) where !json: Terminal.write(piece)
                case .noSpeech where !json: Terminal.write("No speech was detected.\n")
                case .completed(let finished): turn = finished
                default: break
                }
            }
            guard let turn else { return }
            if let output, let audio = turn.audio {
                try OutputFile.write(audio.audioData, to: output)
            }
            if json {
                return try JSONOutput.print(
                    Report(
                        transcript: turn.transcript, response: turn.response, speechSegments: turn.speechSegments,
                        timings: turn.timings, output: turn.audio == nil ? nil : output, replyDuration: turn.audio?.duration))
            }
            let t = turn.timings
            if !turn.response.isEmpty { Terminal.write("\n") }
            Terminal.write(
                Terminal.dim(
                    String(
                        format: "VAD %.0f ms • STT %.0f ms • LLM %.0f ms • TTS %.0f ms (first words after %.0f ms) • total %.0f ms",
                        t.vadMs ?? 0, t.sttMs, t.llmMs, t.ttsMs, t.timeToFirstAudioMs ?? 0, t.totalMs)) + "\n")
            if let output, turn.audio != nil { Terminal.write("Reply written to \(output)\n") }
        }
    }
}
