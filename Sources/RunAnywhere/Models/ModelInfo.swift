import Foundation

/// A model the SDK knows: from the built-in catalog, or registered or imported by the user.
public struct ModelInfo: Codable, Sendable, Identifiable, Equatable {
    /// Unique id; safe as a folder name (see `ModelInfo.validateID(_:)`).
    public let id: String
    /// A name for people.
    public let name: String
    /// What the model does.
    public let category: ModelCategory
    /// The model file's format.
    public let format: ModelFormat
    /// Where the model can be downloaded from, when it can.
    public let downloadURL: URL?
    /// The model file on this machine, or its folder for archives and multi-file models.
    public var localPath: URL?
    /// How the model's files arrive: one file, an archive, or several files.
    public let artifactType: ModelArtifactType
    /// Size of the download in bytes, when known.
    public let downloadSize: Int64?
    /// The framework the model runs on.
    public let framework: InferenceFramework
    /// The context window in tokens (language and multimodal models only).
    public let contextLength: Int?
    /// Whether the model emits reasoning between thinking tags.
    public let supportsThinking: Bool
    /// The thinking tags, when the model supports thinking.
    public let thinkingPattern: ThinkingTagPattern?
    /// A short description.
    public let description: String?
    /// Built-in catalog (`remote`) or user-added (`local`).
    public let source: ModelSource
    /// When the entry was created.
    public let createdAt: Date
    /// When the entry last changed.
    public var updatedAt: Date
    /// Expected sha256 of the model file (lowercase hex), when known. Additive to the spec.
    public let sha256: String?
    /// The model's licence, when known. Additive to the spec.
    public let license: String?
    /// How the model is shown tools and writes its calls; nil reads it from the model's chat
    /// template (`ToolCallFormat.detect(chatTemplate:)`). Additive to the spec.
    public let toolCallFormat: ToolCallFormat?
    /// What the model adds to its file: a system prompt, first messages and generation settings
    /// (a model made with ollama's create and a Modelfile); nil for none.
    package var defaults: ModelDefaults?

    /// Creates a model entry. Language and multimodal models get a 2048-token context when none
    /// is given; thinking is only kept for categories that support it.
    public init(
        id: String,
        name: String,
        category: ModelCategory,
        format: ModelFormat,
        framework: InferenceFramework,
        downloadURL: URL? = nil,
        localPath: URL? = nil,
        artifactType: ModelArtifactType? = nil,
        downloadSize: Int64? = nil,
        contextLength: Int? = nil,
        supportsThinking: Bool = false,
        thinkingPattern: ThinkingTagPattern? = nil,
        description: String? = nil,
        source: ModelSource = .remote,
        createdAt: Date = Date(),
        updatedAt: Date = Date(),
        sha256: String? = nil,
        license: String? = nil,
        toolCallFormat: ToolCallFormat? = nil
    ) {
        self.id = id
        self.name = name
        self.category = category
        self.format = format
        self.framework = framework
        self.downloadURL = downloadURL
        self.localPath = localPath
        self.artifactType = artifactType ?? .infer(from: downloadURL)
        self.downloadSize = downloadSize
        self.contextLength = category.requiresContextLength ? (contextLength ?? SDKConstants.Limits.defaultContextLength) : contextLength
        let thinking = category.supportsThinking && supportsThinking
        self.supportsThinking = thinking
        self.thinkingPattern = thinking ? (thinkingPattern ?? .defaultPattern) : nil
        self.description = description
        self.source = source
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.sha256 = sha256
        self.license = license
        self.toolCallFormat = toolCallFormat
    }

    /// Whether the model is one of the test fixtures scripts/setup writes (random weights).
    package var isTestFixture: Bool { SDKConstants.Models.fixtureIDs.contains(id) }

