import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereLlamaCpp

/// A tiny BERT folder as sentence-transformers saves one: 2 layers of width 8, 12 tokens in
/// vocab.txt for a vocab_size of 14, mean pooling, weights whose values BF16 holds exactly.
struct TinyBert {
    static let vocabulary = ["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "play", "##ing", "##s", "a", "#"]
    static let (hidden, feedForward, layers, positions, vocabularySize) = (8, 16, 2, 16, 14)

    var config: [String: Any] = [
        "model_type": "bert", "hidden_act": "gelu", "hidden_size": hidden, "intermediate_size": feedForward, "num_hidden_layers": layers,
        "num_attention_heads": 2, "max_position_embeddings": positions, "type_vocab_size": 2, "vocab_size": vocabularySize,
        "layer_norm_eps": 1e-12, "position_embedding_type": "absolute",
    ]
    var vocabulary = Self.vocabulary
    var tensors: [SafetensorsWriter.Tensor]

    /// Values k/64 for |k| < 32: exact in BF16, different for each tensor.
    static func values(_ count: Int, seed: Int) -> [Float] { (0..<count).map { Float(($0 * 7 + seed) % 63 - 31) / 64 } }

    init() {
        var shapes: [(String, [Int])] = [
            ("embeddings.word_embeddings.weight", [Self.vocabularySize, Self.hidden]),
            ("embeddings.position_embeddings.weight", [Self.positions, Self.hidden]),
            ("embeddings.token_type_embeddings.weight", [2, Self.hidden]),
            // The old names of the LayerNorm parameters, which the converter renames.
            ("embeddings.LayerNorm.gamma", [Self.hidden]), ("embeddings.LayerNorm.beta", [Self.hidden]),
            ("pooler.dense.weight", [Self.hidden, Self.hidden]), ("pooler.dense.bias", [Self.hidden]),
        ]
        for layer in 0..<Self.layers {
            let prefix = "encoder.layer.\(layer)."
            for part in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"] {
                shapes += [(prefix + part + ".weight", [Self.hidden, Self.hidden]), (prefix + part + ".bias", [Self.hidden])]
            }
            for part in ["attention.output.LayerNorm", "output.LayerNorm"] {
                shapes += [(prefix + part + ".weight", [Self.hidden]), (prefix + part + ".bias", [Self.hidden])]
            }
            shapes += [
                (prefix + "intermediate.dense.weight", [Self.feedForward, Self.hidden]),
                (prefix + "intermediate.dense.bias", [Self.feedForward]),
                (prefix + "output.dense.weight", [Self.hidden, Self.feedForward]), (prefix + "output.dense.bias", [Self.hidden]),
            ]
        }
        tensors = shapes.enumerated().map { index, entry in
            .float32(entry.0, shape: entry.1, values: Self.values(entry.1.reduce(1, *), seed: index))
        }
        // BERT checkpoints keep their position ids, as 64-bit integers.
        tensors.append(
            SafetensorsWriter.Tensor(
                name: "embeddings.position_ids", dtype: "I64", shape: [1, Self.positions], bytes: Data(count: 8 * Self.positions)))
    }

    func write(to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("1_Pooling"), withIntermediateDirectories: true)
        func json(_ value: Any, _ name: String) throws {
            try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]).write(to: folder.appendingPathComponent(name))
        }
        try json(config, "config.json")
        try json(
            ["do_lower_case": true, "cls_token": "[CLS]", "sep_token": "[SEP]", "tokenizer_class": "BertTokenizer"], "tokenizer_config.json"
        )
        try json(["unk_token": "[UNK]", "pad_token": ["content": "[PAD]"], "mask_token": "[MASK]"], "special_tokens_map.json")
        try json(
            [
                ["idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"],
                ["idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"],
            ], "modules.json")
        try json(
            ["word_embedding_dimension": Self.hidden, "pooling_mode_mean_tokens": true, "pooling_mode_cls_token": false],
            "1_Pooling/config.json")
        try Data("---\nlanguage: en\nlicense: apache-2.0\n---\n# Tiny BERT\n".utf8).write(to: folder.appendingPathComponent("README.md"))
        try Data((vocabulary.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("vocab.txt"))
        try SafetensorsWriter(tensors: tensors).write(to: folder.appendingPathComponent("model.safetensors"))
    }
}

