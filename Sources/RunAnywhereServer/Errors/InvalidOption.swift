import RunAnywhere

extension LLMGenerationOptions {
    /// Throws the SDK's error for the first of these options that no engine can honour as a 400
    /// whose `param` is the request's field that carried it: `fields` maps the option's name
    /// (``LLMGenerationOptions``' property) to the field as the request's dialect spells it.
    func check(fields: [String: String]) throws {
        guard let invalid = firstInvalidOption() else { return }
        throw APIError(.badRequest, invalid.error.message, param: fields[invalid.name], code: invalid.error.code.rawValue)
    }
}

extension DiffusionGenerationOptions {
    /// Throws the SDK's error for the first value out of range as a 400 whose `param` is the
    /// request's field that carried it: `fields` maps the option's name to the field.
    func check(fields: [String: String]) throws {
        guard let invalid = firstInvalidOption() else { return }
        throw APIError(.badRequest, invalid.error.message, param: fields[invalid.name] ?? invalid.name, code: invalid.error.code.rawValue)
    }
}
