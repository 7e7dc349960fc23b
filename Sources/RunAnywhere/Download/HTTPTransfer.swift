import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Downloads one URL to a file. Bytes go to `.<name>.partial` beside the destination, with the
/// server's validator in `.<name>.partial.json`; an interrupted transfer resumes from there
/// with an HTTP Range request (`If-Range` guards against a changed file), transient failures
/// are retried with backoff, and the file is renamed into place only when complete. A disk that
/// fills up ends the transfer with ``ErrorCode/insufficientStorage`` and deletes the partial file.
struct HTTPTransfer {
    /// Validators of a partial download, to resume only the same file.
    private struct PartialState: Codable {
        var url: String
        var validator: String?
        var total: Int64?
    }

    /// Connections are reused for the life of the process; responses are not decompressed, so
    /// byte ranges mean what they say. A connection that cannot be made fails its attempt at once
    /// (the client would otherwise try again until its 30 s connect timeout, for each of
    /// ``run(headers:progress:)``'s attempts: a host that refuses took minutes to report), and the
    /// attempts' backoff is the one retry policy.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 10, allowCycles: false),
            timeout: .init(connect: .seconds(30), read: .seconds(60)),
            decompression: .disabled
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    let url: URL
    let destination: URL
    let logger: Logger
    var maxRetries = 4
    var backoff: Duration = .milliseconds(500)