@Suite struct BertEmbeddingConverterTests {
    func convert(_ bert: TinyBert, in folder: URL) throws -> (BertEmbeddingConverter.Report, URL) {
        let source = folder.appendingPathComponent("source")
        try bert.write(to: source)
        let output = folder.appendingPathComponent("tiny.gguf")
        return (try BertEmbeddingConverter.convert(sourceDirectory: source, output: output, name: "Tiny BERT"), output)
    }

    @Test func writesWhatLlamaCppsBertLoads() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (report, output) = try convert(TinyBert(), in: folder)
        #expect(report.tensorCount == 37 && report.vocabularySize == 14 && report.embeddingLength == 8 && report.pooling == "mean")
        let data = try Data(contentsOf: output)
        #expect(Int64(data.count) == report.bytes)
        let gguf = try GGUFReader.parse(data, name: "tiny.gguf")
        let expected: [String: GGUFValue] = [
            "general.architecture": .string("bert"), "general.name": .string("Tiny BERT"), "general.license": .string("apache-2.0"),
            "general.file_type": .unsigned(32), "bert.context_length": .unsigned(16), "bert.embedding_length": .unsigned(8),
            "bert.feed_forward_length": .unsigned(16), "bert.block_count": .unsigned(2), "bert.attention.head_count": .unsigned(2),
            "bert.attention.layer_norm_epsilon": .float(Double(Float(1e-12))), "bert.attention.causal": .bool(false),
            "bert.pooling_type": .unsigned(1), "tokenizer.ggml.model": .string("bert"), "tokenizer.ggml.token_type_count": .unsigned(2),
            "tokenizer.ggml.bos_token_id": .unsigned(3), "tokenizer.ggml.cls_token_id": .unsigned(3),
            "tokenizer.ggml.eos_token_id": .unsigned(4),
            "tokenizer.ggml.seperator_token_id": .unsigned(4), "tokenizer.ggml.unknown_token_id": .unsigned(2),
            "tokenizer.ggml.padding_token_id": .unsigned(0), "tokenizer.ggml.mask_token_id": .unsigned(5),
            "tokenizer.ggml.add_bos_token": .bool(true), "tokenizer.ggml.add_eos_token": .bool(true),
            "tokenizer.ggml.add_sep_token": .bool(false),
            "tokenizer.ggml.normalizer.lowercase": .bool(true),
        ]
        for (key, value) in expected { #expect(gguf.values[key] == value, "\(key)") }
        #expect(gguf.values["tokenizer.ggml.normalizer.strip_accents"] == nil, "it follows lowercase unless the tokenizer says")
        // Word-initial tokens take llama.cpp's phantom space, continuations lose their ##, the
        // special tokens stay; the ids past vocab.txt's lines are unused padding.
        let tokens = [
            "[PAD]", "▁[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "▁the", "▁play", "ing", "s", "▁a", "▁#", "[PAD12]", "[PAD13]",
        ]
        #expect(gguf.values["tokenizer.ggml.tokens"] == .array(count: 14, prefix: tokens.map { .string($0) }))
        #expect(
            gguf.values["tokenizer.ggml.token_type"]
                == .array(count: 14, prefix: [3, 1, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 5, 5].map { .signed($0) }))

