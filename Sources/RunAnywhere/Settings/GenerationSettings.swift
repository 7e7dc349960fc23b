import Foundation

/// The user's generation defaults, applied to every generation that does not override them.
public struct GenerationSettings: Codable, Sendable, Equatable {
    /// Sampling temperature, 0 to 2.
    public var temperature: Float = SDKConstants.Generation.temperature
    /// Most tokens of an answer; at least 1 and within the model's context.
    public var maxTokens: Int = SDKConstants.Generation.chatMaxTokens
    /// Nucleus sampling threshold, in (0, 1].
    public var topP: Float = SDKConstants.Generation.topP
    /// Top-k cut; 0 disables it.
    public var topK: Int = SDKConstants.Generation.topK
    /// The system prompt, if any.
    public var systemPrompt: String?
    /// Whether answers are streamed.
    public var streaming: Bool = SDKConstants.Generation.streaming
    /// CPU threads; nil uses all cores, at most 4.
    public var threads: Int?
    /// Speculative decoding: the most tokens guessed a step, 0 for none; nil keeps the model's
    /// own setting (``ModelLoadOptions/speculation``), or 8 with a ``draftModel``.
    public var speculate: Int?
    /// The draft model that guesses (a model id or a GGUF path; see
    /// ``LLMSpeculation/draftModel(model:maxDraftTokens:)``); nil guesses by prompt lookup.
    public var draftModel: String?

    /// The defaults.
    public init() {}

    /// The keys `set(_:to:)` accepts.
    package static let keys = [
        "temperature", "maxTokens", "topP", "topK", "systemPrompt", "streaming", "threads", "speculate", "draftModel",
    ]

    /// Generation options from these settings.
    public var options: LLMGenerationOptions {
        LLMGenerationOptions(
            maxTokens: maxTokens, temperature: temperature, topP: topP, topK: topK, streamingEnabled: streaming,
            systemPrompt: systemPrompt, threads: threads,
            speculation: speculate == nil && draftModel == nil ? nil : LLMSpeculation(draftTokens: speculate ?? 8, draftModel: draftModel)
        )
    }

    /// Throws a clear error for values out of range.
    public func validate() throws {
        try options.validate()
    }

    /// Sets `key` from text as a user types it, checking the value. `systemPrompt ""`,
    /// `threads auto`, `speculate auto` and `draftModel ""` clear those settings; an empty value
    /// puts the others back to their defaults (a JSON `null` in a change of the settings).
    package mutating func set(_ key: String, to value: String) throws {
        if value.isEmpty, ["temperature", "maxTokens", "topP", "topK", "streaming"].contains(key) {
            let defaults = GenerationSettings()
            switch key {
            case "temperature": temperature = defaults.temperature
            case "maxTokens": maxTokens = defaults.maxTokens
            case "topP": topP = defaults.topP
            case "topK": topK = defaults.topK
            default: streaming = defaults.streaming
            }
            return
        }
        let invalid = SDKError(.invalidInput, "'\(value)' is not a valid value for \(key)")
        func number<T: LosslessStringConvertible>(_: T.Type) throws -> T {
            guard let parsed = T(value.trimmingCharacters(in: .whitespaces)) else { throw invalid }
            return parsed
        }
        // A number too small in size for a Float stays non-zero, as topP's "more than 0" needs.
        func real() throws -> Float {
            guard let parsed = Float(keepingSign: try number(Double.self)) else { throw invalid }
            return parsed
        }
        var updated = self
        switch key {
        case "temperature": updated.temperature = try real()
        case "maxTokens": updated.maxTokens = try number(Int.self)
        case "topP": updated.topP = try real()
        case "topK": updated.topK = try number(Int.self)
        case "systemPrompt": updated.systemPrompt = value.isEmpty ? nil : value
        case "streaming":
            switch value.lowercased() {
            case "true", "on", "yes", "1": updated.streaming = true
            case "false", "off", "no", "0": updated.streaming = false
            default: throw SDKError(.invalidInput, "streaming takes on or off, not '\(value)'")
            }
        case "threads": updated.threads = value.lowercased() == "auto" ? nil : try number(Int.self)
        case "speculate": updated.speculate = ["auto", ""].contains(value.lowercased()) ? nil : try number(Int.self)
        case "draftModel":
            let reference = value.trimmingCharacters(in: .whitespaces)
            updated.draftModel = reference.isEmpty ? nil : reference
        default:
            throw SDKError(.invalidInput, "Unknown setting '\(key)'; the settings are \(Self.keys.joined(separator: ", "))")
        }
        do {
            try updated.validate()
        } catch let error as SDKError {
            throw SDKError(.invalidInput, error.message.replacingOccurrences(of: "Invalid generation options: ", with: "Invalid setting: "))
        }
        self = updated
    }

