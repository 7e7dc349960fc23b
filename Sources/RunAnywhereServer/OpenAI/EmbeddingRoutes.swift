import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/embeddings`, OpenAI's Embeddings API on the local embedding engine: `input` (a text,
/// or up to 2048 texts, none empty), `model` (an embedding model id; by default
/// ``RunAnywhere/SDKConstants/Models/defaultEmbeddingModelID``), `encoding_format` `float` (the default) or `base64`
/// (each vector's float32 values, little-endian, as OpenAI sends them), `dimensions` (accepted
/// only when it is the model's own: a model cannot shorten its vectors), `user` (accepted, no
/// effect), and RunAnywhere's own `truncate` (cut a text longer than the model reads instead of
/// refusing it) and `keep_alive`. Vectors are L2-normalized. Token-id arrays are refused: the ids a
/// client such as langchain-openai counts with OpenAI's tokenizer mean other words to a local model.
struct EmbeddingRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    /// The most texts one request may embed, OpenAI's limit.
    static let maxInputs = 2048

    struct EmbeddingRequest: Decodable, Sendable {
        let input: EmbeddingInput
        let model: String?
        let encodingFormat: String?
        @NumberField var dimensions: Int?
        let user: String?
        let truncate: Bool?
        let keepAlive: KeepAliveField?
        enum CodingKeys: String, CodingKey {
            case input, model, encodingFormat = "encoding_format", dimensions, user, truncate, keepAlive = "keep_alive"
        }
    }

    /// The texts of `input`: one text or a list of them. Token ids (a list of integers, or a list
    /// of such lists) are refused with a 400 that says why.
    struct EmbeddingInput: Decodable, Sendable {
        let texts: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let texts = try Self.texts(in: container) {
                self.texts = texts
            } else if (try? container.decode([Int].self)) != nil || (try? container.decode([[Int]].self)) != nil {
                throw APIError(
                    .badRequest,
                    "input as token ids is not supported: send the texts. Ids counted with OpenAI's tokenizer are other words to a local model "
                        + "(langchain-openai's OpenAIEmbeddings sends them unless check_embedding_ctx_length=False)",
                    param: "input", code: "unsupported_input"
                )
            } else {
                throw APIError(.badRequest, "input must be a string or an array of strings", param: "input")
            }
        }

        /// The texts `container` holds, one string or an array of them; nil when it holds neither.
        static func texts(in container: any SingleValueDecodingContainer) throws -> [String]? {
            if let text = try container.decodeIfOfType(String.self) { return [text] }
            return try container.decodeIfOfType([String].self)
        }
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/embeddings") { request, _ in
            let body = try await decodeJSON(EmbeddingRequest.self, from: request, limit: configuration.maxBodySize)
            let format = body.encodingFormat ?? "float"
            guard format == "float" || format == "base64" else {
                throw APIError(
                    .badRequest, "encoding_format '\(format)' is not supported; use float or base64", param: "encoding_format")
            }
            let texts = body.input.texts
            guard !texts.isEmpty else { throw APIError(.badRequest, "input is an empty array; give at least one text", param: "input") }
            guard texts.count <= Self.maxInputs else {
                throw APIError(
                    .badRequest, "input has \(texts.count) texts; one request embeds at most \(Self.maxInputs)", param: "input")
            }
            if let index = texts.firstIndex(where: \.isEmpty) {
                throw APIError(
                    .badRequest,
                    texts.count == 1 ? "input is empty; there is nothing to embed" : "input \(index) is empty; there is nothing to embed",
                    param: "input")
            }
            if let dimensions = body.dimensions, dimensions < 1 {
                throw APIError(.badRequest, "dimensions must be at least 1 (got \(dimensions))", param: "dimensions")
            }
            let model = try runtime.model(id: body.model ?? SDKConstants.Models.defaultEmbeddingModelID, category: .embedding)
            // Refused before any work where the model's file says its dimensions; otherwise once the engine has said them.
            if let dimensions = body.dimensions, let own = modelDimensions(model) { try Self.check(dimensions, own: own, model: model.id) }
            let result: EmbeddingResult
            do {
                result = try await runtime.embed(
                    texts, model: model.id, options: EmbeddingOptions(truncate: body.truncate ?? false),
                    loadOptions: configuration.loadOptions,
                    keepAlive: body.keepAlive?.value ?? configuration.keepAlive
                )
            } catch let error as SDKError where error.code == .contextTooLong {
                throw APIError(.badRequest, error.message, param: "input", code: "context_length_exceeded")  // the SDK's message, naming the text
            }
            if let dimensions = body.dimensions { try Self.check(dimensions, own: result.dimensions, model: result.modelId) }
            return try Self.list(result, base64: format == "base64")
        }
    }

    /// OpenAI's list of embeddings for `result`: each vector as numbers, or as `base64`.
    static func list(_ result: EmbeddingResult, base64: Bool) throws -> Response {
        var json = VectorJSON(floats: base64 ? 0 : result.embeddings.count * result.dimensions)
        json.raw(#"{"object":"list","data":["#)
        for (index, vector) in result.embeddings.enumerated() {
            json.raw(index == 0 ? #"{"object":"embedding","index":"# : #",{"object":"embedding","index":"#)
            json.integer(index)
            json.raw(#","embedding":"#)
            if base64 { try json.string(Self.base64(vector)) } else { try json.vector(vector, what: "the vector of input \(index)") }
            json.raw("}")
        }
        json.raw(#"],"model":"#)
        try json.string(result.modelId)
        json.raw(#","usage":{"prompt_tokens":"#)
        json.integer(result.totalTokens)
        json.raw(#","total_tokens":"#)
        json.integer(result.totalTokens)
        json.raw("}}")
        return json.response()
    }

    /// The length of the vectors `model` makes, as its GGUF file says (`embedding_length_out`,
    /// else `embedding_length`); nil where the file does not say or cannot be read.
    private func modelDimensions(_ model: ModelInfo) -> Int? {
        guard let metadata = try? runtime.metadata(of: model), let architecture = metadata.architecture else { return nil }
        return (metadata.values["\(architecture).embedding_length_out"] ?? metadata.values["\(architecture).embedding_length"])?.intValue
    }

    /// Refuses `dimensions` other than the model's own.
    static func check(_ dimensions: Int, own: Int, model: String) throws {
        guard dimensions == own else {
            throw APIError(
                .badRequest,
                "dimensions \(dimensions) is not available: '\(model)' makes \(own)-dimensional vectors and cannot shorten them; leave dimensions out or send \(own)",
                param: "dimensions"
            )
        }
    }

    /// `vector`'s float32 values as little-endian bytes, base64: what OpenAI's clients decode.
    static func base64(_ vector: [Float]) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(vector.count * MemoryLayout<Float>.size)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        return Data(bytes).base64EncodedString()
    }
}
