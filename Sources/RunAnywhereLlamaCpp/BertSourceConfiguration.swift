import Foundation
import RunAnywhere

/// What a Hugging Face BERT folder (as sentence-transformers saves one) says about its model:
/// the shape from `config.json`, the tokenizer's special tokens and casing from
/// `special_tokens_map.json` and `tokenizer_config.json`, the pooling from `modules.json` and the
/// pooling module's `config.json`, the licence from the model card's front matter.
struct BertSourceConfiguration {
    /// The pooling llama.cpp applies to a sequence's token embeddings, by its `llama_pooling_type`.
    enum Pooling: UInt32 {
        case mean = 1, cls = 2, last = 3
    }

    /// The special tokens' strings, by role.
    struct SpecialTokens {
        var unknown = "[UNK]", separator = "[SEP]", padding = "[PAD]", classifier = "[CLS]", mask = "[MASK]"
    }

    let hiddenSize: Int, intermediateSize: Int, layerCount: Int, headCount: Int
    let positionCount: Int, tokenTypeCount: Int, vocabularySize: Int
    let layerNormEpsilon: Float
    let specialTokens: SpecialTokens
    /// Whether the tokenizer lowercases (`do_lower_case`, BERT's default: true).
    let lowercase: Bool
    /// Whether it strips accents, when the tokenizer says (otherwise it follows `lowercase`).
    let stripAccents: Bool?
    /// The pooling module's pooling, nil without one.
    let pooling: Pooling?
    /// The licence the model card names (`license:` in its front matter).
    let license: String?

    init(directory: URL) throws {
        let config = try Self.decode(Config.self, from: directory.appendingPathComponent("config.json"), required: true)!
        let name = directory.lastPathComponent
        guard config.modelType == "bert" else {
            throw SDKError.fileManagement(
                .invalidModelFormat, "\(name) holds a \(config.modelType ?? "model of no model_type") (config.json), not a BERT model")
        }
        if let activation = config.hiddenAct, activation != "gelu" {
            throw SDKError.fileManagement(.invalidModelFormat, "\(name) uses the activation \(activation); llama.cpp's BERT runs GELU")
        }
        if let positions = config.positionEmbeddingType, positions != "absolute" {
            throw SDKError.fileManagement(
                .invalidModelFormat, "\(name) has \(positions) position embeddings; llama.cpp's BERT reads absolute ones")
        }
        let sizes = [
            config.hiddenSize, config.intermediateSize, config.numHiddenLayers, config.numAttentionHeads, config.maxPositionEmbeddings,
            config.vocabSize,
        ]
        guard sizes.allSatisfy({ (1...1 << 24).contains($0) }), (1...64).contains(config.typeVocabSize ?? 2),
            config.hiddenSize % config.numAttentionHeads == 0
        else {
            throw SDKError.fileManagement(.invalidModelFormat, "\(name)'s config.json gives an impossible shape: \(sizes)")
        }
        hiddenSize = config.hiddenSize
        intermediateSize = config.intermediateSize
        layerCount = config.numHiddenLayers
        headCount = config.numAttentionHeads
        positionCount = config.maxPositionEmbeddings
        tokenTypeCount = config.typeVocabSize ?? 2
        vocabularySize = config.vocabSize
        layerNormEpsilon = Float(config.layerNormEps ?? 1e-12)

        let tokenizer = try Self.decode(
            TokenizerFiles.self, from: directory.appendingPathComponent("tokenizer_config.json"), required: false)
        let map = try Self.decode(TokenizerFiles.self, from: directory.appendingPathComponent("special_tokens_map.json"), required: false)
        var special = SpecialTokens()
        for files in [tokenizer, map].compactMap({ $0 }) {
            special.unknown = files.unkToken?.content ?? special.unknown
            special.separator = files.sepToken?.content ?? special.separator
            special.padding = files.padToken?.content ?? special.padding
            special.classifier = files.clsToken?.content ?? special.classifier
            special.mask = files.maskToken?.content ?? special.mask
        }
        specialTokens = special
        lowercase = tokenizer?.doLowerCase ?? true
        stripAccents = tokenizer?.stripAccents
        pooling = try Self.pooling(in: directory)
        license = Self.license(in: directory)
    }

