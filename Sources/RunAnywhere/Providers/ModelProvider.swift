import Foundation

/// A place models come from, named by reference the way ollama names them
/// (`hf.co/OWNER/REPO:QUANT`): the SDK asks it what a reference offers, turns a reference into a
/// model to register (its files, size, download URL and checksum), and lets it authenticate the
/// downloads from its own hosts. ``HuggingFaceProvider`` is built in; an app registers more with
/// ``RunAnywhere/registerModelProvider(_:)``.
public protocol ModelProvider: Sendable {
    /// Its name for people, e.g. "Hugging Face".
    var name: String { get }
    /// Whether some of its models can only be downloaded with a token (gated or private ones).
    var requiresToken: Bool { get }
    /// Whether a token is configured for it.
    var hasToken: Bool { get }
    /// Whether `reference` is one of its references (e.g. starts with `hf.co/`), well formed or not:
    /// the provider that claims it explains what is wrong with it.
    func handles(_ reference: String) -> Bool
    /// The models `query` (a reference without a choice of file, e.g. `hf.co/OWNER/REPO`) offers,
    /// one per file a model can be registered from.
    func search(_ query: String) async throws -> [ProviderModel]
    /// The model `reference` names, with its files, size, download URL and sha256 where the
    /// provider gives them, placed under `modelsDirectory`; nothing is registered or downloaded.
    func resolve(_ reference: String, modelsDirectory: URL) async throws -> ModelInfo
    /// The headers that authenticate a request for `url`: the provider's token for its own
    /// hosts, and none for any other host.
    func authenticationHeaders(for url: URL) -> [String: String]
}

/// A model a provider offers: one file (or one model split into several files) of a repository.
public struct ProviderModel: Codable, Sendable, Equatable {
    /// The reference that registers it, e.g. `hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M`.
    public let reference: String
    /// The provider's name.
    public let provider: String
    /// The file's path in its repository (the first part of a split model).
    public let file: String
    /// The quantization its name carries, e.g. "Q4_K_M"; nil when it carries none.
    public let quantization: String?
    /// Bytes of all its files, when the provider says.
    public let sizeBytes: Int64?
    /// The file's sha256 (lowercase hex), when the provider gives it.
    public let sha256: String?
    /// How many files the model is split into (1 for one file).
    public let parts: Int
    /// Whether a token is needed to download it (a gated or private repository).
    public let requiresToken: Bool

    /// A model as described above.
    public init(
        reference: String, provider: String, file: String, quantization: String?, sizeBytes: Int64?, sha256: String?, parts: Int,
        requiresToken: Bool
    ) {
        self.reference = reference
        self.provider = provider
        self.file = file
        self.quantization = quantization
        self.sizeBytes = sizeBytes
        self.sha256 = sha256
        self.parts = parts
        self.requiresToken = requiresToken
    }
}
