import Crypto
import Foundation
import Logging
import RunAnywhere

/// The saved states of one model's long prompts (``RunAnywhere/SavedPrompts``), in a folder of
/// their own for the model file and the load options that shape a state. Each file holds a
/// header (the folder's key, the tokens, the state's length and SHA-256) and the state as
/// llama.cpp copied it; a file whose header or checksum does not match is never given to
/// llama.cpp. Used by one scheduler thread; files are written on a queue of their own.
final class PromptStateStore: @unchecked Sendable {
    /// What a file says of itself, before its state.
    struct Header: Codable {
        let key: String
        let tokens: [Int32]
        let bytes: Int
        let sha256: String
    }

    /// A saved state: its file, its tokens, its size.
    struct Entry {
        let url: URL
        let tokens: [Int32]
        let size: Int64
    }

    private static let magic = Data("RASTATE1".utf8)
    let folder: URL
    let key: String
    let settings: SavedPrompts
    private let logger: Logger
    private var entries: [Entry] = []
    private let writes = DispatchQueue(label: "runanywhere.prompt-states")

    /// The store for the model file at `modelPath` in a context of `shape` (what else decides a
    /// state's numbers and layout: the engine build, the context's sizes, its attention and KV
    /// types, the device), reading the headers of its saved files.
    init(settings: SavedPrompts, modelPath: String, shape: String, logger: Logger) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: modelPath)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let identity = "\(modelPath)|\(size)|\(modified)|\(shape)"
        key = SHA256.hash(data: Data(identity.utf8)).map { String(format: "%02x", $0) }.joined()
        folder = settings.directory.appendingPathComponent(String(key.prefix(32)), isDirectory: true)
        self.settings = settings
        self.logger = logger
        entries = readEntries()
    }

    /// The saved state sharing the longest prefix with `prompt`, and that prefix's length.
    func best(for prompt: [Int32]) -> (entry: Entry, common: Int)? {
        entries.map { ($0, zip($0.tokens, prompt).prefix { $0 == $1 }.count) }.max { $0.1 < $1.1 }.flatMap { $0.1 > 0 ? $0 : nil }
    }

    /// The state of `entry`, checked; nil (the file deleted, the reason logged) when its header,
    /// length or checksum is not what it should be.
    func load(_ entry: Entry) -> Data? {
        writes.sync {}  // its file may still be being written
        do {
            let data = try Data(contentsOf: entry.url)
            let (header, state) = try Self.parse(data)
            guard header.key == key, header.tokens == entry.tokens, header.bytes == state.count,
                Self.digest(state) == header.sha256
            else { throw SDKError(.modelStorageCorrupted, "its header or checksum does not match") }
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: entry.url.path)
            return state
        } catch {
            forget(entry, because: "\(error)")
            return nil
        }
    }

    /// Removes `entry`, saying why.
    func forget(_ entry: Entry, because reason: String) {
        logger.warning(
            "Ignored a saved prompt state", metadata: ["file": "\(entry.url.path)", "reason": "\(reason)"])
        try? FileManager.default.removeItem(at: entry.url)
        entries.removeAll { $0.url == entry.url }
    }

    /// Saves `state` as the state after `tokens`, in the background. Saved states whose tokens
    /// begin these go (this one serves every prompt they served); beyond the size limit, the
    /// least recently used go.
    func save(tokens: [Int32], state: Data) {
        let name = SHA256.hash(data: tokens.withUnsafeBytes { Data($0) }).map { String(format: "%02x", $0) }.joined()
        let url = folder.appendingPathComponent("\(name.prefix(40)).state")
        let dominated = entries.filter { $0.tokens.count <= tokens.count && tokens.starts(with: $0.tokens) }
        entries.removeAll { entry in dominated.contains { $0.url == entry.url } }
        let size = Int64(state.count) + 4096
        entries.append(Entry(url: url, tokens: tokens, size: size))
        var evicted: [Entry] = []
        var total = entries.reduce(Int64(0)) { $0 + $1.size }
        let byAge = entries.filter { $0.url != url }.sorted { Self.lastUsed($0.url) < Self.lastUsed($1.url) }
        for entry in byAge where total > settings.maxBytes {
            evicted.append(entry)
            total -= entry.size
        }
        entries.removeAll { entry in evicted.contains { $0.url == entry.url } }
        if total > settings.maxBytes { entries.removeAll { $0.url == url } }
        let keep = total <= settings.maxBytes
        let (folder, logger, key) = (self.folder, self.logger, self.key)
        let removed = (dominated + evicted).map(\.url).filter { $0 != url }
        writes.async {
            for old in removed { try? FileManager.default.removeItem(at: old) }
            guard keep else { return }
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try AtomicFile.write(try Self.file(key: key, tokens: tokens, state: state), to: url)
            } catch {
                logger.warning("Could not save a prompt state", metadata: ["file": "\(url.path)", "error": "\(error)"])
            }
        }
    }

    /// Waits for the files being written.
    func flush() { writes.sync {} }

    private func readEntries() -> [Entry] {
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.fileSizeKey])) ?? []
        return files.filter { $0.pathExtension == "state" }.compactMap { url in
            do {
                let handle = try FileHandle(forReadingFrom: url)
                defer { try? handle.close() }
                let head = try handle.read(upToCount: Self.magic.count + 4) ?? Data()
                guard head.count == Self.magic.count + 4, head.prefix(Self.magic.count) == Self.magic else {
                    throw SDKError(.modelStorageCorrupted, "it is not a saved prompt state")
                }
                let length = head.suffix(4).withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
                let header = try JSONDecoder().decode(Header.self, from: try handle.read(upToCount: length) ?? Data())
                guard header.key == key else { throw SDKError(.modelStorageCorrupted, "it was saved for another model or options") }
                let size = Int64((try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
                return Entry(url: url, tokens: header.tokens, size: size)
            } catch {
                logger.warning("Ignored a saved prompt state", metadata: ["file": "\(url.path)", "reason": "\(error)"])
                try? FileManager.default.removeItem(at: url)
                return nil
            }
        }
    }

    /// A file's bytes: the magic, the header's length and JSON, then the state.
    static func file(key: String, tokens: [Int32], state: Data) throws -> Data {
        var file = magic
        let json = try JSONEncoder().encode(Header(key: key, tokens: tokens, bytes: state.count, sha256: digest(state)))
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { file.append(contentsOf: $0) }
        file.append(json)
        file.append(state)
        return file
    }

    /// A file's header and state; throws for anything that is not a whole file.
    static func parse(_ data: Data) throws -> (Header, Data) {
        let bad = SDKError(.modelStorageCorrupted, "it is not a whole saved prompt state")
        guard data.count >= magic.count + 4, data.prefix(magic.count) == magic else { throw bad }
        let length = data.dropFirst(magic.count).prefix(4).withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        let start = magic.count + 4
        guard data.count >= start + length else { throw bad }
        let header = try JSONDecoder().decode(Header.self, from: data.subdata(in: start..<start + length))
        return (header, data.subdata(in: start + length..<data.count))
    }

    private static func digest(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    private static func lastUsed(_ url: URL) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date) ?? .distantPast
    }
}
