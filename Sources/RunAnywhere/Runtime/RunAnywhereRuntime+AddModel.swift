import Foundation

extension RunAnywhereRuntime {
    /// Adds a model from a URL (spec issue 70): the modality comes first, and only a framework
    /// that does it and reads the URL's format is accepted, before anything is downloaded.
    /// `framework` defaults to the first available one that fits. A URL without a definite
    /// extension (none, or `.bin`) is checked by the file's header after download. Archives
    /// (`.zip`, `.tar.gz`, `.tar.bz2`, `.tar.xz`) are extracted after download. Throws the first
    /// problem `checkModelSource(_:category:framework:id:name:sha256:supportsThinking:)` finds.
    @discardableResult
    public nonisolated func addModel(
        from url: URL, category: ModelCategory, framework: InferenceFramework? = nil, id: String? = nil, name: String? = nil,
        sha256: String? = nil, supportsThinking: Bool = false
    ) throws -> ModelInfo {
        try addModel(
            checkModelSource(
                url, category: category, framework: framework, id: id, name: name, sha256: sha256, supportsThinking: supportsThinking))
    }

    /// Adds the model `check` found (`checkModelSource(_:category:framework:id:name:sha256:supportsThinking:)`),
    /// so that a caller that has shown the check does not make it again; throws its first
    /// problem, or ``ErrorCode/modelAlreadyExists`` when the id was taken since.
    @discardableResult
    package nonisolated func addModel(_ check: ModelSourceCheck) throws -> ModelInfo {
        if let problem = check.problems.first { throw problem.error }
        guard let model = check.model else { throw SDKError(.invalidInput, "The check found no model to add") }
        try catalog.add(model)
        events.publish(.modelRegistered(modelId: model.id))
        return try catalog.model(id: model.id)
    }

    /// Checks a model to add from a URL without adding it, and says what is wrong with each
    /// field (the web app shows them inline as the user types): the URL must name a file over
    /// http, https or file; the id (given, or derived from the file name) must be valid and
    /// free; the framework must run here, do the category's modality and read the URL's format;
    /// a sha256 must be 64 hexadecimal digits.
    package nonisolated func checkModelSource(
        _ url: URL, category: ModelCategory, framework: InferenceFramework? = nil, id: String? = nil, name: String? = nil,
        sha256: String? = nil, supportsThinking: Bool = false
    ) -> ModelSourceCheck {
        var problems: [ModelSourceProblem] = []
        let format = ModelFormat.detectFromURL(url)
        let archive = ArchiveType.from(path: url.path)
        var fileName: String?
        var modelID: String?
        do {
            fileName = try Self.sourceFile(url).fileName
        } catch {
            problems.append(ModelSourceProblem(.url, error))
        }
        do {
            if id != nil || fileName != nil {  // a given id is checked even when the URL is wrong
                let checked = try Self.sourceID(id, fileName: fileName ?? "")
                modelID = checked
                if catalog.contains(id: checked) {
                    problems.append(
                        ModelSourceProblem(.id, .modelAlreadyExists, "A model with id '\(checked)' already exists; choose another id"))
                }
            }
        } catch {
            problems.append(ModelSourceProblem(.id, error))
        }
        if let sha256, sha256.count != 64 || !sha256.allSatisfy(\.isHexDigit) {
            problems.append(ModelSourceProblem(.sha256, .invalidInput, "'\(sha256)' is not a sha256 (64 hexadecimal digits)"))
        }
        let chosen = framework ?? defaultFramework(for: FrameworkModality(category: category), format: format)
        if let chosen {
            if let problem = frameworkProblem(chosen, category: category, format: format, archive: archive) { problems.append(problem) }
        } else {
            let modality = FrameworkModality(category: category).rawValue
            problems.append(
                ModelSourceProblem(
                    .framework, .frameworkNotAvailable,
                    "No installed framework runs \(modality) models\(format == .unknown ? "" : " in \(format.rawValue) format")"))
        }
        guard problems.isEmpty, let chosen, let fileName, let modelID else {
            return ModelSourceCheck(detectedFormat: format, framework: chosen, problems: problems, model: nil)
        }
        let folder = catalog.modelsDirectory.appendingPathComponent(modelID)
        let model = ModelInfo(
            id: modelID, name: name.flatMap { $0.isEmpty ? nil : $0 } ?? (fileName as NSString).deletingPathExtension, category: category,
            format: format.isDefinite ? format : (chosen.formats.first ?? .unknown), framework: chosen, downloadURL: url,
            localPath: archive == nil ? folder.appendingPathComponent(fileName) : folder, supportsThinking: supportsThinking,
            description: "Added from \(url.absoluteString)", source: .local, sha256: sha256?.lowercased()
        )
        return ModelSourceCheck(detectedFormat: format, framework: chosen, problems: [], model: model)
    }

    /// Why `framework` cannot run a `category` model in `format`; nil when it can.
    private nonisolated func frameworkProblem(
        _ framework: InferenceFramework, category: ModelCategory, format: ModelFormat, archive: ArchiveType?
    ) -> ModelSourceProblem? {
        let modality = FrameworkModality(category: category)
        if let restriction = framework.platformRestriction { return ModelSourceProblem(.framework, .frameworkNotAvailable, restriction) }
        guard frameworks.frameworkSupports(framework, modality: modality) else {
            let options = frameworks.frameworks(for: modality).map(\.displayName)
            return ModelSourceProblem(
                .framework, .modelIncompatible,
                "\(framework.displayName) does not run \(modality.rawValue) models; \(options.isEmpty ? "no installed framework does" : "use \(options.joined(separator: " or "))")"
            )
        }
        if archive == nil, format.isDefinite, !framework.formats.contains(format) {
            return ModelSourceProblem(
                .framework, .modelIncompatible,
                "\(framework.displayName) reads \(framework.formats.map(\.rawValue).joined(separator: ", ")) models; this URL points to a \(format.rawValue) file"
            )
        }
        return nil
    }

    /// The first available framework that does `modality` and reads `format`.
    private nonisolated func defaultFramework(for modality: FrameworkModality, format: ModelFormat) -> InferenceFramework? {
        frameworks.frameworks(for: modality).first { format == .unknown || $0.formats.contains(format) }
    }
}

extension ModelFormat {
    /// Whether a URL's extension settles the format: `.bin` says nothing definite (ggml,
    /// PyTorch, raw weights), so the file's header decides after download.
    fileprivate var isDefinite: Bool { self != .unknown && self != .bin }
}
