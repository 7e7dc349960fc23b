import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// Which adapters a request applies, on generated GGUF files (a tiny llama model and adapters
/// with random weights; no engine runs): a server's defaults apply only to models of their
/// architecture, and an adapter for a model not downloaded says so.
@Suite struct LoRAAdapterTests {
    @Test func defaultsFitTheirArchitectureOnly() throws {
        try ModelMetadataTests.withFolder { folder in
            let model = folder.appendingPathComponent("tiny.gguf")
            try GGUFWriter.tinyLlama().write(to: model)
            var written: [String: URL] = [:]
            for architecture in ["llama", "qwen2"] {
                written[architecture] = folder.appendingPathComponent("\(architecture).gguf")
                try GGUFWriter.loraFixture(embedding: 8, values: 8, layers: 1, architecture: architecture).write(to: written[architecture]!)
            }
            let llama = try #require(written["llama"])
            let qwen = try #require(written["qwen2"])
            let info = ModelInfo(id: "tiny", name: "tiny", category: .language, format: .gguf, framework: .llamaCpp, localPath: model)
            let defaults = [
                LoRAAdapter(path: qwen.path), LoRAAdapter(path: llama.path, scale: 0.5), LoRAAdapter(path: llama.path, scale: 0),
            ]
            #expect(LoRAAdapter.fitting(defaults, info) == [LoRAAdapter(path: llama.path, scale: 0.5)])
            let onnx = ModelInfo(id: "tiny", name: "tiny", category: .language, format: .onnx, framework: .onnx, localPath: model)
            #expect(LoRAAdapter.fitting(defaults, onnx).isEmpty)
            #expect(try LoRAAdapter.architecture(ofAdapterAt: qwen) == "qwen2")
            #expect(throws: SDKError.self) { try LoRAAdapter.architecture(ofAdapterAt: model) }
        }
    }

    @Test func anAdapterForAModelNotDownloadedSaysSo() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let adapter = folder.appendingPathComponent("llama.gguf")
        try GGUFWriter.loraFixture(embedding: 8, values: 8, layers: 1).write(to: adapter)
        let info = ModelInfo(
            id: "remote", name: "remote", category: .language, format: .gguf, framework: .llamaCpp,
            downloadURL: URL(string: "https://example.com/remote.gguf"))
        await expectSDKError(.modelNotDownloaded, ["'remote' is not downloaded"]) {
            _ = try LoRAAdapter.resolve([LoRAAdapter(path: adapter.path)], for: info) { _ in nil }
        }
    }
}
