import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// `POST /v1/embeddings` over a scripted embedding engine, whose vectors and token counts are
/// known in advance, so that every field of the answer and every refusal can be checked; the real
/// model under the official clients is CLIEmbeddingServeTests' work.
@Suite struct EmbeddingRouteTests {
    /// An embedding engine whose answers are known in advance: a text of n words takes n + 2 tokens
    /// (BERT's `[CLS]` and `[SEP]`), and its vector is `[n, 1, 2, …]` before the runtime normalizes
    /// it; more than `contextLength` tokens is refused unless truncated, as a real engine does.
    struct ScriptedEmbeddingAdapter: FrameworkAdapter {
        let framework = InferenceFramework.llamaCpp
        let supportedModalities: Set<FrameworkModality> = [.textToText]
        let dimensions: Int
        let log = ScriptedLog()

        func availability() -> FrameworkAvailability { .available(detail: "scripted") }
        func estimateMemoryUsage(for model: ModelInfo) -> Int64 { 1 << 20 }
        func loadEmbeddingModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any EmbeddingService {
            log.append("load \(model.id)")
            return Service(dimensions: dimensions)
        }

        final class Service: EmbeddingService {
            let dimensions: Int
            let contextLength = 8

            init(dimensions: Int) { self.dimensions = dimensions }

            func embed(_ texts: [String], options: EmbeddingOptions, cancellation: CancellationFlag) async throws -> EngineEmbeddings {
                let counts = try texts.enumerated().map { index, text in
                    let tokens = text.split(whereSeparator: \.isWhitespace).count + 2
                    guard tokens <= contextLength || options.truncate else {
                        throw SDKError(
                            .contextTooLong, "Text \(index) has \(tokens) tokens; the model reads at most \(contextLength) per text")
                    }
                    return min(tokens, contextLength)
                }
                return EngineEmbeddings(
                    vectors: counts.map { tokens in [Float(tokens - 2)] + (1..<dimensions).map(Float.init) }, tokenCounts: counts)
            }
        }
    }

