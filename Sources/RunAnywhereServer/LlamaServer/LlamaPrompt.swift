import RunAnywhere

/// One of `/completion`'s prompts, as llama-server reads them: text, or token ids with strings
/// among them or not (each string tokenized where it stands, the model's opening token added
/// only to a string that opens the prompt).
enum LlamaPrompt: Sendable, Equatable {
    /// A token id, or a string to tokenize, of a prompt of ``pieces(_:)``.
    enum Piece: Sendable, Equatable {
        case text(String)
        case token(Int32)
    }

    case text(String)
    case pieces([Piece])

    /// The most prompts one request may hold, as many as `/v1/completions` answers at once.
    static let maxPrompts = CompletionRequest.maxCompletions

    /// The prompts `value` holds, as llama-server counts them: a string, an array with a token id
    /// in it, or `{"prompt_string"}` is one prompt; another array holds a prompt in each element.
    static func prompts(_ value: JSONValue) throws -> [LlamaPrompt] {
        guard let elements = value.arrayValue, !elements.contains(where: { $0.numberValue != nil }) else {
            return [try prompt(value, param: "prompt")]
        }
        guard !elements.isEmpty else { throw APIError(.badRequest, "prompt must not be empty", param: "prompt") }
        guard elements.count <= maxPrompts else {
            throw APIError(.badRequest, "A request may hold at most \(maxPrompts) prompts (it has \(elements.count))", param: "prompt")
        }
        return try elements.enumerated().map { index, element in try prompt(element, param: "prompt.\(index)") }
    }

    /// One prompt: a string, token ids with strings among them or not, or `{"prompt_string"}`
    /// holding either.
    private static func prompt(_ value: JSONValue, param: String) throws -> LlamaPrompt {
        if let text = value.stringValue { return .text(text) }
        if let elements = value.arrayValue, elements.contains(where: { $0.numberValue != nil }) {
            return try pieces(elements, param: param)
        }
        if case .object = value {
            if value["multimodal_data"] != nil {
                throw APIError(
                    .badRequest, "multimodal_data is not read here: send images to /v1/chat/completions", param: "\(param).multimodal_data")
            }
            if let inner = value["prompt_string"], inner.stringValue != nil || inner.arrayValue != nil {
                return try prompt(inner, param: "\(param).prompt_string")
            }
        }
        throw APIError(
            .badRequest, "\(param) must be a string, token ids (strings among them or not), or {\"prompt_string\": either}", param: param)
    }

    private static func pieces(_ elements: [JSONValue], param: String) throws -> LlamaPrompt {
        .pieces(try Piece.list(elements, param: param))
    }

    /// The prompt to generate from: text as it is, and ids with strings as the tokens they make
    /// in the vocabulary of `model` (loaded as a generation loads it).
    func resolved(
        on runtime: RunAnywhereRuntime, model: String, loadOptions: ModelLoadOptions, keepAlive: KeepAlive
    ) async throws -> CompletionPrompt {
        switch self {
        case .text(let text): return .text(text)
        case .pieces(let pieces):
            return .tokens(
                try await Piece.tokens(
                    pieces, addSpecial: true, parseSpecial: true, on: runtime, model: model, loadOptions: loadOptions, keepAlive: keepAlive
                ))
        }
    }
}

extension LlamaPrompt.Piece {
    /// `elements` as pieces: each a token id (a whole number from 0 to 2³¹−1) or a string, else a
    /// 400 naming `param`'s element.
    static func list(_ elements: [JSONValue], param: String) throws -> [Self] {
        try elements.enumerated().map { index, element in
            if let text = element.stringValue { return .text(text) }
            if let number = element.numberValue, number == number.rounded(), (0...Double(Int32.max)).contains(number) {
                return .token(Int32(number))
            }
            throw APIError(
                .badRequest, "\(param).\(index) must be a token id (a whole number from 0 to \(Int32.max)) or a string",
                param: "\(param).\(index)")
        }
    }

    /// The tokens `pieces` make, as llama-server's `tokenize_mixed` makes them: each string
    /// tokenized where it stands (in the vocabulary of `model`, loaded as a generation loads it),
    /// with the model's opening tokens (`addSpecial`) only for a string that opens the list; ids
    /// as they are.
    static func tokens(
        _ pieces: [Self], addSpecial: Bool, parseSpecial: Bool, on runtime: RunAnywhereRuntime, model: String,
        loadOptions: ModelLoadOptions, keepAlive: KeepAlive
    ) async throws -> [Int32] {
        var tokens: [Int32] = []
        for (index, piece) in pieces.enumerated() {
            switch piece {
            case .token(let id): tokens.append(id)
            case .text(let text):
                tokens += try await runtime.tokenize(
                    text, model: model, addSpecial: addSpecial && index == 0, parseSpecial: parseSpecial, loadOptions: loadOptions,
                    keepAlive: keepAlive)
            }
        }
        return tokens
    }
}
