import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere chat`: an interactive, streaming conversation, saved as it goes.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat", abstract: "Chat with a model interactively.",
        discussion: "Commands: /reset starts over, /stats shows the conversation's numbers, /exit quits. Ctrl-C stops an answer; at the prompt it quits."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var flags: GenerationFlags

    func run() async throws {
        try await CLIContext.run(global) { _ in
            let runtime = try RunAnywhere.runtime()
            let model = try runtime.model(id: flags.model)
            Terminal.write(Terminal.dim("Loading \(model.name)...") + "\n")
            try await RunAnywhere.loadModel(model.id, options: flags.loadOptions)
            let store = ConversationStore(dataDirectory: runtime.configuration.dataDirectory)
            var session = ChatSession(model: model, contextLength: await runtime.loadedContextLength ?? 0)
            Terminal.write(Terminal.bold("RunAnywhere chat") + " with \(model.name) (llama.cpp)\n")
            Terminal.write(Terminal.dim("/reset starts over, /stats shows numbers, /exit quits; Ctrl-C stops an answer.") + "\n\n")
            while true {
                Terminal.write(Terminal.bold("> "))
                guard let line = readLine() else {
                    Terminal.write("\n")
                    return
                }
                let input = line.trimmingCharacters(in: .whitespacesAndNewlines)
                switch input {
                case "": continue
                case "/exit", "/quit": return
                case "/reset":
                    session.reset()
                    Terminal.write(Terminal.dim("Started a new conversation.") + "\n\n")
                    continue
                case "/stats":
                    Terminal.write(session.statistics() + "\n")
                    continue
                case let command where command.hasPrefix("/"):
                    Terminal.write("Unknown command \(command); use /reset, /stats or /exit.\n\n")
                    continue
                default:
                    break
                }
                let result: LLMGenerationResult
                do {
                    result = try await answer(input, history: session.conversation.messages)
                } catch let error as SDKError {
                    Terminal.write(Terminal.red("error: \(error.message)") + "\n\n")
                    continue
                }
                let stopped = result.stopReason == .cancelled ? " • stopped" : ""
                Terminal.write(Terminal.dim(StreamPrinter.footer(result) + stopped) + "\n\n")
                session.record(user: input, result: result)
                do {
                    try store.save(session.conversation)
                } catch let error as SDKError {
                    Terminal.standardError("warning: \(error.message)")
                }
            }
        }
    }
}

extension ChatCommand {
    /// Streams one answer to the terminal; Ctrl-C stops it.
    func answer(_ input: String, history: [Message]) async throws -> LLMGenerationResult {
        let context = Context(systemPrompt: flags.system, messages: history)
        let streaming = try await RunAnywhere.generateStream(input, context: context, options: flags.options())
        let task = streaming.result
        return try await Interrupts.shared.whileRunning(onInterrupt: { task.cancel() }) {
            var printer = StreamPrinter()
            for try await piece in streaming.stream { printer.print(piece) }
            printer.finish()
            return try await task.value
        }
    }
}

/// The state of one chat: the conversation and its running numbers.
struct ChatSession {
    let model: ModelInfo
    let contextLength: Int
    private(set) var conversation: Conversation
    private var results: [LLMGenerationResult] = []

    init(model: ModelInfo, contextLength: Int) {
        self.model = model
        self.contextLength = contextLength
        self.conversation = Conversation(modelName: model.name, frameworkName: model.framework.displayName)
    }

    mutating func reset() {
        conversation = Conversation(modelName: model.name, frameworkName: model.framework.displayName)
        results = []
    }

    mutating func record(user: String, result: LLMGenerationResult) {
        conversation.append(Message(role: .user, content: user))
        var metadata = ["tokensUsed": String(result.tokensUsed), "stopReason": result.stopReason.rawValue]
        if let thinking = result.thinkingContent { metadata["thinking"] = thinking }
        conversation.append(Message(role: .assistant, content: result.text, metadata: metadata))
        results.append(result)
    }

    /// `/stats`: turns, tokens, speeds and how full the context is.
    func statistics() -> String {
        guard let last = results.last else { return "No answers yet.\n" }
        let generated = results.reduce(0) { $0 + $1.tokensUsed }
        let averageSpeed = results.map(\.tokensPerSecond).reduce(0, +) / Double(results.count)
        let ttfts = results.compactMap(\.timeToFirstTokenMs)
        let used = last.inputTokens + last.tokensUsed
        var text = "Conversation \(conversation.id) \"\(conversation.title)\"\n"
        text += "  answers:        \(results.count) (\(results.filter { $0.stopReason == .cancelled }.count) stopped)\n"
        text += "  tokens:         \(generated) generated, \(last.inputTokens) in the last prompt (\(last.cachedInputTokens) reused from cache)\n"
        text += String(format: "  speed:          %.1f tok/s average; last: prompt %.0f tok/s, decode %.1f tok/s\n", averageSpeed, last.promptTokensPerSecond, last.decodeTokensPerSecond)
        if !ttfts.isEmpty { text += String(format: "  first token:    %.0f ms average\n", ttfts.reduce(0, +) / Double(ttfts.count)) }
        if contextLength > 0 {
            text += String(format: "  context:        %d of %d tokens (%.0f%%)\n", used, contextLength, 100 * Double(used) / Double(contextLength))
        }
        return text
    }
}
