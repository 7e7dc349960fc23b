import ArgumentParser
import RunAnywhere

/// `runanywhere settings …`: generation defaults, applied to every generation that does not override them.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Show, change or reset the generation defaults.",
        discussion:
            "Keys: \(GenerationSettings.keys.joined(separator: ", ")). `settings set systemPrompt \"\"`, `settings set threads auto`, `settings set speculate auto` and `settings set draftModel \"\"` clear those.",
        subcommands: [Show.self, Set.self, Reset.self], defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the settings.")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print one JSON object.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { context in
                let settings = context.settings()
                if json { return try JSONOutput.print(settings) }
                Terminal.write(SettingsCommand.describe(settings))
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Change one setting.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The setting: \(GenerationSettings.keys.joined(separator: ", ")).") var key: String
        // Taken however it starts, so that a negative number is a value, not an unknown option.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Its new value.", valueName: "value")) var values: [String] = []

        func validate() throws {
            guard values.count == 1 else {
                throw ValidationError(values.isEmpty ? "Missing expected argument '<value>'" : "one value only; quote a value with spaces")
            }
        }

        func run() async throws {
            let value = values[0]
            try await CLIContext.run(global) { context in
                _ = context.settings()  // reports (and moves aside) unreadable settings
                let runtime = try RunAnywhere.runtime()
                let settings = try context.settingsStore.update { settings in
                    try settings.set(key, to: value)
                    if key == "draftModel" { try settings.checkDraftModel { try runtime.model(id: $0) } }
                }
                Terminal.write(SettingsCommand.describe(settings))
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Go back to the defaults.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await CLIContext.run(global) { context in
                try context.settingsStore.reset()
                Terminal.write(SettingsCommand.describe(GenerationSettings()))
            }
        }
    }

    static func describe(_ settings: GenerationSettings) -> String {
        let lines: [(String, String)] = [
            ("temperature", "\(settings.temperature)"), ("maxTokens", "\(settings.maxTokens)"), ("topP", "\(settings.topP)"),
            ("topK", "\(settings.topK)"), ("systemPrompt", settings.systemPrompt.map { "\"\($0)\"" } ?? "(none)"),
            ("streaming", settings.streaming ? "on" : "off"), ("threads", settings.threads.map(String.init) ?? "auto"),
            ("speculate", settings.speculate.map(String.init) ?? "auto"), ("draftModel", settings.draftModel ?? "(none)"),
        ]
        return lines.map { "\($0.0.padding(toLength: 13, withPad: " ", startingAt: 0)) \($0.1)" }.joined(separator: "\n") + "\n"
    }
}
