import RunAnywhere

/// A prompt the completion routes read verbatim, without a chat template (OpenAI's
/// `/v1/completions`, llama-server's `/completion`): text, or the model's token ids as they are,
/// nothing added.
enum CompletionPrompt: Sendable {
    case text(String)
    case tokens([Int32])

    /// Token ids from JSON's numbers; nil unless there is at least one and each is a token id.
    init?(ids: [Int]) {
        let tokens = ids.compactMap { $0 >= 0 ? Int32(exactly: $0) : nil }
        guard !ids.isEmpty, tokens.count == ids.count else { return nil }
        self = .tokens(tokens)
    }

    /// What a request whose token ids are not token ids hears.
    static let invalidTokens = APIError(
        .badRequest, "a prompt's token ids must be a non-empty array of whole numbers from 0 to \(Int32.max)", param: "prompt")

    /// Starts the prompt's generation on `model`. With `suffix`, a text prompt is the code before
    /// a gap that the model fills in (fill-in-the-middle; token ids have no such reading).
    func generate(
        on runtime: RunAnywhereRuntime, suffix: String? = nil, options: LLMGenerationOptions, model: String,
        loadOptions: ModelLoadOptions, keepAlive: KeepAlive
    ) async throws -> GenerationEvents {
        switch self {
        case .text(let text):
            guard let suffix else {
                return try await runtime.generateEvents(
                    text, context: nil, options: options, model: model, loadOptions: loadOptions, keepAlive: keepAlive)
            }
            return try await runtime.generateEvents(
                infill: Infill(prefix: text, suffix: suffix), options: options, model: model, loadOptions: loadOptions,
                keepAlive: keepAlive)
        case .tokens(let tokens):
            return try await runtime.generateEvents(
                tokens: tokens, options: options, model: model, loadOptions: loadOptions, keepAlive: keepAlive)
        }
    }
}
