import Foundation

/// Speculative decoding: tokens guessed ahead of the model and checked by it in the same decode
/// step, so that one step can yield several tokens. The model still picks every token exactly
/// as it would without speculation (a guess is kept only where it is the token the request's
/// own sampler draws from the model's logits, with the same random draws), so the output is the
/// one the same request gives without it; only the speed differs.
///
/// Engines that cannot speculate (and requests that decode alone to keep a reproducibility
/// promise, which speculation's larger decode calls would break) decode one token a step.
public enum LLMSpeculation: Codable, Sendable, Equatable {
    /// One token a step.
    case off
    /// Prompt lookup: the answer's last few tokens are looked up earlier in the prompt and the
    /// answer, and the up to `maxDraftTokens` tokens that followed them there are the guess. It
    /// needs no second model and gains most where an answer repeats its input: rewriting,
    /// summarizing or answering from given text (RAG), code edits, JSON.
    case promptLookup(maxDraftTokens: Int = 8)
    /// A draft model: a smaller model with the same vocabulary (`model`, a catalog id or a GGUF
    /// path) writes up to `maxDraftTokens` tokens ahead, one at a time while it is confident, and
    /// the model checks them all in one step. It gains where the draft often agrees with the
    /// model, which a model of the same family does on most prose and code. A draft whose
    /// vocabulary differs from the model's is refused with ``ErrorCode/modelIncompatible``.
    case draftModel(model: String, maxDraftTokens: Int = 8)

    /// The most tokens one step may guess (llama.cpp's per-row attention path, which keeps a
    /// batch-invariant context invariant, holds up to 63 rows of one sequence).
    public static let maxDraftTokens = 32

    /// The most tokens guessed in a step; 0 when off.
    package var draftLimit: Int {
        switch self {
        case .off: 0
        case .promptLookup(let maxDraftTokens), .draftModel(_, let maxDraftTokens): maxDraftTokens
        }
    }

    /// The draft model this speculation names, if any.
    package var draftModel: String? {
        if case .draftModel(let model, _) = self { model } else { nil }
    }

    /// This speculation with its draft model replaced by `resolve`'s answer for it.
    package func resolvingDraftModel(_ resolve: (String) throws -> String) rethrows -> LLMSpeculation {
        guard case .draftModel(let model, let count) = self else { return self }
        return .draftModel(model: try resolve(model), maxDraftTokens: count)
    }

    /// Up to `draftTokens` tokens a step, guessed by `draftModel` or else by prompt lookup; off
    /// for 0 (how the CLI's `--speculate` and `--draft-model`, the settings and llama-server's
    /// `speculative.n_max` count).
    package init(draftTokens: Int, draftModel: String? = nil) {
        self =
            switch (draftTokens, draftModel) {
            case (0, _): .off
            case (_, let model?): .draftModel(model: model, maxDraftTokens: draftTokens)
            case (_, nil): .promptLookup(maxDraftTokens: draftTokens)
            }
    }

    /// Throws ``ErrorCode/invalidInput`` when the draft length is not 1 to ``maxDraftTokens``
    /// or the draft model is named by an empty string.
    package func validate() throws {
        if self != .off, !(1...Self.maxDraftTokens).contains(draftLimit) {
            throw SDKError.llm(.invalidInput, "speculation guesses 1 to \(Self.maxDraftTokens) tokens a step (got \(draftLimit))")
        }
        if draftModel?.isEmpty == true { throw SDKError.llm(.invalidInput, "The draft model's name is empty") }
    }
}

extension LLMSpeculation {
    /// This speculation with its draft model, if it names one, as the absolute path of a GGUF
    /// language model: a path that names a file is taken as it is, anything else as the id of a
    /// model of the catalog, found with `model`. The engine checks that its vocabulary is the
    /// model's when it loads it.
    package func resolved(model: (String) throws -> ModelInfo) throws -> LLMSpeculation {
        try resolvingDraftModel { reference in
            let url = URL(fileURLWithPath: reference).standardizedFileURL
            var isDirectory: ObjCBool = false
            let file: URL
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                file = url
            } else if reference.contains("/") {
                throw SDKError(.fileNotFound, "No draft model file at \(reference)")
            } else {
                let draft: ModelInfo
                do {
                    draft = try model(reference)
                } catch let error as SDKError where error.code == .modelNotFound {
                    throw SDKError(.modelNotFound, "No draft model file at \(reference), and no model has that id")
                }
                guard [.language, .multimodal].contains(draft.category), draft.format == .gguf else {
                    throw SDKError.llm(
                        .modelIncompatible,
                        "The draft model '\(draft.id)' is a \(draft.category.displayName.lowercased()) model in \(draft.format.rawValue); a draft is a GGUF language model"
                    )
                }
                guard let primary = draft.primaryFile else {
                    throw SDKError(.modelNotDownloaded, "The draft model '\(draft.id)' is not downloaded")
                }
                file = primary
            }
            guard try GGUFReader.read(file).vocabularySize != nil else {
                throw SDKError.llm(.modelIncompatible, "\(file.path) has no vocabulary, so it cannot draft for a language model")
            }
            return file.path
        }
    }
}
