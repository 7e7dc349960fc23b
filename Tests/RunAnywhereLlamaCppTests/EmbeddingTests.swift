import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Text embeddings with the default embedding model (all-MiniLM-L6-v2 on llama.cpp's BERT),
/// reached through the model cache.
extension LlamaTests {
    @Suite(.enabled(if: EmbeddingModel.installed, "needs the default embedding model: run scripts/setup --tests"))
    struct Embeddings {
        static let food = "A man is eating food."
        static let bread = "A man is eating a piece of bread."
        static let baby = "The girl is carrying a baby."

        /// sentence-transformers' all-MiniLM-L6-v2 on the same weights (BERT in float64, mean
        /// pooling, L2 normalization): each sentence's tokens, the first values of its vector,
        /// and the cosines between the three whole vectors.
        enum Reference {
            static let tokens = [food: 8, bread: 11, baby: 9]
            static let leading: [String: [Float]] = [
                food: [
                    0.033242, 0.004406, -0.006277, 0.048379, -0.138702, -0.033617, 0.101128, -0.054385,
                    -0.043248, -0.039941, 0.007786, -0.012749, -0.066830, -0.017387, 0.047451, -0.057724,
                ],
                bread: [
                    0.052518, 0.055241, -0.011188, -0.005745, -0.127208, -0.022252, 0.076879, 0.013185,
                    -0.025426, 0.065538, -0.016724, -0.041409, -0.087101, -0.039786, 0.000449, -0.058747,
                ],
                baby: [
                    -0.036309, -0.035653, -0.027223, 0.038320, 0.070778, -0.016580, 0.061681, 0.054438,
                    0.014356, 0.074470, 0.096962, -0.037060, 0.026999, -0.003523, -0.013980, 0.066443,
                ],
            ]
            static let foodBread = 0.755337
            static let foodBaby = -0.104958
            static let breadBaby = -0.061017
        }

        func runtime() async throws -> RunAnywhereRuntime { try await EmbeddingModel.runtime.value }

        @Test func vectorsHaveTheModelsDimensionsUnitLengthAndTokenCounts() async throws {
            let result = try await runtime().embed([Self.food, Self.bread, Self.baby], options: EmbeddingOptions(threads: 1))
            #expect(result.modelId == SDKConstants.Models.defaultEmbeddingModelID)
            #expect(result.dimensions == 384 && result.embeddings.count == 3)
            for vector in result.embeddings {
                #expect(vector.count == 384)
                #expect(abs(EmbeddingMath.norm(vector) - 1) < 1e-5)
            }
            #expect(result.tokenCounts == [Self.food, Self.bread, Self.baby].map { Reference.tokens[$0]! }, "[CLS] and [SEP] counted")
            #expect(result.totalTokens == result.tokenCounts.reduce(0, +))
            #expect(result.latencyMs > 0)
        }

        @Test func vectorsMatchSentenceTransformers() async throws {
            let sentences = [Self.food, Self.bread, Self.baby]
            let result = try await runtime().embed(sentences, options: EmbeddingOptions(threads: 1))
            for (sentence, vector) in zip(sentences, result.embeddings) {
                let reference = try #require(Reference.leading[sentence])
                let leading = Array(vector.prefix(reference.count))
                #expect(try EmbeddingMath.cosineSimilarity(leading, reference) >= 0.99, "\(sentence): \(leading)")
                #expect(zip(leading, reference).allSatisfy { abs($0 - $1) < 0.01 }, "\(sentence): \(leading) vs \(reference)")
            }
            let (food, bread, baby) = (result.embeddings[0], result.embeddings[1], result.embeddings[2])
            #expect(abs(try EmbeddingMath.cosineSimilarity(food, bread) - Reference.foodBread) < 0.01)
            #expect(abs(try EmbeddingMath.cosineSimilarity(food, baby) - Reference.foodBaby) < 0.01)
            #expect(abs(try EmbeddingMath.cosineSimilarity(bread, baby) - Reference.breadBaby) < 0.01)
        }

        @Test func closeSentencesAreCloserThanUnrelatedOnes() async throws {
            let vectors = try await runtime().embed([Self.food, Self.bread, Self.baby], options: EmbeddingOptions(threads: 1)).embeddings
            let close = try EmbeddingMath.cosineSimilarity(vectors[0], vectors[1])
            #expect(close > (try EmbeddingMath.cosineSimilarity(vectors[0], vectors[2])))
            #expect(close > (try EmbeddingMath.cosineSimilarity(vectors[1], vectors[2])))
        }

        /// Packed texts share a call's attention (masked to their own sequence), so a text's vector
        /// is the same alone and in a batch up to float rounding, not bit for bit.
        @Test func aTextGetsTheSameVectorAloneAndInABatch() async throws {
            let runtime = try await runtime()
            let batch = (0..<8).map { "Sentence number \($0) of a batch, about \(["cats", "trains", "rain", "tea"][$0 % 4])." }
            let together = try await runtime.embed(batch, options: EmbeddingOptions(threads: 1))
            for (text, vector) in zip(batch, together.embeddings) {
                let alone = try await runtime.embed(text, options: EmbeddingOptions(threads: 1))
                #expect(try EmbeddingMath.cosineSimilarity(alone.embeddings[0], vector) > 0.9999, "\(text)")
                #expect(alone.tokenCounts[0] == together.tokenCounts[batch.firstIndex(of: text)!])
            }
            // More texts than one call of the model's context holds are split across calls.
            let many = (0..<120).map { "Text \($0): the quick brown fox jumps over the lazy dog." }
            let split = try await runtime.embed(many, options: EmbeddingOptions(threads: 1))
            #expect(split.totalTokens > 512 && split.embeddings.count == many.count)
            for index in [0, 59, 119] {
                let alone = try await runtime.embed(many[index], options: EmbeddingOptions(threads: 1))
                #expect(try EmbeddingMath.cosineSimilarity(alone.embeddings[0], split.embeddings[index]) > 0.9999, "text \(index)")
            }
        }

        @Test func aTooLongTextIsRefusedUnlessTruncationIsAsked() async throws {
            let runtime = try await runtime()
            let long = String(repeating: "word ", count: 600)  // 600 tokens and [CLS], [SEP]
            let refused = await #expect(throws: SDKError.self) {
                try await runtime.embed(["Short.", long], options: EmbeddingOptions(threads: 1))
            }
            #expect(refused?.code == .contextTooLong)
            #expect(
                refused?.message.contains("Text 1 has 602 tokens") == true && refused?.message.contains("at most 512") == true,
                "\(refused?.message ?? "")")
            let truncated = try await runtime.embed(["Short.", long], options: EmbeddingOptions(truncate: true, threads: 1))
            #expect(truncated.tokenCounts[1] == 512)
            // The same as a text that fits exactly: its first 510 words between [CLS] and [SEP].
            let fitting = try await runtime.embed(String(repeating: "word ", count: 510), options: EmbeddingOptions(threads: 1))
            #expect(fitting.tokenCounts == [512])
            #expect(try EmbeddingMath.cosineSimilarity(fitting.embeddings[0], truncated.embeddings[1]) > 0.9999)
        }

        @Test func badInputIsRefusedBeforeAnyWork() async throws {
            let runtime = try await EmbeddingModel.makeEmbeddingRuntime()
            let none = await #expect(throws: SDKError.self) { try await runtime.embed([String]()) }
            #expect(none?.code == .emptyInput)
            let empty = await #expect(throws: SDKError.self) { try await runtime.embed(["Fine.", ""]) }
            #expect(empty?.code == .emptyInput && empty?.message.contains("Text 1 is empty") == true, "\(empty?.message ?? "")")
            let threads = await #expect(throws: SDKError.self) { try await runtime.embed("Hi", options: EmbeddingOptions(threads: 0)) }
            #expect(threads?.code == .invalidConfiguration)
            let language = await #expect(throws: SDKError.self) { try await runtime.embed("Hi", model: RunAnywhere.defaultModelID) }
            #expect(
                language?.code == .modelIncompatible && language?.message.contains("is a language model, not an embedding model") == true,
                "\(language?.message ?? "")")
            // The other way round: an embedding model's GGUF would load into llama.cpp and write noise.
            let writing = await #expect(throws: SDKError.self) {
                _ = try await runtime.generateEvents(
                    "Hi", context: nil, options: LLMGenerationOptions(maxTokens: 4), model: SDKConstants.Models.defaultEmbeddingModelID,
                    loadOptions: ModelLoadOptions(threads: 1))
            }
            #expect(
                writing?.code == .modelIncompatible && writing?.message.contains("is an embedding model, not a language model") == true,
                "\(writing?.message ?? "")")
            let unknown = await #expect(throws: SDKError.self) { try await runtime.embed("Hi", model: "no-such-model") }
            #expect(unknown?.code == .modelNotFound)
            #expect(await runtime.loadedModels().isEmpty, "nothing was loaded for the refusals")
        }

        @Test func unnormalizedVectorsAreTheModelsMeanPooling() async throws {
            let runtime = try await runtime()
            let raw = try await runtime.embed(Self.food, options: EmbeddingOptions(normalize: false, threads: 1)).embeddings[0]
            let normalized = try await runtime.embed(Self.food, options: EmbeddingOptions(threads: 1)).embeddings[0]
            #expect(abs(EmbeddingMath.norm(raw) - 1) > 0.01, "the pooled vector is not unit length by itself")
            #expect(try EmbeddingMath.cosineSimilarity(raw, normalized) > 0.9999)
            #expect(zip(EmbeddingMath.l2Normalized(raw), normalized).allSatisfy { abs($0 - $1) < 1e-6 })
        }

        /// A GGUF that names no pooling, such as a decoder language model added as an embedding
        /// model, is mean-pooled by llama.cpp (its causal KV memory cleared between calls).
        @Test func aLanguageModelAddedAsAnEmbeddingModelIsMeanPooled() async throws {
            let runtime = try await EmbeddingModel.makeEmbeddingRuntime(privateModels: true)
            defer { try? FileManager.default.removeItem(at: runtime.configuration.modelsDirectory) }
            let file = try #require(TestEnvironment.defaultModelFile)
            let model = try runtime.registerModel(
                id: "smollm2-as-embedding", name: "SmolLM2 as an embedding model", url: file, framework: .llamaCpp, modality: .embedding)
            let options = EmbeddingOptions(threads: 1)
            let loadOptions = ModelLoadOptions(contextLength: 256, threads: 1)
            let first = try await runtime.embed([Self.food, Self.bread], model: model.id, options: options, loadOptions: loadOptions)
            #expect(first.dimensions == 576 && first.embeddings.allSatisfy { abs(EmbeddingMath.norm($0) - 1) < 1e-5 })
            let again = try await runtime.embed(Self.bread, model: model.id, options: options, loadOptions: loadOptions)
            #expect(
                try EmbeddingMath.cosineSimilarity(first.embeddings[1], again.embeddings[0]) > 0.9999,
                "nothing of the first call stays in the memory")
            await runtime.unloadAllModels()
        }

        /// The pooling comes from the GGUF: a copy without `bert.pooling_type` is mean-pooled (the
        /// same vectors as all-MiniLM-L6-v2's own mean pooling), one that says rank (a reranker) or
        /// a type llama.cpp does not know is refused before it loads.
        @Test func thePoolingIsTheFilesOwn() async throws {
            let runtime = try await EmbeddingModel.makeEmbeddingRuntime(privateModels: true)
            let source = try #require(TestEnvironment.embeddingModelFile)
            let folder = runtime.configuration.modelsDirectory
            defer { try? FileManager.default.removeItem(at: folder) }
            let bare = folder.appendingPathComponent("no-pooling.gguf")
            try GGUFEditor.copy(source, to: bare, removing: ["bert.pooling_type"])
            func withPooling(_ value: UInt32, _ name: String) throws -> URL {
                var data = try Data(contentsOf: source)
                let key = try #require(data.range(of: Data("bert.pooling_type".utf8)))
                let at = key.upperBound + 4  // after the key, its value type (u32); then the value
                #expect(data[at..<at + 4] == Data([1, 0, 0, 0]), "mean pooling in the original")
                data.replaceSubrange(at..<at + 4, with: withUnsafeBytes(of: value.littleEndian) { Data($0) })
                let url = folder.appendingPathComponent(name)
                try data.write(to: url)
                return url
            }
            let files = [
                ("original", source), ("no-pooling", bare), ("rank", try withPooling(4, "rank.gguf")),
                ("unknown", try withPooling(9, "unknown.gguf")),
            ]
            for (id, url) in files {
                _ = try runtime.registerModel(id: id, name: id, url: url, framework: .llamaCpp, modality: .embedding)
            }
            let options = EmbeddingOptions(threads: 1)
            let reference = try await runtime.embed(Self.food, model: "original", options: options).embeddings[0]
            let bareVector = try await runtime.embed(Self.food, model: "no-pooling", options: options).embeddings[0]
            #expect(try EmbeddingMath.cosineSimilarity(reference, bareVector) > 0.9999)
            let rank = await #expect(throws: SDKError.self) { try await runtime.embed(Self.food, model: "rank", options: options) }
            #expect(rank?.code == .modelIncompatible && rank?.message.contains("is a reranker") == true, "\(rank?.message ?? "")")
            let unknown = await #expect(throws: SDKError.self) { try await runtime.embed(Self.food, model: "unknown", options: options) }
            #expect(
                unknown?.code == .invalidModelFormat && unknown?.message.contains("pooling type 9") == true, "\(unknown?.message ?? "")")
            await runtime.unloadAllModels()
        }

        @Test func theModelIsCachedHeldAndUnloadedLikeEveryModel() async throws {
            let runtime = try await EmbeddingModel.makeEmbeddingRuntime()
            let id = SDKConstants.Models.defaultEmbeddingModelID
            let handle = try await runtime.hold(id, options: ModelLoadOptions(threads: 1))
            let held = try await handle.embed([Self.food, Self.baby], options: EmbeddingOptions(threads: 1))
            #expect(held.embeddings.count == 2 && held.modelId == id)
            let status = try #require(await runtime.loadedModels().first { $0.modelId == id })
            #expect(status.state == .loaded && status.activeRequests == 1 && status.memoryBytes > 0)
            let speech = await #expect(throws: SDKError.self) {
                try await handle.transcribe(AudioSamples(samples: [0], sampleRate: 16_000))
            }
            #expect(
                speech?.code == .modelIncompatible && speech?.message.contains("is an embedding model") == true, "\(speech?.message ?? "")")
            await handle.release()
            #expect(await runtime.loadedModels().first { $0.modelId == id }?.activeRequests == 0)
            await runtime.unloadModel(id: id)
            #expect(await runtime.loadedModels().isEmpty)
        }

        @Test func cancellingTheRequestStopsTheEngine() async throws {
            let runtime = try await runtime()
            let texts = (0..<400).map { "Text \($0) to embed while the request is cancelled." }
            let task = Task { try await runtime.embed(texts, options: EmbeddingOptions(threads: 1)) }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(
                try await runtime.embed("Still here?", options: EmbeddingOptions(threads: 1)).embeddings.count == 1, "the model still runs")
        }
    }
}

/// The default embedding model as scripts/setup installs it.
enum EmbeddingModel {
    /// Whether it is installed with llama.cpp and the default language model.
    static var installed: Bool { TestEnvironment.engineInstalled && TestEnvironment.embeddingModelFile != nil }

    /// A runtime over the installed models with llama.cpp registered; with `privateModels`, over
    /// a new models folder instead (for tests that add models), the installed files still named by path.
    static func makeEmbeddingRuntime(privateModels: Bool = false) async throws -> RunAnywhereRuntime {
        try await makeRuntime(
            load: false, models: privateModels ? TestEnvironment.temporaryDirectory("models") : TestEnvironment.installedModelsDirectory)
    }

    /// One runtime shared by the tests that only embed.
    static let runtime = Task { try await makeEmbeddingRuntime() }
}
