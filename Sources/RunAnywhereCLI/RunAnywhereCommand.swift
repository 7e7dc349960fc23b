import ArgumentParser

/// `runanywhere`: the RunAnywhere SDK's command-line front end.
@main
struct RunAnywhereCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runanywhere",
        abstract: "On-device AI on Linux: local LLM generation and chat through llama.cpp, with conversation analytics.",
        version: "0.1.0",
        subcommands: [
            InfoCommand.self, ModelsCommand.self, GenerateCommand.self, ChatCommand.self, ConversationsCommand.self,
            SettingsCommand.self, EnvCommand.self, BenchCommand.self, TranscribeCommand.self, SpeakCommand.self, VoiceCommand.self,
            DescribeCommand.self, ImagineCommand.self, ServeCommand.self, BenchRunnerCommand.self, TelemetryCommand.self, ProbeModelCommand.self,
        ]
    )
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .long, help: "Log SDK and engine diagnostics to standard error.")
    var verbose = false
}
