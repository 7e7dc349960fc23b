import RunAnywhere

extension LLMGenerationOptions {
    /// Throws the SDK's error for the first of these options that no engine can honour as a 400
    /// whose `param` is the request's field that carried it: `fields` maps the option's name
    /// (``LLMGenerationOptions``' property) to the field as the request's dialect spells it.
    func check(fields: [String: String]) throws {
        guard let invalid = firstInvalidOption() else { return }
        throw APIError(invalid.error, option: invalid.name, field: fields[invalid.name])
    }
}

extension DiffusionGenerationOptions {
    /// Throws the SDK's error for the first value out of range as a 400 whose `param` is the
    /// request's field that carried it: `fields` maps the option's name to the field.
    func check(fields: [String: String]) throws {
        guard let invalid = firstInvalidOption() else { return }
        throw APIError(invalid.error, option: invalid.name, field: fields[invalid.name] ?? invalid.name)
    }
}

extension APIError {
    /// A 400 for the SDK's refusal of the option `option`, which the request sent as `field`: the
    /// message names the field as the client wrote it (`max_tokens must be at least 1`, not the
    /// SDK's `maxTokens`).
    fileprivate init(_ error: SDKError, option: String, field: String?) {
        self.init(.badRequest, field.map { error.message(calling: option, $0) } ?? error.message, param: field, code: error.code.rawValue)
    }
}

extension APIError {
    /// A 400 for the SDK's refusal of a request's tools: the options it names called as `fields`
    /// maps them (`toolChoice` as `tool_choice`), and `param` the first of those it names, else
    /// `tools`.
    static func tools(_ error: SDKError, fields: [String: String]) -> APIError {
        var (message, param) = (error.message, "tools")
        for (option, field) in fields.sorted(by: { $0.key < $1.key }) {
            let renamed = SDKError(error.code, message).message(calling: option, field)
            if renamed != message, param == "tools" { param = field }
            message = renamed
        }
        return APIError(.badRequest, message, param: param)
    }
}
