import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere generate`: one answer to one prompt, streamed.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate", abstract: "Generate an answer to a prompt, streaming it as it is written.",
        discussion: "Ctrl-C stops the generation and keeps what was written. Exit status: 0 done, 1 error, 130 interrupted."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var flags: GenerationFlags
    @Flag(name: .long, help: "Print one JSON object with the text and its measurements instead of streaming.") var json = false
    @Flag(name: .long, help: "Feed the prompt to the model verbatim, without the chat template.") var raw = false
    @Option(name: .long, help: "Stop before this text (repeatable).") var stop: [String] = []
    @Option(name: .customLong("json-schema"), help: "Answer with JSON this JSON Schema file accepts (constrained sampling: valid by construction).")
    var jsonSchema: String?
    @Option(name: .long, help: "Answer with text this GBNF grammar file (root rule `root`) produces.") var grammar: String?
    @Flag(name: .customLong("json-object"), help: "Answer with any JSON object.") var jsonObject = false
    @Argument(help: "The prompt; '-' reads it from standard input.") var prompt: String

    func validate() throws {
        guard [jsonSchema != nil, grammar != nil, jsonObject].filter(\.self).count <= 1 else {
            throw ValidationError("--json-schema, --grammar and --json-object exclude each other")
        }
    }

    /// The output constraint the flags ask for, read from its file and checked.
    func structuredOutput() throws -> StructuredOutputConfig? {
        func read(_ path: String) throws -> Data {
            do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw SDKError(.fileNotFound, "Cannot read \(path): \(error.localizedDescription)")
            }
        }
        if let jsonSchema {
            let schema: JSONValue
            do { schema = try JSONValue(parsing: read(jsonSchema)) } catch let error as SDKError where error.code == .invalidInput {
                throw SDKError(.invalidInput, "\(jsonSchema): \(error.message)")
            }
            let config = StructuredOutputConfig.schema(schema)
            _ = try config.grammar()  // an unsupported schema fails before the model loads
            return config
        }
        if let grammar { return .grammar(String(decoding: try read(grammar), as: UTF8.self)) }
        return jsonObject ? .jsonObject : nil
    }

    func run() async throws {
        try await CLIContext.run(global) { context in
            let text = prompt == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : prompt
            let settings = context.settings()
            var options = flags.options(settings, stopSequences: stop, applyChatTemplate: !raw)
            options.structuredOutput = try structuredOutput()
            try await RunAnywhere.loadModel(flags.model ?? RunAnywhere.defaultModelID, options: flags.loadOptions(settings))
            let streaming = try await RunAnywhere.generateStream(text, options: options)
            let result = try await StreamPrinter.run(streaming.stream, result: streaming.result, printing: !json)
            if json {
                try JSONOutput.print(result)
            } else {
                context.logger.info("\(StreamPrinter.footer(result)) • \(result.inputTokens) prompt tokens • stop: \(result.stopReason.rawValue)")
            }
            if result.stopReason == .cancelled { throw ExitCode(130) }
        }
    }
}

/// Prints streamed text: thinking dimmed on a terminal (left out when piped), the answer as is.
struct StreamPrinter {
    private var parser = ThinkingParser()
    private var wroteThinking = false

    /// Waits for `result`, printing `stream` as it arrives when `printing`; Ctrl-C cancels it.
    static func run<Result: Sendable>(
        _ stream: AsyncThrowingStream<String, any Error>, result: Task<Result, any Error>, printing: Bool
    ) async throws -> Result {
        try await Interrupts.shared.whileRunning(onInterrupt: { result.cancel() }) {
            if printing {
                var printer = StreamPrinter()
                for try await piece in stream { printer.print(piece) }
                printer.finish()
            }
            return try await result.value
        }
    }

    mutating func print(_ piece: String) {
        write(parser.feed(piece))
    }

    /// Prints what is held back and ends the line.
    mutating func finish() {
        write(parser.finish())
        Terminal.write("\n")
    }

    private mutating func write(_ chunks: [ThinkingChunk]) {
        for chunk in chunks {
            switch chunk {
            case .thinking(let text) where Terminal.isInteractive:
                wroteThinking = true
                Terminal.write(Terminal.dim(text))
            case .thinking:
                break
            case .response(let text):
                Terminal.write(wroteThinking ? String(text.drop { $0.isNewline }) : text)
                wroteThinking = false
            }
        }
    }

    /// The spec's message footer: "1.2s • 45 tok/s".
    static func footer(_ result: LLMGenerationResult) -> String {
        String(format: "%.1fs • %d tok/s", result.latencyMs / 1000, Int(result.tokensPerSecond.rounded()))
    }
}
