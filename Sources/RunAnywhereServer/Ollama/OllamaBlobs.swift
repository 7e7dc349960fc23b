import Crypto
import Foundation
import Hummingbird
import RunAnywhere
import Synchronization

/// The files ollama's clients upload before they create a model of them (`POST
/// /api/blobs/sha256:<hex>`), kept by their SHA-256 in the models folder (`.ollama-blobs/`), so
/// that the model made of one links it instead of copying it. Creating the model uses it up; one
/// never used is removed a day later.
struct OllamaBlobs: Sendable {
    let directory: URL

    init(modelsDirectory: URL) {
        directory = modelsDirectory.appendingPathComponent(".ollama-blobs")
    }

    /// Where the blob `digest` (`sha256:<64 hex digits>`, or ollama's file name `sha256-…`) is
    /// kept; a 400 for anything else.
    func url(of digest: String) throws -> URL {
        let hex = digest.dropFirst("sha256:".count)
        guard digest.hasPrefix("sha256:") || digest.hasPrefix("sha256-"), hex.count == 64,
            hex.allSatisfy({ "0123456789abcdef".contains($0) })
        else {
            throw APIError(.badRequest, "a digest is sha256: and 64 lowercase hex digits, not '\(digest.prefix(80))'", param: "digest")
        }
        return directory.appendingPathComponent("sha256-\(hex)")
    }

    /// Whether the blob `digest` is here.
    func contains(_ digest: String) throws -> Bool {
        FileManager.default.fileExists(atPath: try url(of: digest).path)
    }

    /// Uploads kept longer than this and never made into a model are removed by the next upload.
    static let lifetime: TimeInterval = 24 * 60 * 60

    /// Removes the blobs older than ``lifetime``: ollama's clients upload a file just before they
    /// create a model of it, so one left that long was abandoned.
    private func removeStale() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix("sha256-") {
            let blob = directory.appendingPathComponent(name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: blob.path))?[.modificationDate] as? Date,
                Date().timeIntervalSince(modified) > Self.lifetime
            else { continue }
            try? FileManager.default.removeItem(at: blob)
        }
    }

    /// Keeps `body` as the blob `digest`: written beside its place, hashed as it arrives, and
    /// moved there only when its SHA-256 is `digest` (a 400 otherwise, and nothing is kept). An
    /// upload whose announced `length` exceeds the free space is refused (413) before it is read.
    func receive(_ body: RequestBody, as digest: String, length: Int64?) async throws {
        let target = try url(of: digest)
        if let length, let free = FileDigest.freeSpace(at: directory), length > free {
            throw APIError(
                .contentTooLarge, "the upload (\(length) bytes) is larger than the free space for models (\(free) bytes)", param: "digest")
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SDKError.writeFailed("Cannot create the blob folder", error)
        }
        ScratchFile.removeAbandoned(in: directory, prefix: ".upload.")
        removeStale()
        let partial = ScratchFile.url(in: directory, prefix: ".upload.", suffix: ".partial")
        defer { try? FileManager.default.removeItem(at: partial) }
        let hasher = RunningDigest()
        do {
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let file = try FileHandle(forWritingTo: partial)
            defer { try? file.close() }
            // Hashed and written a mebibyte at a time off Swift's cooperative threads: a model
            // file is gigabytes, and those threads run every other request.
            var pending = ByteBuffer()
            for try await buffer in body {
                pending.writeImmutableBuffer(buffer)
                guard pending.readableBytes >= 1 << 20 else { continue }
                try await Self.append(pending, to: file, hashing: hasher)
                pending.clear()
            }
            try await Self.append(pending, to: file, hashing: hasher)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw SDKError.writeFailed("Cannot keep the upload", error)
        }
        let received = "sha256:" + hasher.state.withLock { $0.finalize() }.map { String(format: "%02x", $0) }.joined()
        guard received == "sha256:" + target.lastPathComponent.dropFirst("sha256-".count) else {
            throw APIError(.badRequest, "digest mismatch: the upload's digest is \(received), not \(digest)", param: "digest")
        }
        do {
            try FileManager.default.moveItem(at: partial, to: target)
        } catch {
            // Another upload of the same bytes may have been kept first: then this one is too.
            guard FileManager.default.fileExists(atPath: target.path) else { throw SDKError.writeFailed("Cannot keep the upload", error) }
        }
    }

    /// Writes `bytes` at the end of `file`, and has `hasher` read them.
    private static func append(_ bytes: ByteBuffer, to file: FileHandle, hashing hasher: RunningDigest) async throws {
        try await runBlocking {
            hasher.state.withLock { state in bytes.withUnsafeReadableBytes { state.update(bufferPointer: $0) } }
            try file.write(contentsOf: bytes.readableBytesView)
        }
    }

    /// A SHA-256 fed piece by piece from the threads that write the pieces.
    private final class RunningDigest: Sendable {
        let state = Mutex(SHA256())
    }
}
