import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere chat`: an interactive, streaming conversation, saved after every message.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat", abstract: "Chat with a model interactively.",
        discussion: """
            Commands: /stats shows the conversation's analytics, /analytics the last answer's, /retry answers \
            again, /reset starts a new conversation, /exit quits. Ctrl-C stops an answer; at the prompt it quits. \
            With --collection, each message is answered from that document collection (`rag ingest`): the \
            answer is followed by its numbered sources, and saved with them. With --mcp or --mcp-config, the \
            model may call the tools of those MCP servers in its answers; each call is shown, and saved with \
            the answer.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var flags: GenerationFlags
    @Option(name: .long, help: "Continue this saved conversation (an id or a unique prefix of one).") var conversation: String?
    @Option(name: .long, help: "Answer each message from this document collection, with numbered sources.") var collection: String?
    @Option(name: .long, help: "With --collection: passages retrieved (1 to \(RAGQueryOptions.maxTopK)).") var passages = RAGQueryOptions
        .defaultTopK
    @Option(name: .long, help: "With --collection: a reranker id, or none (default: the first downloaded reranker, if any).") var reranker:
        String?
    @Option(name: .customLong("rag-database"), help: RAGDatabaseOption.help) var ragDatabase: String?
    @OptionGroup(title: "Tools") var mcp: MCPFlags

    func run() async throws {
        try await CLIContext.run(global, engineProcesses: !flags.rpcWorkers.isEmpty) { context in
            try flags.checkSampling()
            let runtime = try RunAnywhere.runtime()
            let model = try runtime.model(id: flags.model ?? RunAnywhere.defaultModelID)
            let settings = context.settings()
            let saved = try conversation.map { try context.conversations.load(id: $0) }
            let reranking = try reranker.map(RAGReranker.init(parsing:)) ?? .automatic
            func start(_ documents: Documents?, tools: ChatTools?) async throws {
                Terminal.write(Terminal.dim("Loading \(model.name)...") + "\n")
                try await RunAnywhere.loadModel(model.id, options: flags.loadOptions(settings, savedPrompts: context.savedPrompts))
                let chat = ChatService(runtime: runtime, store: context.conversations, settings: settings, conversation: saved)
                await chat.update(tools: tools)
                await converse(chat, model: model, documents: documents, settings: settings, saved: saved)
            }
            // The servers start first, and the collection is read: either failing fails before the model loads.
            func withDocuments(tools: ChatTools?) async throws {
                guard let collection else { return try await start(nil, tools: tools) }
                try await RAGDatabaseOption.withSession(ragDatabase) { session in
                    _ = try await session.listDocuments(collection: collection)
                    try await start(Documents(name: collection, session: session, reranker: reranking), tools: tools)
                }
            }
            guard !mcp.isEmpty else { return try await withDocuments(tools: nil) }
            try await mcp.withTools(logger: context.logger) { toolbox, tools, choice in
                try await withDocuments(
                    tools: ChatTools(tools, toolChoice: choice, maxRounds: mcp.maxToolRounds, execute: MCPFlags.showingCalls(toolbox)))
            }
        }
    }

    /// The collection a chat answers from, the session over it and how its passages are reranked.
    private struct Documents {
        let name: String
        let session: RAGSession
        let reranker: RAGReranker
    }

    /// Reads messages and commands until `/exit` or the end of the input, answering each.
    private func converse(_ chat: ChatService, model: ModelInfo, documents: Documents?, settings: GenerationSettings, saved: Conversation?)
        async
    {
        Terminal.write(Terminal.bold("RunAnywhere chat") + " with \(model.name) (\(model.framework.displayName))\n")
        Terminal.write(Terminal.dim("/stats, /analytics, /retry, /reset, /exit; Ctrl-C stops an answer.") + "\n\n")
        if let saved { Terminal.write(AnalyticsText.recap(saved)) }
        while true {
            Terminal.write(Terminal.bold("> "))
            guard let line = readLine() else {
                Terminal.write("\n")
                return
            }
            let input = line.trimmingCharacters(in: .whitespacesAndNewlines)
            let reply: ChatReply
            switch input {
            case "": continue
            case "/exit", "/quit": return
            case "/reset":
                await chat.reset()
                Terminal.write(Terminal.dim("Started a new conversation.") + "\n\n")
                continue
            case "/stats":
                Terminal.write(AnalyticsText.conversation(await chat.conversation) + "\n")
                continue
            case "/analytics":
                let last = await chat.conversation.messages.last { $0.analytics != nil }
                Terminal.write((last?.analytics.map(AnalyticsText.message) ?? "No answers yet.\n") + "\n")
                continue
            case "/retry":
                guard let started = await handle({ try await chat.retryLastAnswer(options: flags.options(settings, model: model)) }) else {
                    continue
                }
                reply = started
            case let command where command.hasPrefix("/"):
                Terminal.write("Unknown command \(command); use /stats, /analytics, /retry, /reset or /exit.\n\n")
                continue
            default:
                guard
                    let started = await handle({
                        // From documents: the passages for this message, which the answer reads and keeps.
                        var grounding: ChatGrounding?
                        if let documents {
                            grounding = ChatGrounding(
                                collection: documents.name,
                                sources: try await documents.session.retrieve(
                                    input, collection: documents.name, topK: passages, threads: flags.threads ?? settings.threads,
                                    reranker: documents.reranker
                                ))
                        }
                        return try await chat.send(input, grounding: grounding, options: flags.options(settings, model: model))
                    })
                else { continue }
                reply = started
            }
            let message = await show(reply)
            if let grounding = message.grounding { Terminal.write(RAGCommand.Query.sourcesText(grounding.sources)) }
            Terminal.write(Terminal.dim(AnalyticsText.footer(message)) + "\n\n")
        }
    }

    /// Starts an answer; an SDK error is reported and nil returned, so the chat goes on.
    private func handle(_ start: () async throws -> ChatReply) async -> ChatReply? {
        do {
            return try await start()
        } catch {
            Terminal.write(Terminal.red("error: \((error as? SDKError)?.message ?? "\(error)")") + "\n\n")
            return nil
        }
    }

    /// Streams an answer to the terminal; Ctrl-C stops it.
    private func show(_ reply: ChatReply) async -> ChatMessage {
        await Interrupts.shared.whileRunning(onInterrupt: { reply.message.cancel() }) {
            var printer = StreamPrinter()
            do {
                for try await event in reply.events { printer.print(event) }
            } catch {}
            printer.finish()
            return await reply.message.value
        }
    }
}
