extension RunAnywhere {
    /// Generates JSON that `schema` accepts and decodes it as `type`.
    public static func generateStructured<T: Decodable & Sendable>(
        _ schema: JSONValue, as type: T.Type, prompt: String, options: LLMGenerationOptions? = nil
    ) async throws -> StructuredOutputResult<T> {
        try await runtime().generateStructured(schema, as: type, prompt: prompt, options: options)
    }

    /// Generates a `T`, constrained to its JSON Schema.
    public static func generateStructured<T: Generatable>(_ type: T.Type, prompt: String, options: LLMGenerationOptions? = nil) async throws
        -> StructuredOutputResult<T>
    {
        try await runtime().generateStructured(type, prompt: prompt, options: options)
    }
}
