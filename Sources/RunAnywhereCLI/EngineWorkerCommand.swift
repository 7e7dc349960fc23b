import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereEspeak
import RunAnywhereLlamaCpp
import RunAnywhereSherpaOnnx
import RunAnywhereStableDiffusion
import RunAnywhereWhisperCpp

/// `runanywhere engine-worker --model ID`: one loaded model's engine, in a process of its own,
/// for `runanywhere serve` (``EngineProcesses``). The server starts one per model it loads and
/// talks to it over its standard input and output; `--model` names the model so that `ps` tells
/// an operator which process holds which model.
struct EngineWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine-worker", abstract: "Run one model's engine for runanywhere serve, which starts one per loaded model.",
        shouldDisplay: false
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "The model this worker holds (the server sends the model itself; the name is for ps).")
    var model: String

    /// The worker program and arguments for this binary: the server's configuration.
    static func processes(verbose: Bool) -> EngineProcesses {
        EngineProcesses(
            executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            arguments: ["engine-worker"] + (verbose ? ["--verbose"] : [])
        )
    }

    func run() async throws {
        ServeCommand.limitMallocArenas()
        let logger = CLIContext.makeLogger(global)
        let frameworks = FrameworkAdapterRegistry()
        frameworks.register(LlamaCppAdapter(logger: logger))
        frameworks.register(WhisperCppAdapter(logger: logger))
        frameworks.register(SherpaOnnxAdapter(phonemizer: EspeakPhonemizer()))
        frameworks.register(EspeakAdapter())
        frameworks.register(StableDiffusionAdapter(logger: logger))
        let status = await EngineWorker.serve(frameworks: frameworks, logger: logger)
        if status != 0 { throw ExitCode(status) }
    }
}
