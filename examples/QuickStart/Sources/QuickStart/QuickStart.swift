import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereWhisperCpp

/// Loads the default language model, streams its answer to a prompt, and transcribes an audio
/// file with the default speech-to-text model:
///
///     quickstart [--max-tokens N] [--threads N] [--transcribe FILE.wav] [PROMPT]
@main
struct QuickStart {
    static func main() async {
        do {
            try await run(try Arguments(Array(CommandLine.arguments.dropFirst())))
        } catch let error as SDKError {
            // An engine that is not installed says so here, with the command that installs it.
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            exit(1)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ arguments: Arguments) async throws {
        // Initialize the SDK (development: no network), then register the engines the app uses.
        try RunAnywhere.initialize()
        try RunAnywhere.registerFrameworkAdapter(LlamaCppAdapter())
        try RunAnywhere.registerFrameworkAdapter(WhisperCppAdapter())

        // Text generation: load the default model and stream the answer as it is generated.
        var load = ModelLoadOptions()
        load.threads = arguments.threads
        try await RunAnywhere.loadModel(RunAnywhere.defaultModelID, options: load)
        var options = LLMGenerationOptions()
        options.maxTokens = arguments.maxTokens
        let generation = try await RunAnywhere.generateStream(arguments.prompt, options: options)
        for try await piece in generation.stream {
            write(piece)
        }
        let result = try await generation.result.value
        write("\n[\(result.modelUsed): \(result.tokensUsed) tokens, \(String(format: "%.1f", result.tokensPerSecond)) tokens/s]\n")

        // Speech to text: load Whisper and transcribe the file (WAV; other formats need an
        // audio decoder such as RunAnywhereFFmpeg's).
        if let file = arguments.transcribe {
            try await RunAnywhere.loadSTTModel(SDKConstants.Models.defaultSpeechRecognitionModelID)
            let transcript = try await RunAnywhere.transcribe(try Data(contentsOf: URL(fileURLWithPath: file)))
            write("transcript: \(transcript.trimmingCharacters(in: .whitespacesAndNewlines))\n")
        }
    }

    /// Writes `text` to standard output at once (unbuffered, so each piece shows as it comes).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

/// The command line: options, then the prompt (the rest of the words).
struct Arguments {
    var maxTokens = 64
    var threads: Int?
    var transcribe: String?
    var prompt = "Say hello in one short sentence."

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    init(_ words: [String]) throws {
        var rest = words[...]
        var prompt: [String] = []
        while let word = rest.popFirst() {
            switch word {
            case "--max-tokens": maxTokens = try Self.number(word, rest.popFirst())
            case "--threads": threads = try Self.number(word, rest.popFirst())
            case "--transcribe":
                guard let file = rest.popFirst() else { throw Invalid(description: "--transcribe needs a file") }
                transcribe = file
            default: prompt.append(word)
            }
        }
        if !prompt.isEmpty { self.prompt = prompt.joined(separator: " ") }
    }

    static func number(_ option: String, _ value: String?) throws -> Int {
        guard let value, let number = Int(value), number > 0 else { throw Invalid(description: "\(option) needs a positive number") }
        return number
    }
}
