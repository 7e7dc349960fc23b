/// What a model made from another adds to it, as an ollama Modelfile's `SYSTEM`, `MESSAGE`,
/// `PARAMETER` and `ADAPTER` lines do: a system prompt for every conversation that brings none of
/// its own, messages every conversation starts with, generation settings for every request that
/// leaves them unset (each surface applies them under the request's own values, above its own
/// defaults), the context window it is loaded with unless the load asks for one, and LoRA
/// adapters applied to every request that chooses none.
package struct ModelDefaults: Codable, Sendable, Equatable {
    /// The folder, inside the model's own (`MODELS/ID/`), that holds its ``loraAdapters``' files:
    /// they go with the model when it is copied or deleted.
    package static let loraFolder = "lora"

    /// The system prompt of a conversation that has none.
    package var systemPrompt: String?
    /// The messages every conversation starts with (examples of the answers wanted).
    package var messages: [Message]?
    /// The context window, in tokens.
    package var contextLength: Int?
    /// ``LLMGenerationOptions/maxTokens``.
    package var maxTokens: Int?
    /// ``LLMGenerationOptions/temperature``.
    package var temperature: Float?
    /// ``LLMGenerationOptions/topP``.
    package var topP: Float?
    /// ``LLMGenerationOptions/topK``.
    package var topK: Int?
    /// ``LLMGenerationOptions/minP``.
    package var minP: Float?
    /// ``LLMGenerationOptions/repeatPenalty``.
    package var repeatPenalty: Float?
    /// ``LLMGenerationOptions/presencePenalty``.
    package var presencePenalty: Float?
    /// ``LLMGenerationOptions/frequencyPenalty``.
    package var frequencyPenalty: Float?
    /// ``LLMGenerationOptions/penaltyLastN``.
    package var penaltyLastN: Int?
    /// ``LLMGenerationOptions/seed``.
    package var seed: UInt32?
    /// ``LLMGenerationOptions/stopSequences``.
    package var stopSequences: [String]?
    /// ``LLMGenerationOptions/threads``.
    package var threads: Int?
    /// The LoRA adapters of every request that chooses none (``LLMGenerationOptions/loraAdapters``
    /// nil): each a file name in the model's ``loraFolder``, with its scale. They take the place
    /// of a server's `--lora` list for this model.
    package var loraAdapters: [LoRAAdapter]?

    /// No defaults.
    package init() {}

    /// Whether there is nothing to apply.
    package var isEmpty: Bool { self == ModelDefaults() }

    /// `options` with these settings where they have one.
    package func apply(to options: inout LLMGenerationOptions) {
        if let maxTokens { options.maxTokens = maxTokens }
        if let temperature { options.temperature = temperature }
        if let topP { options.topP = topP }
        if let topK { options.topK = topK }
        if let minP { options.minP = minP }
        if let repeatPenalty { options.repeatPenalty = repeatPenalty }
        if let presencePenalty { options.presencePenalty = presencePenalty }
        if let frequencyPenalty { options.frequencyPenalty = frequencyPenalty }
        if let penaltyLastN { options.penaltyLastN = penaltyLastN }
        if let seed { options.seed = seed }
        if let stopSequences { options.stopSequences = stopSequences }
        if let threads { options.threads = threads }
    }

    /// These defaults over `base`'s: a model made from one with defaults keeps those it does not
    /// set again (as ollama merges a derived model's parameters with its base's).
    package func over(_ base: ModelDefaults?) -> ModelDefaults {
        guard let base else { return self }
        var merged = self
        merged.systemPrompt = systemPrompt ?? base.systemPrompt
        merged.messages = messages ?? base.messages
        merged.contextLength = contextLength ?? base.contextLength
        merged.maxTokens = maxTokens ?? base.maxTokens
        merged.temperature = temperature ?? base.temperature
        merged.topP = topP ?? base.topP
        merged.topK = topK ?? base.topK
        merged.minP = minP ?? base.minP
        merged.repeatPenalty = repeatPenalty ?? base.repeatPenalty
        merged.presencePenalty = presencePenalty ?? base.presencePenalty
        merged.frequencyPenalty = frequencyPenalty ?? base.frequencyPenalty
        merged.penaltyLastN = penaltyLastN ?? base.penaltyLastN
        merged.seed = seed ?? base.seed
        merged.stopSequences = stopSequences ?? base.stopSequences
        merged.threads = threads ?? base.threads
        merged.loraAdapters = loraAdapters ?? base.loraAdapters
        return merged
    }

    /// Throws a clear error for a setting no generation could use, naming it as the options do.
    package func validate() throws {
        var options = LLMGenerationOptions()
        apply(to: &options)
        try options.validate()
        if let contextLength, !(16...SDKConstants.Limits.maxContextLength).contains(contextLength) {
            throw SDKError(.invalidInput, "Invalid model defaults: contextLength must be 16 to \(SDKConstants.Limits.maxContextLength)")
        }
        if messages?.contains(where: { $0.role == .system || $0.role == .tool || !$0.images.isEmpty }) == true {
            throw SDKError(.invalidInput, "Invalid model defaults: the messages a model starts with are user and assistant text")
        }
        if let loraAdapters {
            guard loraAdapters.count <= LoRAAdapter.maxPerRequest else {
                throw SDKError(.invalidInput, "Invalid model defaults: at most \(LoRAAdapter.maxPerRequest) LoRA adapters")
            }
            for adapter in loraAdapters {
                let name = adapter.path
                guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/"), !name.contains("\0"), adapter.scale.isFinite else {
                    throw SDKError(
                        .invalidInput, "Invalid model defaults: a LoRA adapter is a file name in the model's folder with a finite scale")
                }
            }
        }
    }
}

extension ModelInfo {
    /// The options of a generation that sets none: the SDK's, with the model's ``defaults`` over them.
    package var generationOptions: LLMGenerationOptions {
        var options = LLMGenerationOptions()
        defaults?.apply(to: &options)
        return options
    }
}