        #expect(gguf.tensors.count == 37)
        let tensors = Dictionary(uniqueKeysWithValues: gguf.tensors.map { ($0.name, $0) })
        let shapes: [String: ([UInt64], UInt32)] = [
            "token_embd.weight": ([8, 14], 30), "token_types.weight": ([8, 2], 0), "position_embd.weight": ([8, 16], 0),
            "token_embd_norm.weight": ([8], 0), "token_embd_norm.bias": ([8], 0), "blk.0.attn_q.weight": ([8, 8], 30),
            "blk.0.attn_q.bias": ([8], 0),
            "blk.1.attn_k.weight": ([8, 8], 30), "blk.1.attn_v.bias": ([8], 0), "blk.1.attn_output.weight": ([8, 8], 30),
            "blk.1.attn_output_norm.weight": ([8], 0), "blk.0.ffn_up.weight": ([8, 16], 30), "blk.0.ffn_up.bias": ([16], 0),
            "blk.1.ffn_down.weight": ([16, 8], 30), "blk.1.ffn_down.bias": ([8], 0), "blk.1.layer_output_norm.bias": ([8], 0),
        ]
        for (name, (shape, type)) in shapes {
            #expect(tensors[name]?.shape == shape && tensors[name]?.type == type, "\(name): \(String(describing: tensors[name]))")
        }
        #expect(!tensors.keys.contains { $0.contains("pooler") || $0.contains("position_ids") })
        // The values: the word embeddings as BF16 (an F32's upper half), the renamed LayerNorm and the position embeddings as stored.
        func values(_ name: String) throws -> [Float] {
            let tensor = try #require(tensors[name])
            let start = Int(gguf.dataOffset + tensor.offset)
            let count = tensor.shape.reduce(1) { $0 * Int($1) }
            return data[start..<start + count * (tensor.type == 30 ? 2 : 4)].withUnsafeBytes { raw in
                (0..<count).map {
                    tensor.type == 30
                        ? Float(bitPattern: UInt32(raw.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self)) << 16)
                        : raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self)
                }
            }
        }
        #expect(try values("token_embd.weight") == TinyBert.values(14 * 8, seed: 0))
        #expect(try values("position_embd.weight") == TinyBert.values(16 * 8, seed: 1))
        #expect(try values("token_embd_norm.bias") == TinyBert.values(8, seed: 4))
        #expect(try values("blk.1.ffn_down.weight") == TinyBert.values(16 * 8, seed: 7 + 16 + 14), "layer 1's 15th tensor")
        let again = try convert(TinyBert(), in: folder.appendingPathComponent("again")).1
        #expect(try Data(contentsOf: again) == data, "the same folder gives the same bytes")
    }

    /// F32 to BF16 rounds to the nearest, ties to even, never a NaN into an infinity.
    @Test func bfloat16RoundsToNearestEven() {
        let cases: [(Float, UInt16)] = [
            (1, 0x3F80), (-0.0, 0x8000), (0.5 + 1.0 / 64, 0x3F04),
            (1 + 0x1p-8, 0x3F80), (1 + 3 * 0x1p-8, 0x3F82), (1 + 0x1p-8 + 0x1p-20, 0x3F81),  // ties to even; above a tie, up
            (-(1 + 0x1p-8 + 0x1p-20), 0xBF81), (.greatestFiniteMagnitude, 0x7F80), (.infinity, 0x7F80), (-.infinity, 0xFF80),
            (.leastNonzeroMagnitude, 0x0000), (Float(bitPattern: 0x7F80_0001), 0x7FC0), (Float(bitPattern: 0xFFC1_2345), 0xFFC1),
        ]
        for (value, bits) in cases {
            #expect(BFloat16.bits(value) == bits, "\(value) (\(String(value.bitPattern, radix: 16)))")
        }
    }

    @Test func badSourcesAreClearErrors() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.gguf")
        func failure(_ bert: TinyBert, _ change: (URL) throws -> Void = { _ in }) throws -> SDKError {
            let source = folder.appendingPathComponent("source-\(UUID().uuidString)")
            try bert.write(to: source)
            try change(source)
            return try #require(throws: SDKError.self) { try BertEmbeddingConverter.convert(sourceDirectory: source, output: output) }
        }
        let missing = try #require(throws: SDKError.self) {
            try BertEmbeddingConverter.convert(sourceDirectory: folder.appendingPathComponent("nowhere"), output: output)
        }
        #expect(missing.code == .fileNotFound && missing.message.contains("No such model folder"))
        let noConfig = try failure(TinyBert()) { try FileManager.default.removeItem(at: $0.appendingPathComponent("config.json")) }
        #expect(noConfig.code == .fileNotFound && noConfig.message.contains("config.json is missing"))
        let noWeights = try failure(TinyBert()) { try FileManager.default.removeItem(at: $0.appendingPathComponent("model.safetensors")) }
        #expect(noWeights.code == .fileNotFound && noWeights.message.contains("model.safetensors"))
        let truncated = try failure(TinyBert()) { source in
            let file = source.appendingPathComponent("model.safetensors")
            try Data(contentsOf: file).dropLast(100).write(to: file)
        }
        #expect(truncated.code == .invalidModelFormat && truncated.message.contains("truncated"), "\(truncated.message)")

        var roberta = TinyBert()
        roberta.config["model_type"] = "roberta"
        #expect(try failure(roberta).message.contains("holds a roberta (config.json), not a BERT model"))
        var shapeless = TinyBert()
        shapeless.config["hidden_size"] = nil
        #expect(try failure(shapeless).message.contains("hidden_size is missing"))
        var noClassifier = TinyBert()
        noClassifier.vocabulary[3] = "[CLASS]"
        #expect(try failure(noClassifier).message.contains("vocab.txt has no [CLS] token"))
        var repeated = TinyBert()
        repeated.vocabulary[10] = "the"
        #expect(try failure(repeated).message.contains(#"vocab.txt has the token "the" twice (lines 7 and 11)"#))
        var layerless = TinyBert()
        layerless.tensors.removeAll { $0.name == "encoder.layer.1.intermediate.dense.weight" }
        #expect(try failure(layerless).message.contains("has no tensor for llama.cpp's blk.1.ffn_up.weight"))
        var misshapen = TinyBert()
        misshapen.config["intermediate_size"] = 12
        #expect(
            try failure(misshapen).message.contains(
                "encoder.layer.0.intermediate.dense.weight has the shape [16, 8]; config.json makes it [12, 8]"))
        var foreign = TinyBert()
        foreign.tensors.append(.float32("encoder.layer.0.attention.rotary.weight", shape: [2], values: [0, 0]))
        #expect(try failure(foreign).message.contains("encoder.layer.0.attention.rotary.weight, which is no part of a BERT model"))
        var deeper = TinyBert()
        deeper.config["num_hidden_layers"] = 1
        #expect(try failure(deeper).message.contains("which a BERT of config.json's shape (1 layers) does not have"))
        #expect(!FileManager.default.fileExists(atPath: output.path), "nothing half-written")
    }

    /// `runanywhere models convert-embedding`: the report on success; under a 4 KB file-size limit
    /// (the output is larger), as on a full disk, a clear error, the previous output intact and no
    /// temporary file left; a missing folder, a clear error.
    @Test(.processLane) func theCommandConvertsAndNeverLeavesAHalfWrittenFile() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source")
        try TinyBert().write(to: source)
        let output = folder.appendingPathComponent("out/tiny.gguf")
        let binary = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("runanywhere")
        func run(_ arguments: [String], fileSizeLimit: Int? = nil) throws -> (status: Int32, out: String, errors: String) {
            let process = Process()
            process.executableURL = fileSizeLimit == nil ? binary : URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = (fileSizeLimit.map { ["--fsize=\($0)", binary.path] } ?? []) + ["models", "convert-embedding"] + arguments
            let (out, errors) = (Pipe(), Pipe())
            (process.standardOutput, process.standardError) = (out, errors)
            try process.run()
            let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let complained = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, said, complained)
        }
        let converted = try run([source.path, "--output", output.path])
        #expect(converted.status == 0 && converted.out.contains("37 tensors, 14 tokens, 8 dimensions, mean pooling"), "\(converted)")
        let bytes = try Data(contentsOf: output)
        #expect(bytes.count > 4096)
        let full = try run([source.path, "--output", output.path, "--name", "renamed"], fileSizeLimit: 4096)
        #expect(full.status == 1 && full.errors.lowercased().contains("no space left"), "\(full)")
        #expect(try Data(contentsOf: output) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path) == ["tiny.gguf"])
        let missing = try run([folder.appendingPathComponent("nowhere").path, "--output", output.path])
        #expect(missing.status == 1 && missing.errors.contains("No such model folder"), "\(missing)")
    }
}
