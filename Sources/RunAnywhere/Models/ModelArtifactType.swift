import Foundation

/// An archive a model is packed in; it is extracted after download.
public enum ArchiveType: String, Codable, Sendable, CaseIterable {
    /// A ZIP archive.
    case zip = "zip"
    /// A gzip-compressed tar archive.
    case tarGz = "tar.gz"
    /// A bzip2-compressed tar archive.
    case tarBz2 = "tar.bz2"
    /// An xz-compressed tar archive.
    case tarXz = "tar.xz"

    /// The archive type a file name or URL path ends with (query strings ignored).
    package static func from(path: String) -> ArchiveType? {
        let name = (path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path).lowercased()
        if name.hasSuffix(".zip") { return .zip }
        if name.hasSuffix(".tar.gz") || name.hasSuffix(".tgz") { return .tarGz }
        if name.hasSuffix(".tar.bz2") || name.hasSuffix(".tbz2") { return .tarBz2 }
        if name.hasSuffix(".tar.xz") || name.hasSuffix(".txz") { return .tarXz }
        return nil
    }
}

/// One file of a model made of several (e.g. a vision model and its projector, a voice and its config).
public struct ModelFileDescriptor: Codable, Sendable, Equatable {
    /// Where to download it.
    public let url: URL
    /// Its name in the model's folder.
    public let filename: String
    /// Its expected sha256 (lowercase hex), when known.
    public let sha256: String?

    /// Describes one file: where to download it, its name on disk (by default the URL's) and its
    /// SHA-256, when known.
    public init(url: URL, filename: String? = nil, sha256: String? = nil) {
        self.url = url
        self.filename = filename ?? url.lastPathComponent
        self.sha256 = sha256
    }
}

/// How a model's files arrive.
public enum ModelArtifactType: Sendable, Equatable, Codable {
    /// One file, used as downloaded.
    case singleFile
    /// An archive, extracted into the model's folder.
    case archive(ArchiveType)
    /// Several files, downloaded into the model's folder.
    case multiFile([ModelFileDescriptor])

    /// What a download URL suggests.
    package static func infer(from url: URL?) -> ModelArtifactType {
        guard let url, let archive = ArchiveType.from(path: url.path) else { return .singleFile }
        return .archive(archive)
    }

    /// A name for people.
    public var displayName: String {
        switch self {
        case .singleFile: "Single File"
        case .archive(let type): "\(type.rawValue.uppercased()) Archive"
        case .multiFile(let files): "Multi-File (\(files.count) files)"
        }
    }

    private enum CodingKeys: String, CodingKey { case type, archiveType, files }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "archive": self = .archive(try container.decode(ArchiveType.self, forKey: .archiveType))
        case "multiFile": self = .multiFile(try container.decode([ModelFileDescriptor].self, forKey: .files))
        default: self = .singleFile
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .singleFile: try container.encode("singleFile", forKey: .type)
        case .archive(let type):
            try container.encode("archive", forKey: .type)
            try container.encode(type, forKey: .archiveType)
        case .multiFile(let files):
            try container.encode("multiFile", forKey: .type)
            try container.encode(files, forKey: .files)
        }
    }
}