    /// llama.cpp's pooling type for the first pooling module of `modules.json`.
    private static func pooling(in directory: URL) throws -> Pooling? {
        guard let modules = try decode([Module].self, from: directory.appendingPathComponent("modules.json"), required: false),
            let module = modules.first(where: { $0.type.hasSuffix("Pooling") })
        else { return nil }
        let url = directory.appendingPathComponent(module.path).appendingPathComponent("config.json")
        let pooling = try decode(PoolingConfig.self, from: url, required: true)!
        if pooling.poolingModeMeanTokens == true { return .mean }
        if pooling.poolingModeClsToken == true { return .cls }
        if pooling.poolingModeLasttoken == true { return .last }
        if let mode = pooling.poolingMode, let type = ["mean": Pooling.mean, "cls": .cls, "lasttoken": .last][mode] { return type }
        throw SDKError.fileManagement(
            .invalidModelFormat,
            "\(module.path)/config.json asks for a pooling llama.cpp does not run (it runs mean, CLS and last-token pooling)")
    }

    /// The `license:` of the front matter of `README.md` (a Hugging Face model card), if any.
    private static func license(in directory: URL) -> String? {
        guard let card = try? String(contentsOf: directory.appendingPathComponent("README.md"), encoding: .utf8) else { return nil }
        let lines = card.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "---", let end = lines.dropFirst().firstIndex(of: "---") else { return nil }
        let value = lines[1..<end].first { $0.hasPrefix("license:") }?.dropFirst("license:".count)
            .trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
        return value?.isEmpty == false ? value : nil
    }

    /// The JSON file at `url` decoded; nil when it is absent and not `required`.
    private static func decode<T: Decodable>(_ type: T.Type, from url: URL, required: Bool) throws -> T? {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            guard required else { return nil }
            throw SDKError.fileManagement(.fileNotFound, "\(url.path) is missing: not a Hugging Face BERT model folder")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            // The keys as the file spells them (hidden_size, not hiddenSize).
            func path(_ keys: [any CodingKey]) -> String {
                keys.map {
                    $0.intValue.map(String.init)
                        ?? $0.stringValue.reduce(into: "") { $0 += $1.isUppercase ? "_\($1.lowercased())" : String($1) }
                }
                .joined(separator: ".")
            }
            let why =
                switch error as? DecodingError {
                case .keyNotFound(let key, let context): "\(path(context.codingPath + [key])) is missing"
                case .typeMismatch(_, let context), .valueNotFound(_, let context): "\(path(context.codingPath)) is not of the right type"
                default: "it is not valid JSON"
                }
            throw SDKError.fileManagement(.invalidModelFormat, "\(url.path) is not a BERT model's \(url.lastPathComponent): \(why)")
        }
    }

    private struct Config: Decodable {
        let modelType: String?, hiddenAct: String?, positionEmbeddingType: String?
        let hiddenSize: Int, intermediateSize: Int, numHiddenLayers: Int, numAttentionHeads: Int
        let maxPositionEmbeddings: Int, vocabSize: Int, typeVocabSize: Int?
        let layerNormEps: Double?
    }

    /// The parts of `tokenizer_config.json` and `special_tokens_map.json` read here.
    private struct TokenizerFiles: Decodable {
        let unkToken: Token?, sepToken: Token?, padToken: Token?, clsToken: Token?, maskToken: Token?
        let doLowerCase: Bool?, stripAccents: Bool?
    }

    /// A special token: its string, or an object whose `content` is.
    private struct Token: Decodable {
        let content: String

        private enum Keys: String, CodingKey { case content }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                content = text
            } else {
                content = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .content)
            }
        }
    }

    private struct Module: Decodable { let type: String, path: String }

    private struct PoolingConfig: Decodable {
        let poolingModeMeanTokens: Bool?, poolingModeClsToken: Bool?, poolingModeLasttoken: Bool?, poolingMode: String?
    }
}
