extension RunAnywhere {
    /// The ids of the tokens `text` becomes in the vocabulary of the model `model` (the loaded
    /// model when nil); see ``RunAnywhereRuntime/tokenize(_:model:addSpecial:parseSpecial:loadOptions:keepAlive:)``.
    public static func tokenize(_ text: String, model: String? = nil, addSpecial: Bool = true, parseSpecial: Bool = true) async throws
        -> [Int32]
    {
        try await runtime().tokenize(text, model: model, addSpecial: addSpecial, parseSpecial: parseSpecial)
    }

    /// The text `tokens` stand for in the vocabulary of the model `model` (the loaded model when
    /// nil); an id outside the vocabulary throws ``ErrorCode/invalidInput``.
    public static func detokenize(_ tokens: [Int32], model: String? = nil) async throws -> String {
        try await runtime().detokenize(tokens, model: model)
    }
}