    /// Whether the model's files are on this machine (all of them, for a multi-file model).
    public var isDownloaded: Bool {
        guard let localPath else { return false }
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: localPath.path, isDirectory: &isDirectory) else { return false }
        guard isDirectory.boolValue else { return true }
        if case .multiFile(let files) = artifactType {
            return files.allSatisfy { manager.fileExists(atPath: localPath.appendingPathComponent($0.filename).path) }
        }
        return ((try? manager.contentsOfDirectory(atPath: localPath.path)) ?? []).contains {
            !$0.hasPrefix(".") && $0 != ModelDefaults.loraFolder
        }
    }

    /// The file an engine opens: `localPath` itself, or in a model folder the largest file of
    /// the model's format (a vision projector, `mmproj`, is never the primary file, nor one of
    /// the model's LoRA adapters).
    public var primaryFile: URL? {
        guard let localPath, isDownloaded else { return nil }
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: localPath.path, isDirectory: &isDirectory)
        guard isDirectory.boolValue else { return localPath }
        let files = (FileManager.default.enumerator(at: localPath, includingPropertiesForKeys: [.fileSizeKey])?.allObjects as? [URL]) ?? []
        let adapters = localPath.appendingPathComponent(ModelDefaults.loraFolder).standardizedFileURL.path + "/"
        let candidates = files.filter { url in
            !url.lastPathComponent.hasPrefix(".") && !url.lastPathComponent.lowercased().contains("mmproj")
                && !url.standardizedFileURL.path.hasPrefix(adapters)
                && (format == .unknown || ModelFormat.detect(fromPath: url.lastPathComponent) == format)
        }
        return candidates.max { Self.size(of: $0) < Self.size(of: $1) }
    }

    /// The vision projector (`mmproj`) of a vision-language model: the GGUF in the model's
    /// folder whose name contains "mmproj"; nil for a model without one.
    public var projectorFile: URL? {
        guard let localPath, format == .gguf, isDownloaded else { return nil }
        let files = (try? FileManager.default.contentsOfDirectory(at: localPath, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.lastPathComponent.lowercased().contains("mmproj") && $0.pathExtension.lowercased() == "gguf" }
            .min { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The size in bytes of ``primaryFile``, or ``downloadSize`` when the model is not on this
    /// machine (0 when neither is known); what engines base their memory estimates on.
    public var primaryFileSize: Int64 {
        primaryFile.map(Self.size(of:)) ?? downloadSize ?? 0
    }

    private static func size(of url: URL) -> Int64 {
        Int64((try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
    }

    /// Whether the model can be loaded now; the same as ``isDownloaded``.
    public var isAvailable: Bool { isDownloaded }

    /// Checks that `id` is safe as a model id and folder name: 1 to 128 characters of letters,
    /// digits, `.`, `_` and `-`, not starting with `.` or `-`, and no `..`; or a model provider's
    /// reference, such as `hf.co/OWNER/REPO:QUANT`: a host name (with a dot), then names of that
    /// kind separated by `/`, the last with an optional `:TAG` of that kind. A reference's folder
    /// is nested the same way.
    package static func validateID(_ id: String) throws {
        func invalid(_ why: String) -> SDKError {
            SDKError(.invalidInput, "Invalid model id '\(id.debugDescription.dropFirst().dropLast())': \(why)")
        }
        guard !id.isEmpty else { throw invalid("it is empty") }
        guard id.utf8.count <= SDKConstants.Limits.modelIDLength else {
            throw invalid("it is longer than \(SDKConstants.Limits.modelIDLength) characters")
        }
        let segments = id.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.count > 1, segments[0].contains("."), !segments[0].hasPrefix(".") {
            let names =
                segments.dropLast()
                + segments[segments.count - 1].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard names.allSatisfy({ nameProblem($0) == nil }) else {
                throw invalid(
                    "a reference is a host, then names of letters, digits, '.', '_' and '-' separated by '/', the last with an optional ':TAG' (e.g. hf.co/OWNER/REPO:Q4_K_M)"
                )
            }
            return
        }
        if let problem = nameProblem(id) { throw invalid(problem) }
    }

    /// What is wrong with `name` as a plain id (or one name of a reference); nil when nothing is.
    private static func nameProblem(_ name: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        if name.isEmpty { return "it has an empty name" }
        if !name.allSatisfy({ allowed.contains($0) }) {
            return "use only letters, digits, '.', '_' and '-' (no '/', spaces or control characters)"
        }
        if name.hasPrefix(".") || name.hasPrefix("-") { return "it must not start with '.' or '-'" }
        if name.contains("..") { return "it must not contain '..'" }
        return nil
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, category, format, downloadURL, localPath, artifactType, downloadSize, framework, contextLength
        case supportsThinking, thinkingPattern, description, source, createdAt, updatedAt, sha256, license, toolCallFormat, defaults
    }

    /// Reads a model entry; fields added after an entry was saved take their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        category = try c.decode(ModelCategory.self, forKey: .category)
        format = try c.decode(ModelFormat.self, forKey: .format)
        downloadURL = try c.decodeIfPresent(URL.self, forKey: .downloadURL)
        localPath = try c.decodeIfPresent(URL.self, forKey: .localPath)
        artifactType = try c.decodeIfPresent(ModelArtifactType.self, forKey: .artifactType) ?? .infer(from: downloadURL)
        downloadSize = try c.decodeIfPresent(Int64.self, forKey: .downloadSize)
        framework = try c.decode(InferenceFramework.self, forKey: .framework)
        contextLength = try c.decodeIfPresent(Int.self, forKey: .contextLength)
        supportsThinking = try c.decodeIfPresent(Bool.self, forKey: .supportsThinking) ?? false
        thinkingPattern = try c.decodeIfPresent(ThinkingTagPattern.self, forKey: .thinkingPattern)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        source = try c.decodeIfPresent(ModelSource.self, forKey: .source) ?? .local
        createdAt = try c.decodeIfPresent(Date.self, forKey: .createdAt) ?? Date(timeIntervalSince1970: 0)
        updatedAt = try c.decodeIfPresent(Date.self, forKey: .updatedAt) ?? createdAt
        sha256 = try c.decodeIfPresent(String.self, forKey: .sha256)
        license = try c.decodeIfPresent(String.self, forKey: .license)
        toolCallFormat = try c.decodeIfPresent(ToolCallFormat.self, forKey: .toolCallFormat)
        defaults = try c.decodeIfPresent(ModelDefaults.self, forKey: .defaults)
    }
}