    /// Checks that ``draftModel`` names a draft a generation could use (a GGUF file, or the id of
    /// a GGUF language model, which may be downloaded later), looking ids up with `model`.
    package func checkDraftModel(model: (String) throws -> ModelInfo) throws {
        guard let draftModel else { return }
        do {
            _ = try LLMSpeculation(draftTokens: 8, draftModel: draftModel).resolved(model: model)
        } catch let error as SDKError where error.code == .modelNotDownloaded {
            return
        } catch let error as SDKError {
            throw SDKError(.invalidInput, "Invalid setting: \(error.message)")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case temperature, maxTokens, topP, topK, systemPrompt, streaming, threads, speculate, draftModel
    }

    /// Reads settings; keys missing from the file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = GenerationSettings()
        temperature = try container.decodeIfPresent(Float.self, forKey: .temperature) ?? defaults.temperature
        maxTokens = try container.decodeIfPresent(Int.self, forKey: .maxTokens) ?? defaults.maxTokens
        topP = try container.decodeIfPresent(Float.self, forKey: .topP) ?? defaults.topP
        topK = try container.decodeIfPresent(Int.self, forKey: .topK) ?? defaults.topK
        systemPrompt = try container.decodeIfPresent(String.self, forKey: .systemPrompt)
        streaming = try container.decodeIfPresent(Bool.self, forKey: .streaming) ?? defaults.streaming
        threads = try container.decodeIfPresent(Int.self, forKey: .threads)
        speculate = try container.decodeIfPresent(Int.self, forKey: .speculate)
        draftModel = try container.decodeIfPresent(String.self, forKey: .draftModel)
    }
}

/// The settings file, `<data>/settings.json`. Changes are made under a file lock, so two
/// processes changing different keys at once both keep theirs.
package struct SettingsStore: Sendable {
    /// The file.
    package let url: URL
    private var lockURL: URL { url.deletingLastPathComponent().appendingPathComponent(".settings.lock") }

    /// A store in `dataDirectory`.
    package init(dataDirectory: URL) {
        url = dataDirectory.appendingPathComponent(SDKConstants.Files.settings)
    }

    /// The saved settings; the defaults when there are none. A file that cannot be read or holds
    /// values out of range is moved aside and reported in the error.
    package func load() throws -> GenerationSettings {
        guard let data = FileManager.default.contents(atPath: url.path) else { return GenerationSettings() }
        do {
            let settings = try JSONDecoder.runAnywhere.decode(GenerationSettings.self, from: data)
            try settings.validate()
            return settings
        } catch {
            let aside = try? AtomicFile.moveAside(url)
            throw SDKError.fileManagement(
                .modelStorageCorrupted,
                "The settings file \(url.path) was unreadable (\(error.localizedDescription))\(aside.map { "; it was moved to \($0.path) and the defaults apply" } ?? "")"
            )
        }
    }

    /// Saves `settings` after checking them, replacing every saved value.
    package func save(_ settings: GenerationSettings) throws {
        try FileLock.withLock(at: lockURL) { try write(settings) }
    }

    /// Reads the saved settings, applies `change` and saves the result after checking it, while
    /// holding the lock: the way to change some keys without undoing another process's change.
    /// Unreadable settings are reported as ``load()`` reports them.
    @discardableResult
    package func update(_ change: (inout GenerationSettings) throws -> Void) throws -> GenerationSettings {
        try FileLock.withLock(at: lockURL) {
            var settings = try load()
            try change(&settings)
            try write(settings)
            return settings
        }
    }

    /// Removes the saved settings, so the defaults apply.
    package func reset() throws {
        try FileLock.withLock(at: lockURL) {
            try AtomicFile.remove(url)
        }
    }

    private func write(_ settings: GenerationSettings) throws {
        try settings.validate()
        do {
            try AtomicFile.write(try JSONEncoder.runAnywhere.encode(settings), to: url)
        } catch {
            throw SDKError.writeFailed("Cannot save settings to \(url.path)", error)
        }
    }
}
