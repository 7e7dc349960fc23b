import ArgumentParser

/// `runanywhere`: the RunAnywhere SDK's command-line front end.
@main
struct RunAnywhereCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runanywhere",
        abstract:
            "On-device AI on Linux: text generation and chat, speech to text, text to speech, voice, image description, image generation and text embeddings, on this machine's CPU (and GPU).",
        discussion: """
            Runs models locally through llama.cpp, whisper.cpp, sherpa-onnx, eSpeak NG and stable-diffusion.cpp: \
            manages and downloads them, saves conversations with their analytics, benchmarks every installed \
            model, and serves an OpenAI-compatible API with a web app (runanywhere serve).
            """,
        version: "0.1.0",
        subcommands: [
            InfoCommand.self, ModelsCommand.self, GenerateCommand.self, ChatCommand.self, TokenizeCommand.self, DetokenizeCommand.self,
            EmbedCommand.self, RerankCommand.self, RAGCommand.self, ConversationsCommand.self,
            SettingsCommand.self, EnvCommand.self, BenchCommand.self, TranscribeCommand.self, SpeakCommand.self, VoiceCommand.self,
            DescribeCommand.self, ImagineCommand.self, ServeCommand.self, KeysCommand.self, BenchRunnerCommand.self, TelemetryCommand.self,
            ProbeModelCommand.self, QuantizeModelCommand.self, EngineWorkerCommand.self, RPCWorkerCommand.self,
        ]
    )
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .long, help: "Log SDK and engine diagnostics to standard error.")
    var verbose = false
}
