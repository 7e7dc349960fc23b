import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@Suite struct GGUFReaderTests {
    @Test func readsMetadataOfEveryValueType() throws {
        let data = GGUFWriter.tinyLlama().data()
        let metadata = try GGUFReader.parse(data, name: "tiny.gguf")
        #expect(metadata.version == 3)
        #expect(metadata.architecture == "llama")
        #expect(metadata.name == "Tiny Test Llama")
        #expect(metadata.license == "MIT")
        #expect(metadata.fileType == 2)
        #expect(metadata.quantization == "Q4_0")
        #expect(metadata.contextLength == 512)
        #expect(metadata.chatTemplate?.contains("<|im_start|>") == true)
        #expect(metadata.vocabularySize == 300)
        #expect(metadata.tensorCount == 3)
        #expect(metadata.parameterCount == 64 * 4 + 64 + 256 * 2)
        #expect(metadata.values["test.signed"] == .signed(-5))
        #expect(metadata.values["test.small"] == .signed(-3))
        #expect(metadata.values["test.flag"] == .bool(true))
        #expect(metadata.values["test.double"] == .float(0.25))
        #expect(metadata.values["llama.rope.freq_base"] == .float(10000))
        #expect(metadata.fileSize == UInt64(data.count))
        #expect(metadata.expectedFileSize == UInt64(data.count))
        if case .array(let count, let prefix) = metadata.values["tokenizer.ggml.tokens"] {
            #expect(count == 300)
            #expect(prefix.count == 16)
            #expect(prefix.first == .string("tok0"))
        } else {
            Issue.record("tokens should be an array")
        }
    }

    /// A code model that fills in the middle, told from its vocabulary as llama.cpp tells it: the
    /// prefix, suffix and middle tokens named in the metadata, or found by their text.
    @Test func fillInTheMiddleTokensAreFoundByKeyOrByText() throws {
        func fills(_ tokens: [String], _ keys: [(String, GGUFWriter.Value)] = []) throws -> Bool {
            var model = GGUFWriter.tinyLlama()
            model.metadata = model.metadata.map { $0.0 == "tokenizer.ggml.tokens" ? ($0.0, .strings(tokens)) : $0 } + keys
            return try GGUFReader.parse(model.data(), name: "code.gguf").fillsInTheMiddle
        }
        #expect(try !fills(["a", "b"]))
        #expect(try fills(["a", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]))  // Qwen2.5-Coder
        #expect(try fills(["▁<PRE>", "▁<SUF>", "▁<MID>", "b"]))  // CodeLlama
        #expect(try fills(["<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"]))  // DeepSeek-Coder
        #expect(try !fills(["<|fim_prefix|>", "<|fim_suffix|>", "<fim_pad>"]), "no middle token")
        #expect(try !fills(["<|fim_prefix|>x", "<|fim_suffix|>", "<|fim_middle|>"]), "only whole tokens count")
        #expect(
            try fills(
                ["p", "s", "m"],
                [
                    ("tokenizer.ggml.fim_pre_token_id", .u32(0)), ("tokenizer.ggml.fim_suf_token_id", .u32(1)),
                    ("tokenizer.ggml.middle_token_id", .u32(2)),
                ]
            ))
        #expect(try fills(["p", "<fim_suffix>", "<fim_middle>"], [("tokenizer.ggml.prefix_token_id", .u32(0))]))
    }

    /// The beginning- and end-of-text tokens' texts (llama-server's `/props` shows them), found by
    /// the ids the metadata gives before the vocabulary or after it, beyond the tokens it keeps.
    @Test func theBeginningAndEndOfTextTokensAreReadByTheirIDs() throws {
        var model = GGUFWriter.tinyLlama()
        #expect(try GGUFReader.parse(model.data(), name: "tiny.gguf").bosToken == nil)
        let tokens = model.metadata.firstIndex { $0.0 == "tokenizer.ggml.tokens" }!
        model.metadata.insert(("tokenizer.ggml.bos_token_id", .u32(1)), at: tokens)
        model.metadata.append(("tokenizer.ggml.eos_token_id", .u32(299)))
        let metadata = try GGUFReader.parse(model.data(), name: "tiny.gguf")
        #expect(metadata.bosToken == "tok1" && metadata.eosToken == "tok299")
        model.metadata = model.metadata.map { $0.0 == "tokenizer.ggml.eos_token_id" ? ($0.0, .u32(300)) : $0 }
        #expect(try GGUFReader.parse(model.data(), name: "tiny.gguf").eosToken == nil, "an id past the vocabulary names no token")
    }

    /// The default model's, as its tokenizer (and llama-server's `/props`) names them.
    @Test(.enabled(if: TestEnvironment.defaultModelFile != nil, "needs the default model: run scripts/setup --tests"))
    func theDefaultModelsBeginningAndEndOfTextTokens() throws {
        let metadata = try GGUFReader.read(try #require(TestEnvironment.defaultModelFile))
        #expect(metadata.bosToken == "<|im_start|>" && metadata.eosToken == "<|im_end|>")
    }

    @Test func parameterCountLabel() throws {
        let metadata = try GGUFReader.parse(GGUFWriter.tinyLlama().data(), name: "tiny.gguf")
        #expect(metadata.parameterCountLabel == "1K")
    }

    @Test func rejectsEmptyFile() throws {
        let error = try #require(throws: SDKError.self) { try GGUFReader.parse(Data(), name: "empty.gguf") }
        #expect(error.code == .invalidModelFormat)
        #expect(error.message.contains("empty"))
    }

    @Test func rejectsForeignFile() throws {
        let error = try #require(throws: SDKError.self) { try GGUFReader.parse(Data("hello, this is not a model".utf8), name: "notes.txt") }
        #expect(error.code == .invalidModelFormat)
        #expect(error.message.contains("magic"))
    }

    @Test func rejectsUnsupportedVersion() throws {
        var writer = GGUFWriter.tinyLlama()
        writer.version = 1
        let error = try #require(throws: SDKError.self) { try GGUFReader.parse(writer.data(), name: "old.gguf") }
        #expect(error.message.contains("version 1"))
    }

    /// Cutting the file anywhere, in the header or in the tensor data, gives a clear error.
    @Test func rejectsEveryTruncation() throws {
        let data = GGUFWriter.tinyLlama().data()
        for length in stride(from: 1, to: data.count, by: 7) {
            let error = try #require(throws: SDKError.self, "cut at \(length)") {
                try GGUFReader.parse(data.prefix(length), name: "cut.gguf")
            }
            #expect(error.code == .invalidModelFormat)
            #expect(error.message.contains("truncated") || error.message.contains("magic"), "cut at \(length): \(error.message)")
        }
    }

    /// Array elements past the kept prefix are stepped over, not decoded: what follows them is
    /// read right, and a cut anywhere inside them is still a truncation.
    @Test func longArraysAreSteppedOverAndStillChecked() throws {
        let strings = (0..<40).map { "merge \($0)" }
        let writer = GGUFWriter(
            metadata: [("test.merges", .strings(strings)), ("test.ids", .u32s(Array(0..<40))), ("test.after", .u32(7))],
            tensors: [.init(name: "w", shape: [8], type: 0, bytes: 32)]
        )
        let data = writer.data()
        let metadata = try GGUFReader.parse(data, name: "arrays.gguf")
        #expect(metadata.values["test.merges"] == .array(count: 40, prefix: strings.prefix(16).map { .string($0) }))
        #expect(metadata.values["test.ids"] == .array(count: 40, prefix: (0..<16).map { .unsigned(UInt64($0)) }))
        #expect(metadata.values["test.after"] == .unsigned(7))
        for length in 1..<data.count - 32 {
            let error = try #require(throws: SDKError.self, "cut at \(length)") {
                try GGUFReader.parse(data.prefix(length), name: "cut.gguf")
            }
            #expect(error.message.contains("truncated") || error.message.contains("magic"), "cut at \(length): \(error.message)")
        }
    }

    @Test func rejectsUnknownTensorType() throws {
        let writer = GGUFWriter(
            metadata: [("general.architecture", .string("llama"))], tensors: [.init(name: "w", shape: [32], type: 99, bytes: 32)])
        let error = try #require(throws: SDKError.self) { try GGUFReader.parse(writer.data(), name: "odd.gguf") }
        #expect(error.message.contains("unknown type 99"))
    }

    /// What llama.cpp asserts on (a token twice in the vocabulary aborts the process) or reads
    /// wrongly is refused before it ever sees the file.
    @Test func rejectsRepeatedTokensKeysAndTensorsAndMisalignedTensors() throws {
        func error(_ writer: GGUFWriter) throws -> String {
            try #require(throws: SDKError.self) { try GGUFReader.parse(writer.data(), name: "odd.gguf") }.message
        }
        var vocabulary = GGUFWriter.tinyLlama()
        vocabulary.metadata = vocabulary.metadata.map { $0.0 == "tokenizer.ggml.tokens" ? ($0.0, .strings(["a", "b", "c", "b"])) : $0 }
        #expect(try error(vocabulary).contains(#"its vocabulary has the token "b" twice (token 3)"#))
        // llama.cpp reads tokens as C strings: what follows a NUL byte does not count.
        vocabulary.metadata = vocabulary.metadata.map { $0.0 == "tokenizer.ggml.tokens" ? ($0.0, .strings(["ab", "a\u{0}c", "a"])) : $0 }
        #expect(try error(vocabulary).contains(#"its vocabulary has the token "a" twice (token 2)"#))
        // An empty token is keyed "[EMPTY_<index>]", as llama.cpp keys it.
        vocabulary.metadata = vocabulary.metadata.map { $0.0 == "tokenizer.ggml.tokens" ? ($0.0, .strings(["a", "", "[EMPTY_1]"])) : $0 }
        #expect(try error(vocabulary).contains(#"its vocabulary has the token "[EMPTY_1]" twice (token 2)"#))
        var key = GGUFWriter.tinyLlama()
        key.metadata.append(("general.name", .string("again")))
        #expect(try error(key).contains("the metadata key general.name appears twice"))
        let tensor = GGUFWriter.Tensor(name: "w", shape: [24], type: 0, bytes: 96)
        #expect(try error(GGUFWriter(tensors: [tensor, tensor])).contains("the tensor w appears twice"))
        var aligned = GGUFWriter(
            metadata: [("general.alignment", .u32(64))], tensors: [tensor, .init(name: "v", shape: [8], type: 0, bytes: 32)])
        #expect(try error(aligned).contains("tensor v is not aligned to 64 bytes"))
        aligned.metadata = []
        #expect(throws: Never.self) { try GGUFReader.parse(aligned.data(), name: "ok.gguf") }
        // stable-diffusion.cpp divides by a tensor's dimensions (SIGFPE on an empty one).
        let empty = GGUFWriter(tensors: [.init(name: "e", shape: [8, 0], type: 0, bytes: 0)])
        #expect(try error(empty).contains("tensor e has an empty dimension"))
    }

    @Test func readsFromDiskAndReportsMissingFile() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("tiny.gguf")
        try GGUFWriter.tinyLlama().write(to: url)
        #expect(try GGUFReader.read(url).architecture == "llama")
        let error = try #require(throws: SDKError.self) { try GGUFReader.read(folder.appendingPathComponent("missing.gguf")) }
        #expect(error.code == .fileNotFound)
    }

    /// A file read before is read again once it changed: rewritten in place at the same size,
    /// replaced, or cut short.
    @Test func aChangedFileIsReadAgain() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("tiny.gguf")
        let data = GGUFWriter.tinyLlama().data()
        try data.write(to: url)
        #expect(try GGUFReader.read(url).name == "Tiny Test Llama")
        let handle = try FileHandle(forWritingTo: url)
        try handle.seek(toOffset: UInt64(try #require(data.firstRange(of: Data("Llama".utf8))).lowerBound))
        try handle.write(contentsOf: Data("Lemur".utf8))
        try handle.close()
        #expect(try GGUFReader.read(url).name == "Tiny Test Lemur")
        var renamed = GGUFWriter.tinyLlama()
        renamed.metadata = renamed.metadata.map { $0.0 == "general.name" ? ($0.0, .string("Replaced")) : $0 }
        try renamed.data().write(to: url, options: .atomic)
        #expect(try GGUFReader.read(url).name == "Replaced")
        try renamed.data().prefix(100).write(to: url)
        #expect(throws: SDKError.self) { try GGUFReader.read(url) }
    }

    @Test(.enabled(if: TestEnvironment.defaultModelFile != nil, "needs the default model: run scripts/setup --tests --build tests"))
    func readsTheInstalledDefaultModel() throws {
        let file = try #require(TestEnvironment.defaultModelFile, "scripts/setup --tests installs the default model")
        let metadata = try GGUFReader.read(file)
        #expect(metadata.architecture == "llama")
        #expect(metadata.quantization == "Q4_1")
        #expect((130_000_000...140_000_000).contains(metadata.parameterCount))
        #expect(metadata.contextLength == 8192)
        #expect(metadata.chatTemplate?.contains("<|im_start|>") == true)
        #expect(metadata.expectedFileSize <= metadata.fileSize)
        #expect(!metadata.fillsInTheMiddle, "SmolLM2 has no fill-in-the-middle tokens")
    }
}
