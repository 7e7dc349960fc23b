import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere speak TEXT --output FILE.wav`: text to speech.
struct SpeakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "speak", abstract: "Speak text into a WAV file.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The text; '-' reads it from standard input.") var text: String
    @Option(name: .long, help: "Voice id (see `models list`).") var voice: String = SDKConstants.Models.defaultVoiceID
    @Option(name: .long, help: "The WAV file to write.") var output: String
    @Option(name: .long, help: "Speaking rate, 0.25 to 4.") var rate: Float = 1
    @Option(name: .long, help: "Pitch, 0.5 to 2 (eSpeak NG voices).") var pitch: Float = 1
    @Option(name: .long, help: "Volume, 0 to 2.") var volume: Float = 1
    @Option(name: .long, help: "CPU threads.") var threads: Int?
    @Flag(name: .long, help: "Print the synthesis metadata as JSON.") var json = false

    struct Report: Encodable {
        let output: String
        let sampleRate: Int
        let duration: Double
        let metadata: TTSSynthesisMetadata
    }

    /// File name extensions of audio formats that are not WAV.
    static let otherAudioFormats: Set<String> = ["mp3", "ogg", "oga", "opus", "flac", "aac", "m4a", "webm", "pcm"]

    func run() async throws {
        try await CLIContext.run(global) { _ in
            // The speech is WAV: a name another format's readers claim would hold it under false colours.
            let named = URL(fileURLWithPath: output).pathExtension.lowercased()
            if Self.otherAudioFormats.contains(named) {
                throw SDKError(.invalidInput, "speak writes WAV audio: name the output file .wav, not .\(named)")
            }
            try OutputFile.check(output)  // before the voice loads and speaks
            let words = text == "-" ? try StandardInput.text() : text
            let runtime = try RunAnywhere.runtime()
            try await runtime.loadTTSModel(voice, options: ModelLoadOptions(threads: threads))
            let speech = try await runtime.synthesize(
                words, options: TTSOptions(rate: rate, pitch: pitch, volume: volume, audioFormat: .wav))
            try OutputFile.write(speech.audioData, to: output)
            if json {
                return try JSONOutput.print(
                    Report(output: output, sampleRate: speech.sampleRate, duration: speech.duration, metadata: speech.metadata))
            }
            Terminal.write(
                String(
                    format: "Wrote %@: %.1f s of speech at %d Hz in %.2f s\n", output, speech.duration, speech.sampleRate,
                    speech.metadata.processingTime))
        }
    }
}
