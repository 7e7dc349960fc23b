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
        key = FileDigest.sha256(of: Data(identity.utf8))
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
                FileDigest.sha256(of: state) == header.sha256
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
        discard(entry.url, because: reason)
        entries.removeAll { $0.url == entry.url }
    }

    /// Deletes the file at `url`, saying why.
    private func discard(_ url: URL, because reason: String) {
        logger.warning("Ignored a saved prompt state", metadata: ["file": "\(url.path)", "reason": "\(reason)"])
        try? FileManager.default.removeItem(at: url)
    }

    /// Saves `state` as the state after `tokens`, in the background. Saved states whose tokens
    /// begin these go (this one serves every prompt they served); beyond the size limit, the
    /// least recently used go.
    func save(tokens: [Int32], state: Data) {
        let name = tokens.withUnsafeBytes { FileDigest.sha256(of: $0) }
        let url = folder.appendingPathComponent("\(name.prefix(40)).state")
        let dominated = entries.filter { $0.tokens.count <= tokens.count && tokens.starts(with: $0.tokens) }
        entries.removeAll { entry in dominated.contains { $0.url == entry.url } }
        let size = Int64(state.count) + 4096
        entries.append(Entry(url: url, tokens: tokens, size: size))
        var evicted: [Entry] = []
        var total = entries.reduce(Int64(0)) { $0 + $1.size }
        let byAge = entries.filter { $0.url != url }.map { ($0, Self.lastUsed($0.url)) }.sorted { $0.1 < $1.1 }.map(\.0)
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
                let length = try Self.headerLength(try handle.read(upToCount: Self.headerStart) ?? Data())
                let header = try JSONDecoder().decode(Header.self, from: try handle.read(upToCount: length) ?? Data())
                guard header.key == key else { throw SDKError(.modelStorageCorrupted, "it was saved for another model or options") }
                let size = Int64((try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
                return Entry(url: url, tokens: header.tokens, size: size)
            } catch {
                discard(url, because: "\(error)")
                return nil
            }
        }
    }

    /// A file's bytes: the magic, the header's length and JSON, then the state.
    static func file(key: String, tokens: [Int32], state: Data) throws -> Data {
        var file = magic
        let json = try JSONEncoder().encode(Header(key: key, tokens: tokens, bytes: state.count, sha256: FileDigest.sha256(of: state)))
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { file.append(contentsOf: $0) }
        file.append(json)
        file.append(state)
        return file
    }

    /// A file's header and state; throws for anything that is not a whole file.
    static func parse(_ data: Data) throws -> (Header, Data) {
        let length = try headerLength(data.prefix(headerStart))
        guard data.count >= headerStart + length else { throw SDKError(.modelStorageCorrupted, "it is not a whole saved prompt state") }
        let header = try JSONDecoder().decode(Header.self, from: data.subdata(in: headerStart..<headerStart + length))
        return (header, data.subdata(in: headerStart + length..<data.count))
    }

    /// Where a file's header starts: after the magic and the header's length.
    private static let headerStart = magic.count + 4

    /// The header's length from a file's first ``headerStart`` bytes; throws unless they begin a saved state.
    private static func headerLength(_ head: Data) throws -> Int {
        guard head.count == headerStart, head.prefix(magic.count) == magic else {
            throw SDKError(.modelStorageCorrupted, "it is not a saved prompt state")
        }
        return head.suffix(4).withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
    }

    private static func lastUsed(_ url: URL) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date) ?? .distantPast
    }
}
