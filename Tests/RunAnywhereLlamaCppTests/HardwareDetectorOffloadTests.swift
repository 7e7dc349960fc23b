import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// The GPU offload rule of llama.cpp's adapter follows the hardware detector the registry hands
/// it: the devices it describes are the ones a model's layers go to. No model is loaded (only
/// libllama is opened, to list its devices), so no lane is needed.
@Suite(.enabled(if: TestEnvironment.llamaLibrary != nil, "needs libllama: run scripts/setup"))
struct HardwareDetectorOffloadTests {
    /// A machine with an 8 GiB GPU besides what llama.cpp finds.
    struct WithGPU: HardwareDetector {
        static let gpu = Accelerator(
            backend: "cuda", name: "CUDA7", deviceDescription: "Described GPU", kind: .gpu, memoryBytes: 8 << 30, freeMemoryBytes: 8 << 30,
            available: true, engine: "llama.cpp"
        )
        func accelerators(from reported: [Accelerator]) -> [Accelerator] { reported + [Self.gpu] }
    }

    /// A machine whose GPUs the app keeps for itself.
    struct CPUOnly: HardwareDetector {
        func accelerators(from reported: [Accelerator]) -> [Accelerator] { reported.filter { !$0.takesLayers } }
    }

    /// A 4-layer llama GGUF with an attention shape, so that the rule can size its layers and KV cache.
    private func model() throws -> ModelInfo {
        let folder = try TestEnvironment.temporaryDirectory()
        var writer = GGUFWriter.tinyLlama()
        writer.metadata += [("llama.block_count", .u32(4)), ("llama.attention.head_count", .u32(4))]
        let file = folder.appendingPathComponent("layers.gguf")
        try writer.write(to: file)
        return ModelInfo(id: "layers", name: "layers", category: .language, format: .gguf, framework: .llamaCpp, localPath: file)
    }

    @Test func theOffloadRuleUsesTheDetectorsDevices() throws {
        let model = try model()
        let options = ModelLoadOptions(contextLength: 256)
        let registry = FrameworkAdapterRegistry(hardwareDetector: WithGPU())
        registry.register(LlamaCppAdapter())
        let adapter = try #require(registry.adapter(for: .llamaCpp))
        #expect(adapter.accelerators().contains(WithGPU.gpu))
        let onGPU = adapter.estimateMemorySplit(for: model, options: options)
        #expect(onGPU.device > 0 && onGPU.host == 0, "the whole model fits in the described GPU: \(onGPU)")
        var cpuOptions = options
        cpuOptions.gpuLayers = 0
        #expect(adapter.estimateMemorySplit(for: model, options: cpuOptions).device == 0, "0 GPU layers still means the CPU")

        registry.register(hardwareDetector: CPUOnly())
        let replaced = try #require(registry.adapter(for: .llamaCpp))
        #expect(!replaced.accelerators().contains { $0.takesLayers })
        let onCPU = replaced.estimateMemorySplit(for: model, options: options)
        #expect(onCPU.device == 0 && onCPU.host == onGPU.host + onGPU.device, "the same model, all on the CPU: \(onCPU)")
    }
}
