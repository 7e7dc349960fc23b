import Foundation
import Hummingbird
import RunAnywhere

/// llama-server's `POST /tokenize` and `POST /detokenize`, in its shapes, through a language
/// model's vocabulary: `{"content", "add_special" (default false), "parse_special" (default true),
/// "with_pieces" (default false)}` gives `{"tokens": [ids]}` (`content` a string, or token ids and
/// strings mixed, each string tokenized where it stands, as llama-server does), or with pieces
/// `{"tokens": [{"id", "piece"}]}` (a piece that is not whole UTF-8 as its bytes); `{"tokens": [ids]}`
/// gives `{"content"}`. `model` (RunAnywhere's addition; llama-server serves one model) names the
/// model, the default model when absent; it is loaded as a generation would load it.
struct TokenizeRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    struct TokenizeRequest: Decodable, Sendable {
        /// `content` as pieces: a text is one.
        let content: [LlamaPrompt.Piece]
        let addSpecial: Bool?
        let parseSpecial: Bool?
        let withPieces: Bool?
        let model: String?
        enum CodingKeys: String, CodingKey {
            case content, addSpecial = "add_special", parseSpecial = "parse_special", withPieces = "with_pieces", model
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let content = try container.decode(JSONValue.self, forKey: .content)
            if let text = content.stringValue {
                self.content = [.text(text)]
            } else if let elements = content.arrayValue {
                self.content = try LlamaPrompt.Piece.list(elements, param: "content")
            } else {
                throw APIError(.badRequest, "content must be a string, or an array of token ids and strings", param: "content")
            }
            addSpecial = try container.decodeIfPresent(Bool.self, forKey: .addSpecial)
            parseSpecial = try container.decodeIfPresent(Bool.self, forKey: .parseSpecial)
            withPieces = try container.decodeIfPresent(Bool.self, forKey: .withPieces)
            model = try container.decodeIfPresent(String.self, forKey: .model)
        }
    }

    struct DetokenizeRequest: Decodable, Sendable {
        let tokens: [Int32]
        let model: String?
        enum CodingKeys: String, CodingKey { case tokens, model }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            model = try container.decodeIfPresent(String.self, forKey: .model)
            // Each id through NumberField: a fraction, a number beyond 32 bits or a string is a 400 naming its place.
            tokens = try container.decode([NumberField<Int32>].self, forKey: .tokens).enumerated().map { index, field in
                guard let token = field.wrappedValue else {
                    throw APIError(.badRequest, "tokens.\(index) must be a token id, not null", param: "tokens.\(index)")
                }
                return token
            }
        }
    }

    struct Tokens: Encodable, Sendable { let tokens: [Int32] }

    struct TokensWithPieces: Encodable, Sendable {
        struct Token: Encodable, Sendable {
            let id: Int32
            let piece: TokenPiece

            enum CodingKeys: String, CodingKey { case id, piece }

            /// The piece as text, or as its byte values when it is not whole UTF-8 (llama-server's way).
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                if let text = piece.text {
                    try container.encode(text, forKey: .piece)
                } else {
                    try container.encode(piece.bytes, forKey: .piece)
                }
            }
        }
        let tokens: [Token]
    }

    struct Content: Encodable, Sendable { let content: String }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("tokenize") { request, _ in
            let body = try await decodeJSON(TokenizeRequest.self, from: request, limit: configuration.maxBodySize)
            let (model, addSpecial, parseSpecial) = (
                body.model ?? RunAnywhere.defaultModelID, body.addSpecial ?? false, body.parseSpecial ?? true
            )
            let tokens = try await LlamaPrompt.Piece.tokens(
                body.content, addSpecial: addSpecial, parseSpecial: parseSpecial, on: runtime, model: model,
                loadOptions: configuration.loadOptions, keepAlive: configuration.keepAlive)
            // Ids given are checked to be in the vocabulary (llama-server would give back any) as the pieces are read.
            guard body.withPieces ?? false || body.content.contains(where: { if case .token = $0 { true } else { false } }) else {
                return try jsonResponse(Tokens(tokens: tokens))
            }
            let pieces: [TokenPiece]
            do {
                pieces = try await runtime.pieces(
                    of: tokens, model: model, loadOptions: configuration.loadOptions, keepAlive: configuration.keepAlive)
            } catch let error as SDKError where error.field?.hasPrefix("tokens.") == true {
                // The first token outside the vocabulary is the first id given with its value: a
                // string's tokens are all in it.
                let position = error.field.flatMap { Int($0.dropFirst("tokens.".count)) }
                let element = position.flatMap { body.content.firstIndex(of: .token(tokens[$0])) }
                throw error.naming(element.map { "content.\($0)" } ?? "content")
            }
            guard body.withPieces ?? false else { return try jsonResponse(Tokens(tokens: tokens)) }
            return try jsonResponse(TokensWithPieces(tokens: pieces.map { .init(id: $0.id, piece: $0) }))
        }
        router.post("detokenize") { request, _ in
            let body = try await decodeJSON(DetokenizeRequest.self, from: request, limit: configuration.maxBodySize)
            let content = try await runtime.detokenize(
                body.tokens, model: body.model ?? RunAnywhere.defaultModelID, loadOptions: configuration.loadOptions,
                keepAlive: configuration.keepAlive
            )
            return try jsonResponse(Content(content: content))
        }
    }
}
