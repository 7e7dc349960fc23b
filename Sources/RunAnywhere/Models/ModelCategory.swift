/// What a model does; the raw values are the SDK's wire strings.
public enum ModelCategory: String, CaseIterable, Codable, Sendable {
    /// Language models: text in, text out.
    case language = "language"
    /// Speech-to-text models.
    case speechRecognition = "speech-recognition"
    /// Text-to-speech voices.
    case speechSynthesis = "speech-synthesis"
    /// Vision models.
    case vision = "vision"
    /// Image generation (diffusion) models.
    case imageGeneration = "image-generation"
    /// Vision-language models: text and images in, text out.
    case multimodal = "multimodal"
    /// Other audio models (such as voice activity detection).
    case audio = "audio"
    /// Embedding models: text to vectors.
    case embedding = "embedding"
    /// Rerankers: cross-encoders that score how relevant a document is to a query.
    case reranking = "reranking"
    /// LoRA adapters: changes to a language model's weights that requests apply to it
    /// (``LoRAAdapter``); never loaded on their own.
    case loraAdapter = "lora-adapter"

    /// Whether models of this category have a context window measured in tokens.
    package var requiresContextLength: Bool { self == .language || self == .multimodal }

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
        case .loraAdapter: "LoRA adapter"
        }
    }
}
