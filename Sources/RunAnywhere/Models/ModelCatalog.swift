import Foundation
import Logging
import Synchronization

/// The models the SDK knows: the built-in entries plus the user's, which are kept in
/// `<models>/registry.json` (atomic writes, a file lock around every change, and a corrupt file
/// moved aside and reported rather than silently replaced).
final class ModelCatalog: Sendable {
    private struct RegistryFile: Codable, Sendable {
        var version = 1
        var models: [ModelInfo] = []
    }

    /// Which version of the registry file a read saw: a rewrite (the catalog's own, a rename over
    /// it) is a new file; an edit in place changes its size or, a clock tick later, its
    /// modification time.
    private struct FileVersion: Equatable {
        let device: UInt, inode: UInt, size: Int, seconds: Int, nanoseconds: Int
    }

    let modelsDirectory: URL
    private let logger: Logger
    private let builtIn: [ModelInfo]
    /// The registry as last read, and the file it was read from: every request looks its model
    /// up, and reading and decoding the file each time was a fair part of serving a request,
    /// while another process (the CLI) may change it at any time.
    private let lastRead = Mutex<(version: FileVersion, registry: RegistryFile)?>(nil)

    init(modelsDirectory: URL, logger: Logger) {
        self.modelsDirectory = modelsDirectory
        self.logger = logger
        self.builtIn = BuiltInModels.all(modelsDirectory: modelsDirectory)
    }

    private var registryURL: URL { modelsDirectory.appendingPathComponent(SDKConstants.Files.modelRegistry) }
    private var lockURL: URL { modelsDirectory.appendingPathComponent(".registry.lock") }

    /// Built-in models first, then the user's in the order they were added.
    func all() -> [ModelInfo] {
        builtIn + userModels()
    }

    /// The model with `id`. A name as ollama writes them, `[host/][namespace/]name[:tag]`
    /// (`llama3.2:3b`, `library/qwen3:8b`), is looked for and not found (no model here has one;
    /// ollama's clients offer to pull on that answer), where any other text that cannot be an id
    /// is refused as one.
    func model(id: String) throws -> ModelInfo {
        do {
            try ModelInfo.validateID(id)
        } catch {
            let segments = id.split(separator: "/", omittingEmptySubsequences: false)
            let tagged = segments.dropLast() + (segments.last?.split(separator: ":", omittingEmptySubsequences: false) ?? [])
            guard segments.count <= 3, tagged.count <= segments.count + 1,
                (try? tagged.map(String.init).forEach(ModelInfo.validateID)) != nil
            else { throw error }
        }
        guard let model = all().first(where: { $0.id == id }) else {
            throw SDKError(.modelNotFound, "Model '\(id)' not found; `runanywhere models list` shows the known models")
        }
        return model
    }

    /// Throws ``ErrorCode/modelAlreadyExists`` when the id `id` is taken: a check before long
    /// work for a new model (``add(_:install:)`` checks again).
    func checkFree(_ id: String) throws {
        if builtIn.contains(where: { $0.id == id }) || readRegistry().models.contains(where: { $0.id == id }) { throw Self.taken(id) }
    }

    private static func taken(_ id: String) -> SDKError {
        SDKError(.modelAlreadyExists, "A model with id '\(id)' already exists; choose another id")
    }

    /// Persists a user model; its id must be new. `install` runs under the registry lock once the
    /// id is known to be free (to move the model's files into place), before the entry is saved.
    func add(_ model: ModelInfo, install: () throws -> Void = {}) throws {
        try ModelInfo.validateID(model.id)
        try FileLock.withLock(at: lockURL) {
            var registry = readRegistry()
            if builtIn.contains(where: { $0.id == model.id }) || registry.models.contains(where: { $0.id == model.id }) {
                throw Self.taken(model.id)
            }
            try install()
            registry.models.append(model)
            try write(registry)
        }
    }

    /// Replaces the saved entry of a user model (e.g. its format once confirmed after download).
    func update(_ model: ModelInfo) throws {
        try FileLock.withLock(at: lockURL) {
            var registry = readRegistry()
            guard let index = registry.models.firstIndex(where: { $0.id == model.id }) else { return }
            registry.models[index] = model
            try write(registry)
        }
    }

    /// Removes a user model's entry.
    func remove(id: String) throws {
        try FileLock.withLock(at: lockURL) {
            var registry = readRegistry()
            registry.models.removeAll { $0.id == id }
            try write(registry)
        }
    }

    /// Whether `id` is a built-in entry.
    func isBuiltIn(_ id: String) -> Bool { builtIn.contains { $0.id == id } }

    /// Whether a built-in or user model has this id.
    func contains(id: String) -> Bool { (try? model(id: id)) != nil }

    private func userModels() -> [ModelInfo] {
        readRegistry().models
    }

    private func readRegistry() -> RegistryFile {
        let version = fileVersion()
        if let version, let last = lastRead.withLock({ $0 }), last.version == version { return last.registry }
        guard let data = FileManager.default.contents(atPath: registryURL.path) else { return RegistryFile() }
        do {
            let registry = try JSONDecoder.runAnywhere.decode(RegistryFile.self, from: data)
            // Kept only if the file did not change while it was read.
            if let version, version == fileVersion() { lastRead.withLock { $0 = (version, registry) } }
            return registry
        } catch {
            do {
                let aside = try AtomicFile.moveAside(registryURL)
                logger.error(
                    "The model registry was unreadable and was moved aside",
                    metadata: [
                        "file": "\(registryURL.path)", "movedTo": "\(aside.path)", "error": "\(error)",
                    ])
            } catch let moveError {
                logger.error(
                    "The model registry is unreadable and could not be moved aside",
                    metadata: [
                        "file": "\(registryURL.path)", "error": "\(moveError)",
                    ])
            }
            return RegistryFile()
        }
    }

    private func fileVersion() -> FileVersion? {
        var info = stat()
        guard stat(registryURL.path, &info) == 0 else { return nil }
        return FileVersion(
            device: UInt(info.st_dev), inode: UInt(info.st_ino), size: Int(info.st_size), seconds: info.st_mtim.tv_sec,
            nanoseconds: info.st_mtim.tv_nsec)
    }

    private func write(_ registry: RegistryFile) throws {
        do {
            try AtomicFile.write(try JSONEncoder.runAnywhere.encode(registry), to: registryURL)
        } catch {
            throw SDKError.writeFailed("Cannot save the model registry \(registryURL.path)", error)
        }
    }
}

extension JSONEncoder {
    /// Pretty, sorted, ISO-8601 dates with milliseconds: the SDK's files and `--json` output.
    package static var runAnywhere: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            // Rounded to the nearest millisecond, as the style alone truncates: a date read back
            // (a binary fraction just under the millisecond written) then writes the same text,
            // so a file saved again, or a value printed before and after it was saved, keeps it.
            try container.encode(
                date.addingTimeInterval(0.0005).formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)))
        }
        return encoder
    }
}

extension JSONDecoder {
    /// Reads what ``JSONEncoder.runAnywhere`` writes.
    package static var runAnywhere: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) { return date }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "Not an ISO-8601 date: \(text)"))
        }
        return decoder
    }
}
