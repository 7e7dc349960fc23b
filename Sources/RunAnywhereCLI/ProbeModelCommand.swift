import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp

/// `runanywhere probe-model --framework LlamaCpp FILE`: loads a model file and generates one
/// token, in a process of its own. The runtime runs it before it loads a new file itself
/// (``ModelProbe``), so that a file that crashes the engine ends this process, not the caller.
struct ProbeModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe-model", abstract: "Load a model file once and generate a token (the check run before a new file is loaded).",
        shouldDisplay: false
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "The engine to load the file with (only LlamaCpp: language models).")
    var framework: String

    @Argument(help: "The model file.")
    var file: String

    func run() async throws {
        let logger = CLIContext.makeLogger(global)
        try await CLIContext.reportingErrors {
            guard InferenceFramework(rawValue: framework) == .llamaCpp else {
                throw SDKError(.invalidInput, "probe-model checks language models (--framework LlamaCpp), not '\(framework)'")
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-probe-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let runtime = RunAnywhereRuntime(configuration: RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data"), logger: logger
            ))
            runtime.frameworks.register(LlamaCppAdapter(logger: logger))
            let url = URL(fileURLWithPath: file).standardizedFileURL
            try runtime.registerModel(id: "probe", name: url.lastPathComponent, url: url, framework: .llamaCpp)
            try await runtime.loadModel("probe", options: ModelLoadOptions(contextLength: 256, threads: 1))
            _ = try await runtime.generate("Hello", options: LLMGenerationOptions(maxTokens: 1, temperature: 0, threads: 1, applyChatTemplate: false))
            await runtime.unloadModel()
        }
    }
}
