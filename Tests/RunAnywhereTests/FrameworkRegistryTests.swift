import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The registry's choice logic, exercised with adapters that describe themselves but load
/// nothing (loading is covered by the llama.cpp tests).
@Suite(.inProcessLane) struct FrameworkRegistryTests {
    struct DescribedAdapter: FrameworkAdapter {
        let framework: InferenceFramework
        let supportedModalities: Set<FrameworkModality> = [.textToText]
        let supportedFormats: [ModelFormat]
        let available: Bool
        let memory: Int64

        func availability() -> FrameworkAvailability { available ? .available(detail: nil) : .unavailable(reason: "library missing") }
        func estimateMemoryUsage(for model: ModelInfo) -> Int64 { memory }
        func loadLanguageModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any LLMService {
            throw SDKError(.frameworkNotAvailable, "described only")
        }
    }

    let gguf = ModelInfo(id: "m", name: "M", category: .language, format: .gguf, framework: .llamaCpp)

    @Test func statusesCoverEveryFrameworkWithReasons() {
        let registry = FrameworkAdapterRegistry()
        registry.register(DescribedAdapter(framework: .llamaCpp, supportedFormats: [.gguf], available: true, memory: 1))
        let statuses = registry.statuses()
        #expect(statuses.first { $0.framework == .llamaCpp }?.availability == .available(detail: nil))
        #expect(
            statuses.first { $0.framework == .coreml }?.availability
                == .unavailable(reason: "Core ML is only available on Apple platforms (iOS, macOS), not on Linux"))
        if case .unavailable(let reason)? = statuses.first(where: { $0.framework == .onnx })?.availability {
            #expect(reason.contains("no ONNX Runtime adapter"))
        } else {
            Issue.record("ONNX has no adapter yet")
        }
        #expect(!statuses.contains { $0.framework == .unknown })
        #expect(registry.frameworks(for: .textToText) == [.llamaCpp])
        #expect(registry.frameworkSupports(.onnx, modality: .textToVoice))
        #expect(!registry.frameworkSupports(.llamaCpp, modality: .textToVoice))
    }

    @Test func bestAdapterIsAvailableAndCapable() {
        let registry = FrameworkAdapterRegistry()
        #expect(registry.bestAdapter(for: gguf, availableMemory: 1 << 30) == nil)
        registry.register(DescribedAdapter(framework: .llamaCpp, supportedFormats: [.gguf], available: false, memory: 1))
        #expect(registry.bestAdapter(for: gguf, availableMemory: 1 << 30) == nil, "an unavailable engine is never chosen")
        registry.register(DescribedAdapter(framework: .onnx, supportedFormats: [.onnx], available: true, memory: 1))
        #expect(registry.bestAdapter(for: gguf, availableMemory: 1 << 30) == nil, "an engine that cannot read GGUF is never chosen")
        registry.register(DescribedAdapter(framework: .llamaCpp, supportedFormats: [.gguf], available: true, memory: 1))
        #expect(registry.bestAdapter(for: gguf, availableMemory: 1 << 30)?.framework == .llamaCpp)
        registry.register(DescribedAdapter(framework: .mlx, supportedFormats: [.gguf], available: true, memory: 1))
        #expect(registry.bestAdapter(for: gguf, availableMemory: 1 << 30)?.framework == .llamaCpp, "the model's own framework wins")
        #expect(registry.bestAdapter(for: gguf, preferred: .mlx, availableMemory: 1 << 30)?.framework == .mlx, "a preference wins")
    }
}

@Suite(.inProcessLane, .serialized) struct SDKLifecycleTests {
    @Test func initializeNeedsNoNetworkInDevelopmentAndCredentialsElsewhere() throws {
        RunAnywhere.reset()
        #expect(!RunAnywhere.isSDKInitialized)
        #expect((try #require(throws: SDKError.self) { try RunAnywhere.runtime() }).code == .notInitialized)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-lifecycle-\(UUID())")
        let configuration = RuntimeConfiguration(modelsDirectory: folder, dataDirectory: folder)
        #expect(
            (try #require(throws: SDKError.self) { try RunAnywhere.initialize(environment: .production, configuration: configuration) })
                .code == .invalidConfiguration)
        let badURL = try #require(throws: SDKError.self) {
            try RunAnywhere.initialize(apiKey: "k", baseURL: "not a url", environment: .staging, configuration: configuration)
        }
        #expect(badURL.code == .invalidConfiguration && badURL.message.contains("'not a url'"), "\(badURL.message)")
        try RunAnywhere.initialize(apiKey: "k", baseURL: "https://api.example.com", environment: .staging, configuration: configuration)
        #expect(RunAnywhere.environment == .staging)
        try RunAnywhere.initialize(configuration: configuration)
        #expect(RunAnywhere.isSDKInitialized)
        #expect(RunAnywhere.environment == .development)
        #expect(!FileManager.default.fileExists(atPath: folder.path), "initializing writes nothing")
        RunAnywhere.reset()
    }
}
