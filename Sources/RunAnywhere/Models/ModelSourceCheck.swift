/// A field of an add-model request, as `ModelSourceProblem` names it.
package enum ModelSourceField: String, Sendable, Codable {
    /// A field of a model source entry that a check found wrong.
    case url, framework, id, sha256
}

/// One thing wrong with a model to add from a URL, and the field it belongs to.
package struct ModelSourceProblem: Sendable, Equatable, Codable {
    /// The field to correct.
    package let field: ModelSourceField
    /// What is wrong, for people.
    package let message: String
    /// The error code ``RunAnywhereRuntime/addModel(from:category:framework:id:name:sha256:supportsThinking:)`` throws for it.
    package let code: ErrorCode

    /// Creates a problem.
    package init(_ field: ModelSourceField, _ code: ErrorCode, _ message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    /// A problem of `field` from the error that checking it threw.
    init(_ field: ModelSourceField, _ error: any Error) {
        let failure = (error as? SDKError) ?? SDKError(.invalidInput, "\(error)")
        self.init(field, failure.code, failure.message)
    }

    /// The problem as the error adding the model throws.
    package var error: SDKError { SDKError(code, message, category: .fileManagement) }
}

/// What checking a model to add from a URL found (spec issue 70's validation before anything
/// is downloaded): the format the URL shows, the framework that would run it, every problem by
/// field, and, when there is none, the model that adding would register.
package struct ModelSourceCheck: Sendable, Equatable, Codable {
    /// The format the URL's extension shows (`unknown` when it shows none).
    package let detectedFormat: ModelFormat
    /// The framework that would run it: the one asked for, else the first available that fits.
    package let framework: InferenceFramework?
    /// Every problem found, at most one per field.
    package let problems: [ModelSourceProblem]
    /// The model adding would register; nil when there are problems.
    package let model: ModelInfo?

    /// Creates a check's result.
    package init(detectedFormat: ModelFormat, framework: InferenceFramework?, problems: [ModelSourceProblem], model: ModelInfo?) {
        self.detectedFormat = detectedFormat
        self.framework = framework
        self.problems = problems
        self.model = model
    }

    /// A check that found one problem before anything else could be checked.
    package init(problem: ModelSourceProblem, detectedFormat: ModelFormat) {
        self.init(detectedFormat: detectedFormat, framework: nil, problems: [problem], model: nil)
    }
}
