import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere transcribe FILE.wav`: speech to text.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe", abstract: "Transcribe a WAV file (any common sample rate and channel count)."
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The WAV file.") var file: String
    @Option(name: .long, help: "Speech recognition model id.") var model: String = SDKConstants.Models.defaultSpeechRecognitionModelID
    @Option(name: .long, help: "Spoken language (ISO 639-1); multilingual models only.") var language = "en"
    @Option(name: .long, help: "CPU threads.") var threads: Int?
    @Flag(name: .long, help: "Print the transcription with its segments and timings as JSON.") var json = false

    func run() async throws {
        try await CLIContext.run(global) { _ in
            let audio = try AudioSamples(wavFile: URL(fileURLWithPath: file))
            let runtime = try RunAnywhere.runtime()
            try await runtime.loadSTTModel(model, options: ModelLoadOptions(threads: threads))
            let output = try await runtime.transcribe(audio, options: STTOptions(language: language, threads: threads))
            if json { return try JSONOutput.print(output) }
            Terminal.write(output.text + "\n")
        }
    }
}
