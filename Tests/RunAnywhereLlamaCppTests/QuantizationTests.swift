import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Synchronization
import Testing

@testable import RunAnywhereLlamaCpp

/// llama.cpp's quantizer in process (``LlamaQuantizer``; the CLI runs it in a child process of its
/// own): the F16 coder fixture written as Q8_0 and Q4_K_M, each a model that answers and is smaller
/// than its source; a quantized model refused as a source.
extension LlamaTests {
    @Suite(.enabled(if: TestEnvironment.infillFixture != nil, "needs the coder fixture: run scripts/setup --tests"))
    struct Quantization {
        @Test func theF16FixtureIsWrittenQuantizedAndAnswers() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-quantize-\(UUID())")
            defer { try? FileManager.default.removeItem(at: folder) }
            var configuration = RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data"))
            configuration.quantizer = LlamaQuantizer(logger: Logger(label: "quantization-tests"))
            let runtime = RunAnywhereRuntime(configuration: configuration)
            runtime.frameworks.register(LlamaCppAdapter())
            let fixture = try #require(TestEnvironment.infillFixture)
            let sourceSize = try #require(try fixture.resourceValues(forKeys: [.fileSizeKey]).fileSize)
            // Q8_0 writes every matrix as Q8_0; Q4_K_M, on rows too short for a k-quant (256), falls
            // back to Q5_0 and Q8_0 as llama.cpp does: no F16 matrix is left either way.
            for (name, tensorType) in [("q8_0", UInt32(8)), ("Q4_K_M", UInt32(6))] {
                let quantization = try ModelQuantization(named: name)
                let job = try await runtime.prepareQuantization(
                    file: fixture, as: quantization, id: "coder-\(name.lowercased())", defaults: nil, license: nil)
                let reported = Mutex<[QuantizationProgress]>([])
                let model = try await runtime.quantize(job, threads: 1) { progress in reported.withLock { $0.append(progress) } }
                let seen = reported.withLock { $0 }
                #expect(
                    !seen.isEmpty && seen.map(\.done) == Array(1...seen.count) && seen.last?.done == seen.last?.total, "\(name): \(seen)")
                let metadata = try #require(try runtime.metadata(of: model))
                let types = Set(metadata.tensors.map(\.type))
                #expect(metadata.quantization == quantization.name && types.contains(tensorType) && !types.contains(1), "\(name): \(types)")
                #expect(model.primaryFileSize < Int64(sourceSize) && model.description?.contains("Quantized to") == true)
                let answer = try await runtime.generateEvents(
                    "def main(", images: [], context: nil, options: LLMGenerationOptions(maxTokens: 2, temperature: 0, threads: 1),
                    model: model.id, loadOptions: ModelLoadOptions(contextLength: 256, threads: 1)
                ).result()
                #expect(answer.responseTokens > 0, "\(name)")
            }
            let refused = await #expect(throws: SDKError.self) {
                try await runtime.prepareQuantization(
                    file: try #require(TestEnvironment.defaultModelFile), as: try ModelQuantization(named: "q8_0"), id: "again",
                    defaults: nil, license: nil)
            }
            #expect(refused?.code == .modelIncompatible && refused?.message.contains("quantized already (Q4_1)") == true)
            let left = try FileManager.default.contentsOfDirectory(atPath: configuration.modelsDirectory.path)
            #expect(!left.contains { $0.hasPrefix(".quantize.") }, "\(left)")
        }
    }
}
