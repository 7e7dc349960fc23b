import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// 1 thread, a 1024-token context and flash attention off: small, repeatable runs.
let testLoadOptions = ModelLoadOptions(contextLength: 1024, threads: 1, flashAttention: .disabled)

/// Greedy options for a few tokens.
func greedy(_ maxTokens: Int, raw: Bool = false, stop: [String] = []) -> LLMGenerationOptions {
    LLMGenerationOptions(maxTokens: maxTokens, temperature: 0, stopSequences: stop, threads: 1, applyChatTemplate: !raw)
}

/// A runtime over the installed models with llama.cpp registered and, unless told otherwise,
/// the default model loaded. Its app data goes to a temporary folder.
func makeRuntime(load: Bool = true, options: ModelLoadOptions = testLoadOptions, models: URL = TestEnvironment.installedModelsDirectory) async throws -> RunAnywhereRuntime {
    let runtime = RunAnywhereRuntime(configuration: RuntimeConfiguration(
        modelsDirectory: models, dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-data-\(UUID())")
    ))
    runtime.frameworks.register(LlamaCppAdapter())
    if load { try await runtime.loadModel(RunAnywhere.defaultModelID, options: options) }
    return runtime
}

/// One runtime with the default model loaded, shared by the tests that only generate.
enum SharedModel {
    static let runtime = Task { try await makeRuntime() }
}

/// Every test that runs the model, one at a time: two model runs at once on 2 cores would
/// distort each other.
@Suite(.serialized, .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup"))
struct LlamaTests {}