    /// A server over a runtime with the scripted engine, the embedding model `minilm` (a GGUF
    /// header saying `dimensions`, or none), a language model `chat`, and a model `raw` whose file
    /// is not GGUF, so that its dimensions are known only once it has embedded.
    static func server(dimensions: Int = 4, fileSays: Int? = 4, name: String = #function) throws -> (RunAnywhereServer, ScriptedLog) {
        let folder = try TestEnvironment.temporaryDirectory(name)
        let adapter = ScriptedEmbeddingAdapter(dimensions: dimensions)
        let frameworks = FrameworkAdapterRegistry()
        frameworks.register(adapter)
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data")),
            frameworks: frameworks
        )
        var header = GGUFWriter.tinyLlama(chatTemplate: nil)
        header.metadata.removeAll { $0.0 == "llama.embedding_length" }
        if let fileSays { header.metadata.append(("llama.embedding_length", .u32(UInt32(fileSays)))) }
        let embedding = folder.appendingPathComponent("minilm.gguf")
        let chat = folder.appendingPathComponent("chat.gguf")
        try header.write(to: embedding)
        try GGUFWriter.tinyLlama().write(to: chat)
        try runtime.registerModel(id: "minilm", name: "minilm", url: embedding, framework: .llamaCpp, modality: .embedding)
        try runtime.registerModel(id: "chat", name: "chat", url: chat, framework: .llamaCpp)
        return (OpenAIRouteTests.server(runtime), adapter.log)
    }

    static func post(_ client: some TestClientProtocol, _ body: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: "/v1/embeddings", method: .post, headers: .json, body: ByteBuffer(string: body)) { response in
            (response.status, try OpenAIRouteTests.json(response.body))
        }
    }

    /// The floats of a base64 `embedding`, read as little-endian float32 values.
    static func floats(base64 text: String) throws -> [Float] {
        let data = try #require(Data(base64Encoded: text))
        #expect(data.count % 4 == 0)
        return stride(from: 0, to: data.count, by: 4).map { offset in
            Float(bitPattern: data[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
    }

    @Test func textsGetUnitVectorsInOrderWithTheirTokens() async throws {
        let (server, _) = try Self.server()
        try await server.checkedApplication().test(.router) { client in
            let (status, body) = try await Self.post(
                client, #"{"model": "minilm", "input": ["one", "one two three", "one two"], "user": "u-1"}"#)
            #expect(status == .ok, "\(body)")
            #expect(body["object"] as? String == "list" && body["model"] as? String == "minilm")
            let data = try #require(body["data"] as? [[String: Any]])
            #expect(data.map { $0["object"] as? String } == ["embedding", "embedding", "embedding"])
            #expect(data.map { $0["index"] as? Int } == [0, 1, 2])
            let vectors = data.map { ($0["embedding"] as? [Double] ?? []).map(Float.init) }
            for (words, vector) in zip([1, 3, 2], vectors) {
                #expect(vector == EmbeddingMath.l2Normalized([Float(words), 1, 2, 3]), "the text of \(words) words")
            }
            let usage = try #require(body["usage"] as? [String: Int])
            #expect(usage == ["prompt_tokens": 3 + 5 + 4, "total_tokens": 3 + 5 + 4])
        }
    }

    @Test func base64IsTheLittleEndianFloat32sOfTheFloatAnswer() async throws {
        let (server, _) = try Self.server()
        try await server.checkedApplication().test(.router) { client in
            let (_, floats) = try await Self.post(client, #"{"input": ["a b", "a b c d"], "model": "minilm", "encoding_format": "float"}"#)
            let (status, encoded) = try await Self.post(
                client, #"{"input": ["a b", "a b c d"], "model": "minilm", "encoding_format": "base64"}"#)
            #expect(status == .ok, "\(encoded)")
            let expected = try #require(floats["data"] as? [[String: Any]]).map { ($0["embedding"] as? [Double] ?? []).map(Float.init) }
            let decoded = try #require(encoded["data"] as? [[String: Any]]).map {
                try Self.floats(base64: $0["embedding"] as? String ?? "")
            }
            #expect(decoded == expected && decoded.allSatisfy { $0.count == 4 })
            #expect(encoded["usage"] as? [String: Int] == floats["usage"] as? [String: Int])
        }
    }

    @Test func oneStringIsOneText() async throws {
        let (server, _) = try Self.server()
        try await server.checkedApplication().test(.router) { client in
            let (status, body) = try await Self.post(client, #"{"input": "just one text", "model": "minilm", "dimensions": 4}"#)
            #expect(status == .ok, "\(body)")
            #expect((body["data"] as? [[String: Any]])?.count == 1)
            #expect(body["usage"] as? [String: Int] == ["prompt_tokens": 5, "total_tokens": 5])
        }
    }

    @Test func aTextLongerThanTheModelReadsIsRefusedUnlessTruncated() async throws {
        let (server, _) = try Self.server()
        try await server.checkedApplication().test(.router) { client in
            let long = Array(repeating: "word", count: 20).joined(separator: " ")
            let (status, body) = try await Self.post(client, #"{"input": ["short", "\#(long)"], "model": "minilm"}"#)
            let error = try #require(body["error"] as? [String: Any], "\(body)")
            #expect(
                status == .badRequest && error["param"] as? String == "input" && error["code"] as? String == "context_length_exceeded",
                "\(error)")
            #expect((error["message"] as? String)?.contains("Text 1 has 22 tokens") == true, "the SDK's message: \(error)")
            let (cut, truncated) = try await Self.post(client, #"{"input": ["short", "\#(long)"], "model": "minilm", "truncate": true}"#)
            #expect(cut == .ok, "\(truncated)")
            #expect(truncated["usage"] as? [String: Int] == ["prompt_tokens": 3 + 8, "total_tokens": 3 + 8], "cut to the model's 8 tokens")
        }
    }

    @Test(arguments: [
        (#"{"input": [], "model": "minilm"}"#, "input", "empty array"),
        (#"{"input": "", "model": "minilm"}"#, "input", "empty string"),
        (#"{"input": ["a", ""], "model": "minilm"}"#, "input", "an empty text in the list"),
        (#"{"input": [1, 2, 3], "model": "minilm"}"#, "input", "token ids"),
        (#"{"input": [[1, 2], [3]], "model": "minilm"}"#, "input", "lists of token ids"),
        (#"{"input": 5, "model": "minilm"}"#, "input", "a number"),
        (#"{"input": null, "model": "minilm"}"#, "input", "null"),
        (#"{"input": ["a", 1], "model": "minilm"}"#, "input", "a mixed list"),
        (#"{"model": "minilm"}"#, "input", "no input"),
        (#"{"input": "a", "model": "minilm", "encoding_format": "hex"}"#, "encoding_format", "an unknown encoding"),
        (#"{"input": "a", "model": "minilm", "dimensions": 0}"#, "dimensions", "zero dimensions"),
        (#"{"input": "a", "model": "minilm", "dimensions": 2}"#, "dimensions", "fewer dimensions than the model's"),
        (#"{"input": "a", "model": "minilm", "dimensions": 1.5}"#, "dimensions", "fractional dimensions"),
        (#"{"input": "a", "model": "minilm", "truncate": "yes"}"#, "truncate", "truncate as text"),
        (#"{"input": "a", "model": "chat"}"#, "model", "a language model"),
    ])
    func badRequestsAreRefusedBeforeAnyWork(body: String, param: String, what: String) async throws {
        let (server, log) = try Self.server(name: "bad-\(what)")
        try await server.checkedApplication().test(.router) { client in
            let (status, answer) = try await Self.post(client, body)
            let error = try #require(answer["error"] as? [String: Any], "\(what): \(answer)")
            #expect(status == .badRequest && error["type"] as? String == "invalid_request_error", "\(what): \(status) \(error)")
            #expect(error["param"] as? String == param, "\(what): \(error)")
            #expect(log.all.isEmpty, "\(what): the model was loaded for a request refused")
            let (next, _) = try await Self.post(client, #"{"input": "still here", "model": "minilm"}"#)
            #expect(next == .ok, "\(what): the server answers the next request")
        }
    }

    @Test func tooManyTextsAreRefused() async throws {
        let (server, log) = try Self.server()
        try await server.checkedApplication().test(.router) { client in
            let limit = 2048  // OpenAI's
            let texts = Array(repeating: "\"a\"", count: limit + 1).joined(separator: ",")
            let (status, answer) = try await Self.post(client, #"{"input": [\#(texts)], "model": "minilm"}"#)
            let error = try #require(answer["error"] as? [String: Any], "\(answer)")
            #expect(
                status == .badRequest && error["param"] as? String == "input" && (error["message"] as? String)?.contains("2048") == true,
                "\(error)")
            #expect(log.all.isEmpty)
            let most = Array(repeating: "\"a\"", count: limit).joined(separator: ",")
            let (accepted, body) = try await Self.post(client, #"{"input": [\#(most)], "model": "minilm"}"#)
            #expect(accepted == .ok && (body["data"] as? [Any])?.count == limit)
        }
    }

    /// ollama's /api/embed without texts loads the model, or with keep_alive 0 unloads it, as ollama does.
    @Test func ollamasEmbedWithoutTextsLoadsOrUnloads() async throws {
        let (server, _) = try Self.server()
        try await server.checkedApplication().test(.router) { client in
            for (body, loaded) in [(#"{"model": "minilm"}"#, true), (#"{"model": "minilm", "input": [], "keep_alive": 0}"#, false)] {
                try await client.execute(uri: "/api/embed", method: .post, headers: .json, body: ByteBuffer(string: body)) { response in
                    let answer = try OpenAIRouteTests.json(response.body)
                    #expect(response.status == .ok && (answer["embeddings"] as? [Any])?.isEmpty == true, "\(body): \(answer)")
                }
                #expect(await server.runtime.loadedModels().contains { $0.modelId == "minilm" } == loaded, "\(body)")
            }
        }
    }

    @Test func anUnknownModelIsNotFound() async throws {
        let (server, _) = try Self.server()
        try await server.checkedApplication().test(.router) { client in
            let (status, answer) = try await Self.post(client, #"{"input": "a", "model": "no-such-model"}"#)
            let error = try #require(answer["error"] as? [String: Any], "\(answer)")
            #expect(
                status == .notFound && error["param"] as? String == "model" && error["code"] as? String == "model_not_found", "\(error)")
        }
    }

    /// Where the model's file does not say its dimensions, the engine's answer decides.
    @Test func dimensionsAreCheckedAgainstTheEnginesWhenTheFileDoesNotSay() async throws {
        let (server, log) = try Self.server(dimensions: 4, fileSays: nil)
        try await server.checkedApplication().test(.router) { client in
            let (status, answer) = try await Self.post(client, #"{"input": "a", "model": "minilm", "dimensions": 3}"#)
            let error = try #require(answer["error"] as? [String: Any], "\(answer)")
            #expect(status == .badRequest && error["param"] as? String == "dimensions", "\(error)")
            #expect((error["message"] as? String)?.contains("4-dimensional") == true, "\(error)")
            #expect(log.all == ["load minilm"])
            let (same, _) = try await Self.post(client, #"{"input": "a", "model": "minilm", "dimensions": 4}"#)
            #expect(same == .ok)
        }
    }
}
