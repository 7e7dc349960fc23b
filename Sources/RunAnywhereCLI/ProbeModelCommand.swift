import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereEspeak
import RunAnywhereLlamaCpp
import RunAnywhereSherpaOnnx
import RunAnywhereStableDiffusion
import RunAnywhereWhisperCpp

/// `runanywhere probe-model --framework LlamaCpp|WhisperCpp|StableDiffusionCpp|ONNX FILE`: loads a
/// model file and uses it once (one token of a language model; two texts through an embedding
/// model; a query and a document through a reranker; half a second of silence through a speech model; one 64×64 step of a diffusion model; a
/// word in a Piper voice), in a process of its own. The runtime runs it before it loads a new file
/// itself (``ModelProbe``), so that a file that crashes the engine ends this process, not the caller.
struct ProbeModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe-model", abstract: "Load a model file once and use it (the check run before a new file is loaded).",
        shouldDisplay: false
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        help:
            "The engine to load the file with: LlamaCpp (language models), WhisperCpp (speech recognition), StableDiffusionCpp (image generation) or ONNX (Piper voices)."
    )
    var framework: String

    @Argument(help: "The model file.")
    var file: String

    /// The pooling type the GGUF at `url` names (`{arch}.pooling_type`), nil for none: an
    /// embedding model is checked by embedding two texts, a reranker (rank pooling, 4) by scoring
    /// a pair, instead of generating a token.
    static func pooling(_ url: URL) throws -> Int? {
        let metadata = try GGUFReader.read(url)
        return metadata.architecture.flatMap { metadata.values["\($0).pooling_type"]?.intValue }
    }

    func run() async throws {
        let logger = CLIContext.makeLogger(global)
        try await CLIContext.reportingErrors {
            let engine = InferenceFramework(rawValue: framework)
            guard let engine, [.llamaCpp, .whisperCpp, .stableDiffusionCpp, .onnx].contains(engine) else {
                throw SDKError(
                    .invalidInput,
                    "probe-model checks language, speech, image and voice models (--framework LlamaCpp, WhisperCpp, StableDiffusionCpp or ONNX), not '\(framework)'"
                )
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-probe-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let runtime = RunAnywhereRuntime(
                configuration: RuntimeConfiguration(
                    modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data"),
                    logger: logger
                ))
            let url = URL(fileURLWithPath: file).standardizedFileURL
            switch engine {
            case .stableDiffusionCpp:
                runtime.frameworks.register(StableDiffusionAdapter(logger: logger))
                try await runtime.loadDiffusionModel(modelPath: url.path, modelId: "probe", modelName: url.lastPathComponent)
                _ = try await runtime.generateImage(
                    prompt: "a", options: DiffusionGenerationOptions(width: 64, height: 64, steps: 1, seed: 1))
                await runtime.unloadDiffusionModel()
            case .onnx:
                runtime.frameworks.register(SherpaOnnxAdapter(phonemizer: EspeakPhonemizer()))
                try runtime.registerModel(id: "probe", name: url.lastPathComponent, url: url, framework: .onnx, modality: .speechSynthesis)
                _ = try await runtime.synthesize("Hello.", voiceModel: "probe")
                await runtime.unloadTTSVoice()
            case .whisperCpp:
                runtime.frameworks.register(WhisperCppAdapter(logger: logger))
                try runtime.registerModel(
                    id: "probe", name: url.lastPathComponent, url: url, framework: .whisperCpp, modality: .speechRecognition)
                try await runtime.loadSTTModel("probe", options: ModelLoadOptions(threads: 1))
                _ = try await runtime.transcribe(try AudioSamples(samples: [Float](repeating: 0, count: 8_000), sampleRate: 16_000))
                await runtime.unloadSTTModel()
            default:
                runtime.frameworks.register(LlamaCppAdapter(logger: logger))
                let loadOptions = ModelLoadOptions(contextLength: 256, threads: 1)
                let pooling = try Self.pooling(url)
                if pooling == 4 {
                    try runtime.registerModel(
                        id: "probe", name: url.lastPathComponent, url: url, framework: .llamaCpp, modality: .reranking)
                    _ = try await runtime.rerank(
                        query: "Hello", documents: ["world"], model: "probe", options: RerankOptions(threads: 1), loadOptions: loadOptions)
                    await runtime.unloadModel(id: "probe")
                } else if pooling != nil {
                    try runtime.registerModel(
                        id: "probe", name: url.lastPathComponent, url: url, framework: .llamaCpp, modality: .embedding)
                    _ = try await runtime.embed(
                        ["Hello", "world"], model: "probe", options: EmbeddingOptions(threads: 1), loadOptions: loadOptions)
                    await runtime.unloadModel(id: "probe")
                } else {
                    try runtime.registerModel(id: "probe", name: url.lastPathComponent, url: url, framework: .llamaCpp)
                    try await runtime.loadModel("probe", options: loadOptions)
                    _ = try await runtime.generate(
                        "Hello", options: LLMGenerationOptions(maxTokens: 1, temperature: 0, threads: 1, applyChatTemplate: false))
                    await runtime.unloadModel()
                }
            }
        }
    }
}
