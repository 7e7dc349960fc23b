import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

@Suite(.inProcessLane) struct ModelCatalogTests {
    func makeRuntime(_ folder: URL) -> RunAnywhereRuntime {
        RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data")
            ))
    }

    @Test func builtInCatalogHasTheDefaultAndTheSpecModels() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = makeRuntime(folder).availableModels()
        let ids = Set(models.map(\.id))
        for id in [
            RunAnywhere.defaultModelID, "smollm2-360m-q8-0", "qwen-2.5-0.5b-instruct-q6-k", "llama-3.2-1b-instruct-q6-k",
            "smollm2-1.7b-instruct-q6-k-l", "qwen-2.5-1.5b-instruct-q6-k", "lfm2-350m-q4-k-m", "lfm2-350m-q8-0",
        ] {
            #expect(ids.contains(id), "catalog lacks \(id)")
        }
        for model in models where model.category == .language && model.id != RunAnywhere.defaultModelID && !model.isTestFixture {
            #expect(model.downloadURL?.scheme == "https")
            #expect(!model.isDownloaded, "nothing is downloaded into an empty folder")
            #expect(model.framework == .llamaCpp && model.format == .gguf)
        }
        for id in ["whisper-tiny.en", "whisper-base.en", "silero-vad", "piper-en_US-joe-medium", "espeak-ng-en-us"] {
            #expect(ids.contains(id), "catalog lacks \(id)")
        }
        #expect(models.filter { $0.category == .speechRecognition }.allSatisfy { $0.framework == .whisperCpp && !$0.isDownloaded })
        let embedding = try #require(models.first { $0.id == SDKConstants.Models.defaultEmbeddingModelID })
        #expect(
            embedding.category == .embedding && embedding.framework == .llamaCpp && embedding.format == .gguf && !embedding.isDownloaded)
        #expect(
            embedding.localPath?.path.hasSuffix("/models/all-minilm-l6-v2/all-minilm-l6-v2.gguf") == true
                && embedding.license == "Apache-2.0")
        for id in ["bge-small-en-v1.5-f16", "e5-small-v2-q8-0", "nomic-embed-text-v1.5-q8-0"] {
            let larger = try #require(models.first { $0.id == id }, "catalog lacks \(id)")
            #expect(
                larger.category == .embedding && larger.framework == .llamaCpp && larger.downloadURL?.scheme == "https"
                    && !larger.isDownloaded)
        }
        // An embedding model is never offered for chat: asked for as a language model, it is a clear error.
        let refused = try #require(throws: SDKError.self) { try makeRuntime(folder).model(id: embedding.id, category: .language) }
        #expect(refused.code == .modelIncompatible && refused.message.contains("not a language model"), "\(refused.message)")
    }

    @Test func unknownAndUnsafeIDs() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = makeRuntime(folder)
        #expect((try #require(throws: SDKError.self) { try runtime.model(id: "no-such-model") }).code == .modelNotFound)
        #expect((try #require(throws: SDKError.self) { try runtime.model(id: "../../etc/passwd") }).code == .invalidInput)
        // ollama's names with a tag are names, only not here: clients offer to pull on a 404.
        for id in ["llama3.2:3b", "library/qwen3:8b", "registry.ollama.ai/library/qwen3:8b", "user/model"] {
            #expect((try #require(throws: SDKError.self) { try runtime.model(id: id) }).code == .modelNotFound, "\(id)")
        }
        for id in ["a:b:c", "x:", "../x:v1", "x:../v1", "a/b/c/d", "a//b", "a:b/c"] {
            #expect((try #require(throws: SDKError.self) { try runtime.model(id: id) }).code == .invalidInput, "\(id)")
        }
    }

    @Test func registeredModelsPersistAcrossRuntimes() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try makeRuntime(folder).registerModel(
            name: "My Model", url: URL(string: "https://example.com/files/My-Model.Q8_0.gguf?download=true")!, framework: .llamaCpp,
            memoryRequirement: 123
        )
        #expect(model.id == "my-model.q8_0")
        #expect(model.format == .gguf)
        #expect(model.source == .local)
        #expect(model.localPath?.lastPathComponent == "My-Model.Q8_0.gguf")
        let reloaded = try makeRuntime(folder).model(id: "my-model.q8_0")
        #expect(reloaded == model)
        let duplicate = try #require(throws: SDKError.self) {
            try makeRuntime(folder).registerModel(
                id: "my-model.q8_0", name: "Again", url: URL(string: "https://example.com/a.gguf")!, framework: .llamaCpp)
        }
        #expect(duplicate.code == .modelAlreadyExists)
        let badScheme = try #require(throws: SDKError.self) {
            try makeRuntime(folder).registerModel(name: "FTP", url: URL(string: "ftp://example.com/a.gguf")!, framework: .llamaCpp)
        }
        #expect(badScheme.message.contains("http, https or file"))
    }

    /// A model made from another with defaults keeps them across runtimes, over its base's; a
    /// generation that sets no options gets them, one that sets its own does not.
    @Test func aModelsDefaultsAreKeptAndApplied() async throws {
        let runtime = try scriptedRuntime()
        var defaults = ModelDefaults()
        defaults.maxTokens = 2
        defaults.systemPrompt = "Be brief."
        defaults.stopSequences = ["<end>"]
        let brief = try runtime.copyModel("scripted", to: "brief", defaults: defaults, license: "MIT")
        var more = ModelDefaults()
        more.maxTokens = 3
        let derived = try runtime.copyModel("brief", to: "derived", defaults: more)
        let reread = RunAnywhereRuntime(configuration: runtime.configuration, frameworks: runtime.frameworks)
        let again = try reread.model(id: "brief")
        #expect(again.defaults == defaults && again.license == "MIT" && brief.defaults == defaults)
        #expect(
            derived.defaults?.maxTokens == 3 && derived.defaults?.systemPrompt == "Be brief."
                && derived.defaults?.stopSequences == ["<end>"])

        let question = Context(messages: [Message(role: .user, content: "one two three four")])
        let load = ModelLoadOptions()
        let bounded = try await runtime.generateEvents(continuing: question, options: nil, model: "brief", loadOptions: load).result()
        #expect(bounded.text == "one two" && bounded.stopReason == .length)
        let own = try await runtime.generateEvents(
            continuing: question, options: LLMGenerationOptions(maxTokens: 10), model: "brief", loadOptions: load
        ).result()
        #expect(own.text == "one two three four", "options given are the request's own")
        let plain = try await runtime.generateEvents(continuing: question, options: nil, model: "scripted", loadOptions: load).result()
        #expect(bounded.inputTokens == plain.inputTokens + 3, "the line \"system: Be brief.\" is in the prompt")

        // A voice pipeline answering with it: its settings over the pipeline's, its system prompt
        // in place of the pipeline's own unless the caller chose one.
        var voice = ModularPipelineConfig(llmModelId: "brief")
        voice.apply(brief.defaults, keepingSystemPrompt: false)
        #expect(voice.generationOptions.maxTokens == 2 && voice.generationOptions.stopSequences == ["<end>"])
        #expect(voice.generationOptions.temperature == ModularPipelineConfig().generationOptions.temperature)
        let spoken = try await runtime.generateEvents(
            continuing: Context(systemPrompt: voice.systemPrompt, messages: question.messages), options: voice.generationOptions,
            model: "brief", loadOptions: load
        ).result()
        #expect(spoken.text == "one two" && spoken.inputTokens == bounded.inputTokens, "\(spoken.inputTokens) vs \(bounded.inputTokens)")
        var chosen = ModularPipelineConfig(systemPrompt: "Mine.")
        chosen.apply(brief.defaults, keepingSystemPrompt: true)
        #expect(chosen.systemPrompt == "Mine." && chosen.generationOptions.maxTokens == 2)

        var wrong = ModelDefaults()
        wrong.temperature = 9
        let refused = try #require(throws: SDKError.self) { try runtime.copyModel("scripted", to: "hot", defaults: wrong) }
        #expect(refused.message.contains("temperature") && !runtime.availableModels().contains { $0.id == "hot" })
    }

    @Test func concurrentRegistrationsAreAllKept() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try makeRuntime(folder).registerModel(
                        id: "model-\(index)", name: "M\(index)", url: URL(string: "https://e.com/m\(index).gguf")!, framework: .llamaCpp)
                }
            }
            try await group.waitForAll()
        }
        let ids = Set(makeRuntime(folder).availableModels().map(\.id))
        #expect((0..<16).allSatisfy { ids.contains("model-\($0)") })
    }

    /// A runtime keeps the registry it read until the file changes: what another process (here
    /// another runtime) adds, changes or removes, or writes over the file by hand, shows at once.
    @Test func changesByOthersShowAtOnce() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let serving = makeRuntime(folder)
        #expect(!serving.availableModels().contains { $0.id == "theirs" })
        let other = makeRuntime(folder)
        try other.registerModel(id: "theirs", name: "Theirs", url: URL(string: "https://e.com/t.gguf")!, framework: .llamaCpp)
        #expect(try serving.model(id: "theirs").name == "Theirs")
        let registry = folder.appendingPathComponent("models/registry.json")
        let renamed = String(decoding: try Data(contentsOf: registry), as: UTF8.self).replacingOccurrences(
            of: "\"Theirs\"", with: "\"Edited by hand\"")
        let handle = try FileHandle(forWritingTo: registry)  // in place: the same file
        try handle.write(contentsOf: Data(renamed.utf8))
        try handle.close()
        #expect(try serving.model(id: "theirs").name == "Edited by hand")
        try other.catalog.remove(id: "theirs")
        #expect(!serving.availableModels().contains { $0.id == "theirs" })
    }

    @Test func corruptRegistryIsMovedAsideNotLost() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = folder.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: models.appendingPathComponent("registry.json"))
        let runtime = makeRuntime(folder)
        #expect(runtime.availableModels().contains { $0.id == RunAnywhere.defaultModelID })
        let files = try FileManager.default.contentsOfDirectory(atPath: models.path)
        let aside = try #require(files.first { $0.hasPrefix("registry.json.corrupt-") })
        #expect(String(decoding: try Data(contentsOf: models.appendingPathComponent(aside)), as: UTF8.self) == "{ not json")
        try runtime.registerModel(id: "after", name: "After", url: URL(string: "https://e.com/a.gguf")!, framework: .llamaCpp)
        #expect(try runtime.model(id: "after").name == "After")
    }

    @Test func importCopiesAValidGGUFAndReadsItsMetadata() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("Tiny Model.gguf")
        try GGUFWriter.tinyLlama().write(to: source)
        let runtime = makeRuntime(folder)
        let model = try runtime.importModel(at: source)
        #expect(model.id == "tiny-model")
        #expect(model.name == "Tiny Test Llama")
        #expect(model.contextLength == 512)
        #expect(model.license == "MIT")
        #expect(model.isDownloaded)
        #expect(model.localPath?.path.hasPrefix(folder.appendingPathComponent("models/tiny-model").path) == true)
        #expect(try runtime.metadata(of: model)?.architecture == "llama")
        #expect(FileManager.default.fileExists(atPath: source.path), "the source is copied, not moved")
        #expect((try #require(throws: SDKError.self) { try runtime.importModel(at: source) }).code == .modelAlreadyExists)
        #expect(try runtime.importModel(at: source, id: "second", name: "Second").name == "Second")
    }

    @Test func importTellsADiffusionCheckpointFromALanguageModel() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("tiny-sd.gguf")
        // stable-diffusion.cpp's checkpoint names; no general.architecture, as its converter writes them.
        try GGUFWriter(tensors: [
            .init(name: "model.diffusion_model.input_blocks.0.0.weight", shape: [4, 4], type: 0, bytes: 64),
            .init(name: "first_stage_model.decoder.conv_in.weight", shape: [4], type: 0, bytes: 16),
        ]).write(to: source)
        let model = try makeRuntime(folder).importModel(at: source)
        #expect(model.category == .imageGeneration && model.framework == .stableDiffusionCpp && model.contextLength == nil)
        #expect(try GGUFReader.read(source).hasDiffusionModelTensors)
        #expect(try !GGUFReader.parse(GGUFWriter.tinyLlama().data(), name: "tiny").hasDiffusionModelTensors)
    }

    @Test func importTellsEmbeddingAndRerankingModelsByTheirPooling() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = makeRuntime(folder)
        for (pooling, category) in [(1 as UInt32, ModelCategory.embedding), (4, .reranking)] {
            let source = folder.appendingPathComponent("encoder-\(pooling).gguf")
            var writer = GGUFWriter.tinyLlama(chatTemplate: nil)
            writer.metadata[0] = ("general.architecture", .string("bert"))
            writer.metadata.append(("bert.pooling_type", .u32(pooling)))
            try writer.write(to: source)
            let model = try runtime.importModel(at: source)
            #expect(model.category == category && model.framework == .llamaCpp, "pooling \(pooling)")
        }
        let language = folder.appendingPathComponent("language.gguf")
        try GGUFWriter.tinyLlama().write(to: language)
        #expect(try runtime.importModel(at: language).category == .language, "a language model names no pooling")
    }

    /// A bad file is refused with a clear error and leaves nothing behind.
    @Test func importRefusesBadFilesAndLeavesNothing() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = makeRuntime(folder)
        let full = GGUFWriter.tinyLlama().data()
        let cases: [(String, Data, String)] = [
            ("empty.gguf", Data(), "empty"),
            ("notes.gguf", Data("just some text".utf8), "magic"),
            ("cut.gguf", full.prefix(full.count - 10), "truncated"),
            ("projector.gguf", GGUFWriter(metadata: [("general.architecture", .string("clip"))]).data(), "projector"),
        ]
        for (name, data, expected) in cases {
            let url = folder.appendingPathComponent(name)
            try data.write(to: url)
            let error = try #require(throws: SDKError.self, "\(name)") { try runtime.importModel(at: url) }
            #expect(error.message.contains(expected), "\(name): \(error.message)")
        }
        #expect(
            (try #require(throws: SDKError.self) { try runtime.importModel(at: folder.appendingPathComponent("missing.gguf")) }).code
                == .fileNotFound)
        #expect(
            (try #require(throws: SDKError.self) { try runtime.importModel(at: folder.appendingPathComponent("empty.gguf"), id: "a/b") })
                .code == .invalidModelFormat)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("models").path)) ?? []
        #expect(left.allSatisfy { $0.hasPrefix(".") || $0 == "registry.json" }, "left behind: \(left)")
        #expect(runtime.availableModels().allSatisfy { $0.source == .remote })
    }

    @Test func derivedIDsAreSafe() throws {
        #expect(try RunAnywhereRuntime.derivedID(from: "SmolLM2 135M (v2).Q4_K_M.gguf") == "smollm2-135m--v2-.q4_k_m")
        #expect(try RunAnywhereRuntime.derivedID(from: "..model...gguf") == "model.")
        #expect(throws: SDKError.self) { try RunAnywhereRuntime.derivedID(from: "...gguf") }
    }
}
