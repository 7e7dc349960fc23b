import Foundation

/// A value the model wrote as JSON, decoded, with the generation's measurements.
public struct StructuredOutputResult<Value: Sendable>: Sendable {
    /// The decoded value.
    public let value: Value
    /// The generation: its JSON `text`, tokens, timings.
    public let result: LLMGenerationResult
}

extension RunAnywhereRuntime {
    /// Generates JSON that `schema` accepts with the current model (its sampler constrained to the
    /// schema, so the JSON is valid by construction) and decodes it as `type`. A model that runs
    /// out of tokens before the JSON is complete is ``ErrorCode/generationFailed`` saying so
    /// (raise `maxTokens`); a schema the converter does not support is ``ErrorCode/invalidInput``.
    package func generateStructured<T: Decodable & Sendable>(
        _ schema: JSONValue, as type: T.Type, prompt: String, options: LLMGenerationOptions? = nil
    ) async throws -> StructuredOutputResult<T> {
        var options = options ?? current[.language]?.info.generationOptions ?? LLMGenerationOptions()
        let includeSchema = options.structuredOutput?.includeSchemaInPrompt ?? true
        options.structuredOutput = .schema(schema, includeSchemaInPrompt: includeSchema)
        let result = try await generate(prompt, options: options)
        return StructuredOutputResult(value: try Self.decode(type, from: result, maxTokens: options.maxTokens), result: result)
    }

    /// Generates a `T` (constrained to ``Generatable/jsonSchema``) with the current model.
    package func generateStructured<T: Generatable>(_ type: T.Type, prompt: String, options: LLMGenerationOptions? = nil) async throws
        -> StructuredOutputResult<T>
    {
        try await generateStructured(T.jsonSchema, as: type, prompt: prompt, options: options)
    }

    /// `result`'s text decoded as `type`.
    static func decode<T: Decodable>(_ type: T.Type, from result: LLMGenerationResult, maxTokens: Int) throws -> T {
        switch result.stopReason {
        case .length:
            throw SDKError.llm(
                .generationFailed,
                "The model used all \(maxTokens) tokens before its JSON was complete; raise maxTokens (it wrote: \(result.text.prefix(200)))"
            )
        case .cancelled:
            throw CancellationError()
        default:
            break
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(result.text.utf8))
        } catch {
            throw SDKError.llm(
                .generationFailed, "The model's JSON does not decode as \(T.self): \(error) (it wrote: \(result.text.prefix(200)))")
        }
    }
}
