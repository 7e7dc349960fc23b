import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere conversations …`: the saved chats.
struct ConversationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conversations", abstract: "List, show, search, rename, export and delete saved conversations.",
        subcommands: [List.self, Show.self, Rename.self, Remove.self, Export.self], defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List conversations, newest first.")
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "Only conversations whose title or messages contain this text.") var search: String?
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { context in
                let listing = context.conversations.list()
                listing.movedAside.forEach { Terminal.standardError("warning: an unreadable conversation file was moved to \($0)") }
                let conversations = search.map { text in listing.conversations.filter { $0.contains(text) } } ?? listing.conversations
                if json { return try JSONOutput.print(conversations) }
                guard !conversations.isEmpty else { return Terminal.write("No conversations.\n") }
                let rows = conversations.map { conversation in
                    [
                        String(conversation.id.prefix(8)), conversation.updatedAt.formatted(date: .abbreviated, time: .shortened),
                        "\(conversation.messages.count)", conversation.modelName ?? "-", conversation.title,
                    ]
                }
                Terminal.write(Terminal.table(["ID", "UPDATED", "MESSAGES", "MODEL", "TITLE"], rows))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show a conversation's messages with their analytics.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Conversation id or a unique prefix of one.") var id: String
        @Flag(name: .long, help: "Print the conversation as JSON.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { context in
                let conversation = try context.conversations.load(id: id)
                if json { return try JSONOutput.print(conversation) }
                var text = AnalyticsText.conversation(conversation) + "\n"
                for message in conversation.messages {
                    text +=
                        Terminal.bold(message.role.rawValue) + " "
                        + Terminal.dim(message.timestamp.formatted(date: .omitted, time: .standard)) + "\n"
                    if let thinking = message.thinkingContent { text += Terminal.dim(thinking) + "\n" }
                    text += message.content + "\n"
                    if let analytics = message.analytics {
                        text += Terminal.dim(AnalyticsText.footer(message)) + "\n" + Terminal.dim(AnalyticsText.message(analytics))
                    }
                    text += "\n"
                }
                Terminal.write(text)
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Give a conversation a new title.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Conversation id or a unique prefix of one.") var id: String
        @Argument(help: "The new title.") var title: String

        func run() async throws {
            try await CLIContext.run(global) { context in
                let conversation = try context.conversations.rename(id: id, to: title)
                Terminal.write("Renamed \(conversation.id) to \"\(conversation.title)\"\n")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a conversation.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Conversation id or a unique prefix of one.") var id: String

        func run() async throws {
            try await CLIContext.run(global) { context in
                let full = try context.conversations.resolve(id)
                try context.conversations.delete(id: full)
                Terminal.write("Deleted \(full)\n")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        enum Format: String, ExpressibleByArgument, CaseIterable { case md, json }

        static let configuration = CommandConfiguration(commandName: "export", abstract: "Export a conversation as Markdown or JSON.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Conversation id or a unique prefix of one.") var id: String
        @Option(name: .long, help: "md or json.") var format: Format = .md
        @Option(name: .long, help: "Write to this file instead of standard output.") var output: String?

        func run() async throws {
            try await CLIContext.run(global) { context in
                let conversation = try context.conversations.load(id: id)
                let text =
                    switch format {
                    case .md: conversation.markdown
                    case .json: String(decoding: try JSONEncoder.runAnywhere.encode(conversation), as: UTF8.self) + "\n"
                    }
                guard let output else { return Terminal.write(text) }
                try OutputFile.write(Data(text.utf8), to: output)
                Terminal.write("Wrote \(output)\n")
            }
        }
    }
}
