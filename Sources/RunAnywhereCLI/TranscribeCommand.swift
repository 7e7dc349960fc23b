import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere transcribe FILE`: speech to text, from any audio file FFmpeg reads, written
/// segment by segment as it is heard.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Transcribe an audio file (WAV, MP3, FLAC, Ogg/Vorbis, Ogg/Opus, WebM/Opus, M4A…), writing the text as it is heard"
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The audio file (any sample rate and channel count).") var file: String
    @Option(name: .long, help: "Speech recognition model id.") var model: String = SDKConstants.Models.defaultSpeechRecognitionModelID
    @Option(name: .long, help: "Spoken language (ISO 639-1); multilingual models only (default: en; with --translate, detected).")
    var language: String?
    @Flag(name: .long, help: "Write the speech in English, whatever language it is in (a multilingual model's translation).")
    var translate = false
    @Option(name: .long, help: "CPU threads.") var threads: Int?
    @Flag(name: .long, help: "Print the transcription with its segments and timings as JSON.") var json = false

    func run() async throws {
        try await CLIContext.run(global) { _ in
            let runtime = try RunAnywhere.runtime()
            let audio = try await runtime.decodeAudio(contentsOf: URL(fileURLWithPath: file))
            let events = try await runtime.transcribeStream(
                audio, model: model,
                options: STTOptions(
                    language: language ?? "en", detectLanguage: translate && language == nil, threads: threads,
                    translateToEnglish: translate),
                loadOptions: ModelLoadOptions(threads: threads))
            // The text is written segment by segment as it is heard, as whisper.cpp's own CLI does.
            var written = false
            for try await event in events {
                switch event {
                case .segment(let segment) where !json:
                    let text = written ? segment.text : String(segment.text.drop(while: \.isWhitespace))
                    written = written || !text.isEmpty
                    Terminal.write(text)
                case .segment: break
                case .completed(let output):
                    if json { return try JSONOutput.print(output) }
                    Terminal.write("\n")
                }
            }
        }
    }
}
