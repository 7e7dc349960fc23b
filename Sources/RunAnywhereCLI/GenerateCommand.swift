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
    @OptionGroup(title: "Tools") var mcp: MCPFlags
    @Flag(name: .long, help: "Print one JSON object with the text and its measurements instead of streaming.") var json = false
    @Flag(name: .long, help: "Feed the prompt to the model verbatim, without the chat template.") var raw = false
    @Option(name: .long, help: "Stop before this text (repeatable).") var stop: [String] = []
    @Option(
        name: .customLong("json-schema"),
        help: "Answer with JSON this JSON Schema file accepts (constrained sampling: valid by construction).")
    var jsonSchema: String?
    @Option(name: .long, help: "Answer with text this GBNF grammar file (root rule `root`) produces.") var grammar: String?
    @Flag(name: .customLong("json-object"), help: "Answer with any JSON object.") var jsonObject = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --json: each answer token's log-probability and the N likeliest tokens at its place (0 to \(LLMGenerationOptions.maxTopLogprobs)), in `logprobs`.",
            valueName: "N"))
    var logprobs: Int?
    @Option(
        name: .customLong("prompt-logprobs"),
        help: ArgumentHelp(
            "With --json: the log-probability of each prompt token after the first, given those before it, with the N likeliest tokens at its place, in `promptLogprobs` (scores a text; with --raw, the text as given).",
            valueName: "N"))
    var promptLogprobs: Int?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Fill in the gap between the prompt and this text, as a code editor completes at its cursor (a model trained to fill in the middle, such as Qwen2.5-Coder; no chat template).",
            valueName: "text"))
    var suffix: String?
    @Argument(help: "The prompt; '-' reads it from standard input.") var prompt: String

    func validate() throws {
        guard [jsonSchema != nil, grammar != nil, jsonObject].filter(\.self).count <= 1 else {
            throw ValidationError("--json-schema, --grammar and --json-object exclude each other")
        }
        if logprobs != nil, !json { throw ValidationError("--logprobs needs --json, where they are printed") }
        if promptLogprobs != nil, !json { throw ValidationError("--prompt-logprobs needs --json, where they are printed") }
        if !mcp.isEmpty {
            let excluded = [
                ("--suffix", suffix != nil), ("--raw", raw), ("--json-schema", jsonSchema != nil), ("--grammar", grammar != nil),
                ("--json-object", jsonObject), ("--logprobs", logprobs != nil), ("--prompt-logprobs", promptLogprobs != nil),
            ]
            if let (flag, _) = excluded.first(where: \.1) { throw ValidationError("\(flag) cannot be used with MCP tools") }
        }
    }

    /// The output constraint the flags ask for, read from its file and checked.
    func structuredOutput() throws -> StructuredOutputConfig? {
        func read(_ path: String) throws -> Data { try fileContents(of: URL(fileURLWithPath: path), mapped: false) }
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
        try await CLIContext.run(global, engineProcesses: !flags.rpcWorkers.isEmpty) { context in
            try flags.checkSampling()
            let text = prompt == "-" ? try StandardInput.text() : prompt
            let settings = context.settings()
            let (model, loadOptions) = (
                flags.model ?? RunAnywhere.defaultModelID, flags.loadOptions(settings, savedPrompts: context.savedPrompts)
            )
            var options = flags.options(
                settings, model: try RunAnywhere.runtime().model(id: model), stopSequences: stop, applyChatTemplate: !raw)
            options.structuredOutput = try structuredOutput()
            options.logprobs = logprobs
            options.promptLogprobs = promptLogprobs
            guard mcp.isEmpty else {
                // The servers start first: one that cannot fails before the model loads.
                let result = try await mcp.withTools(logger: context.logger) { toolbox, tools, choice in
                    try await RunAnywhere.loadModel(model, options: loadOptions)
                    return try await answer(text, toolbox: toolbox, tools: tools, choice: choice, options: options)
                }
                if json { try JSONOutput.print(result) } else { Terminal.write(result.text + "\n") }
                if result.stopReason == .cancelled { throw ExitCode(130) }
                return
            }
            try await RunAnywhere.loadModel(model, options: loadOptions)
            let generation =
                if let suffix {
                    try await RunAnywhere.runtime().generateEvents(
                        infill: Infill(prefix: text, suffix: suffix), options: options, model: model, loadOptions: loadOptions)
                } else {
                    try await RunAnywhere.generateEvents(text, options: options)
                }
            let result = try await StreamPrinter.run(generation, printing: !json)
            if json {
                try JSONOutput.print(result)
            } else {
                let drafts = result.draftTokens.map { " • \(result.acceptedDraftTokens ?? 0) of \($0) guessed tokens kept" } ?? ""
                context.logger.info(
                    "\(StreamPrinter.footer(result)) • \(result.inputTokens) prompt tokens\(drafts) • stop: \(result.stopReason.rawValue)")
            }
            if result.stopReason == .cancelled { throw ExitCode(130) }
        }
    }
}

/// Prints a generation's events: the reasoning dimmed on a terminal (left out when piped), the
/// answer as is.
struct StreamPrinter {
    private var wroteThinking = false

    /// Reads `generation` to its end, printing it as it arrives when `printing`, and returns its
    /// result; Ctrl-C stops the generation (the result then says `.cancelled`).
    static func run(_ generation: GenerationEvents, printing: Bool) async throws -> LLMGenerationResult {
        try await Interrupts.shared.whileRunning(onInterrupt: { generation.cancel() }) {
            var printer = StreamPrinter()
            var result: LLMGenerationResult?
            for try await event in generation {
                if case .completed(let final) = event { result = final } else if printing { printer.print(event) }
            }
            if printing { printer.finish() }
            guard let result else { throw CancellationError() }
            return result
        }
    }

    mutating func print(_ event: GenerationEvent) {
        switch event {
        case .reasoning(let text) where Terminal.isInteractive:
            wroteThinking = true
            Terminal.write(Terminal.dim(text))
        case .text(let text):
            if wroteThinking {
                Terminal.write("\n\n")  // the answer below the reasoning
                wroteThinking = false
            }
            Terminal.write(text)
        case .reasoning, .toolCall, .completed, .logprobs, .promptLogprobs:
            break
        }
    }

    /// Ends the line.
    func finish() {
        Terminal.write("\n")
    }

    /// The spec's message footer: "1.2s • 45 tok/s".
    static func footer(_ result: LLMGenerationResult) -> String {
        String(format: "%.1fs • %d tok/s", result.latencyMs / 1000, Int(result.tokensPerSecond.rounded()))
    }
}
