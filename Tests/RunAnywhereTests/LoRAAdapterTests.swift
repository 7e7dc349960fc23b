import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// Which adapters a request applies, on generated GGUF files (a tiny llama model and adapters
/// with random weights; no engine runs): a server's defaults apply only to models of their
/// architecture and size, and an adapter for a model not downloaded says so.
@Suite struct LoRAAdapterTests {
    @Test func defaultsFitTheirArchitectureOnly() throws {
        try ModelMetadataTests.withFolder { folder in
            // A llama of width 8 with one block's query and value projections, as the adapters change them.
            let model = folder.appendingPathComponent("tiny.gguf")
            try GGUFWriter(
                metadata: [("general.architecture", .string("llama"))],
                tensors: ["attn_q", "attn_v"].map {
                    GGUFWriter.Tensor(name: "blk.0.\($0).weight", shape: [8, 8], type: 0, bytes: 8 * 8 * 4)
                }
            ).write(to: model)
            var written: [String: URL] = [:]
            for (name, architecture, width) in [("llama", "llama", 8), ("qwen2", "qwen2", 8), ("narrow", "llama", 4)] {
                written[name] = folder.appendingPathComponent("\(name).gguf")
                try GGUFWriter.loraFixture(embedding: width, values: width, layers: 1, architecture: architecture).write(to: written[name]!)
            }
            let llama = try #require(written["llama"])
            let qwen = try #require(written["qwen2"])
            let narrow = try #require(written["narrow"])
            let info = ModelInfo(id: "tiny", name: "tiny", category: .language, format: .gguf, framework: .llamaCpp, localPath: model)
            let defaults = [
                LoRAAdapter(path: qwen.path), LoRAAdapter(path: llama.path, scale: 0.5), LoRAAdapter(path: llama.path, scale: 0),
                LoRAAdapter(path: narrow.path),
            ]
            #expect(LoRAAdapter.fitting(defaults, info) == [LoRAAdapter(path: llama.path, scale: 0.5)])
            let base = try GGUFReader.read(model)
            #expect(LoRAAdapter.mismatch(of: try LoRAAdapter.adapterMetadata(at: llama), with: base) == nil)
            let why = try #require(LoRAAdapter.mismatch(of: try LoRAAdapter.adapterMetadata(at: narrow), with: base))
            #expect(why.contains("8×8 in the model, 4×4 in the adapter"), "\(why)")
            #expect(LoRAAdapter.mismatch(of: try LoRAAdapter.adapterMetadata(at: llama), with: try GGUFReader.read(narrow)) != nil)
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
