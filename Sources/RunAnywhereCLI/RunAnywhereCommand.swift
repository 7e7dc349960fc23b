import ArgumentParser
import Foundation

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

    /// Runs the command the arguments name, as ArgumentParser's own `main` does, with two checks
    /// around it: an argument that is not UTF-8 is refused before anything runs (Swift would
    /// read it with U+FFFD in place of its bad bytes, so a file name would name another file),
    /// and a command that succeeded but whose output could not all be written (a full disk, a
    /// closed descriptor) fails, so that `runanywhere conversations export ID > backup && …`
    /// stops there.
    static func main() async {
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else { continue }
            Terminal.standardError(
                "error: argument \(index) (\(String(cString: argument))) is not UTF-8: RunAnywhere reads file names and text "
                    + "as UTF-8; rename the file or convert the text")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
        if let failure = Terminal.outputFailure() {
            // A reader that stopped reading (`| head`) ends the command as SIGPIPE would, quietly.
            guard failure != EPIPE else { Foundation.exit(128 + SIGPIPE) }
            Terminal.standardError("error: the output could not all be written: \(String(cString: strerror(failure)))")
            Foundation.exit(74)  // EX_IOERR
        }
    }
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .long, help: "Log SDK and engine diagnostics to standard error.")
    var verbose = false
}
