/// What a model does; the raw values are the SDK's wire strings.
public enum ModelCategory: String, CaseIterable, Codable, Sendable {
    case language = "language"
    case speechRecognition = "speech-recognition"
    case speechSynthesis = "speech-synthesis"
    case vision = "vision"
    case imageGeneration = "image-generation"
    case multimodal = "multimodal"
    case audio = "audio"
    case embedding = "embedding"
    /// Rerankers: cross-encoders that score how relevant a document is to a query.
    case reranking = "reranking"

    /// Whether models of this category have a context window measured in tokens.
    public var requiresContextLength: Bool { self == .language || self == .multimodal }

    /// Whether models of this category may emit `<think>` reasoning.
    public var supportsThinking: Bool { self == .language || self == .multimodal }

    /// "a language model", "an embedding model": the category's wire name as a noun phrase, for messages.
    package var aModel: String { "\("aeiou".contains(rawValue.first!) ? "an" : "a") \(rawValue) model" }

    /// A name for people.
    public var displayName: String {
        switch self {
        case .language: "Language"
        case .speechRecognition: "Speech recognition"
        case .speechSynthesis: "Speech synthesis"
        case .vision: "Vision"
        case .imageGeneration: "Image generation"
        case .multimodal: "Multimodal"
        case .audio: "Audio"
        case .embedding: "Embedding"
        case .reranking: "Reranking"
        }
    }
}