    private var partial: URL { destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).partial") }
    private var stateFile: URL {
        destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).partial.json")
    }

    /// The size the server reports for `url` (HEAD), when it does.
    static func contentLength(of url: URL, headers: HTTPHeaders) async -> Int64? {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .HEAD
        request.headers = headers
        guard let response = try? await client.execute(request, timeout: .seconds(30)), response.status == .ok else { return nil }
        return byteCount(response.headers.first(name: "content-length"))
    }

    /// Transfers the file, reporting bytes on disk and the total as they become known.
    func run(headers: HTTPHeaders, progress: (Int64, Int64?) throws -> Void) async throws {
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        var attempt = 0
        while true {
            do {
                try await attemptTransfer(headers: headers, progress: progress)
                return
            } catch let error as TransientError {
                attempt += 1
                guard attempt <= maxRetries else {
                    throw SDKError(
                        .networkError,
                        "Download of \(url.absoluteString) failed after \(maxRetries) retries: \(error.reason); run it again to resume")
                }
                let delay = backoff * (1 << (attempt - 1))
                logger.info("Retrying download", metadata: ["url": "\(url)", "attempt": "\(attempt)", "reason": "\(error.reason)"])
                try await Task.sleep(for: delay)
            }
        }
    }

    private struct TransientError: Error {
        let reason: String
    }

    private func attemptTransfer(headers: HTTPHeaders, progress: (Int64, Int64?) throws -> Void) async throws {
        var state = readState()
        var offset = FileDigest.size(of: partial)
        if state?.url != url.absoluteString {
            offset = 0
            state = nil
        }
        if offset > 0, let total = state?.total, offset == total {
            return try finish()
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers = headers
        if offset > 0 {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(offset)-")
            if let validator = state?.validator { request.headers.replaceOrAdd(name: "If-Range", value: validator) }
        }
        let response: HTTPClientResponse
        do {
            response = try await Self.client.execute(request, deadline: .distantFuture, logger: logger)
        } catch {
            throw classify(error)
        }
        let length = Self.byteCount(response.headers.first(name: "content-length"))
        var total: Int64?
        switch response.status.code {
        case 200:
            offset = 0  // the whole file, from the start (a Range the server ignored, or a changed file)
            total = length
        case 206:
            guard let range = response.headers.first(name: "content-range"), let start = Self.rangeStart(range), start == offset else {
                offset = 0
                throw TransientError(reason: "the server answered a different byte range")
            }
            total = Self.rangeTotal(response.headers.first(name: "content-range")) ?? length.map { offset.saturatingAdd($0) }
        case 416 where offset > 0:
            try? FileManager.default.removeItem(at: partial)
            throw TransientError(reason: "the saved part no longer matches the file on the server")
        case 401, 403:
            throw SDKError(
                .unauthorized,
                "The server refused \(url.absoluteString) (HTTP \(response.status.code)). Gated models (e.g. Llama on Hugging Face) need an access token: accept the licence on the model page, then set HF_TOKEN"
            )
        case 404, 410:
            throw SDKError(.downloadFailed, "Nothing to download at \(url.absoluteString) (HTTP \(response.status.code)); check the URL")
        case 408, 425, 429, 500...599:
            throw TransientError(reason: "HTTP \(response.status.code)")
        default:
            throw SDKError(.downloadFailed, "Download of \(url.absoluteString) failed with HTTP \(response.status.code)")
        }
        if let total, let free = FileDigest.freeSpace(at: destination), total - offset > free {
            throw SDKError(
                .insufficientStorage,
                "\(url.lastPathComponent) needs \(ByteCountFormatter.string(fromByteCount: total - offset, countStyle: .file)) but only \(ByteCountFormatter.string(fromByteCount: free, countStyle: .file)) is free in \(destination.deletingLastPathComponent().path)"
            )
        }
        try writeState(
            PartialState(
                url: url.absoluteString, validator: response.headers.first(name: "etag") ?? response.headers.first(name: "last-modified"),
                total: total))
        if offset == 0 { _ = FileManager.default.createFile(atPath: partial.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: partial)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(offset))
        try handle.seekToEnd()
        var done = offset
        try progress(done, total)
        do {
            for try await buffer in response.body {
                try Task.checkCancellation()
                try handle.write(contentsOf: Data(buffer.readableBytesView))
                done += Int64(buffer.readableBytes)
                try progress(done, total)
            }
            try handle.synchronize()
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as SDKError {
            throw error
        } catch  where StorageFull.caused(error) {
            try? handle.close()
            discardPartial()
            throw SDKError.writeFailed("Cannot download \(url.lastPathComponent) (the partial download was deleted)", error)
        } catch {
            throw classify(error)
        }
        if let total, done < total { throw TransientError(reason: "the connection closed after \(done) of \(total) bytes") }
        try finish()
    }

    private func finish() throws {
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.moveItem(at: partial, to: destination)
        try? FileManager.default.removeItem(at: stateFile)
    }

    /// Deletes the partial file and its state, so that a full disk is not left fuller.
    private func discardPartial() {
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: stateFile)
    }

    /// Connection trouble is worth retrying; anything else is reported as it is.
    private func classify(_ error: any Error) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? HTTPClientError,
            [HTTPClientError.invalidURL, .redirectLimitReached, .redirectCycleDetected].contains(error)
        {
            return SDKError(.downloadFailed, "Cannot download \(url.absoluteString): \(error)")
        }
        return TransientError(reason: "\(error)")
    }

    private static func rangeStart(_ header: String) -> Int64? {
        guard let bytes = header.split(separator: " ").last, let dash = bytes.firstIndex(of: "-") else { return nil }
        return byteCount(bytes[..<dash])
    }

    private static func rangeTotal(_ header: String?) -> Int64? {
        header?.split(separator: "/").last.flatMap { byteCount($0) }
    }

    /// A size or offset a server sent: a whole number from 0, or nil (a negative one, such as
    /// `-9223372036854775808`, would overflow the arithmetic on it).
    private static func byteCount<Text: StringProtocol>(_ text: Text?) -> Int64? {
        text.flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    private func readState() -> PartialState? {
        FileManager.default.contents(atPath: stateFile.path).flatMap { try? JSONDecoder().decode(PartialState.self, from: $0) }
    }

    private func writeState(_ state: PartialState) throws {
        try AtomicFile.write(try JSONEncoder().encode(state), to: stateFile)
    }
}
