import Foundation
import Logging
import NIOHTTP1
import Synchronization

/// Downloads catalog and user models: one at a time per model, any number of models at once.
final class ModelDownloader: Sendable {
    /// A model being downloaded: how to stop it, whether it was stopped (and is unwinding),
    /// and who waits for it to end.
    private struct Claim: Sendable {
        var stop: (@Sendable () -> Void)?
        var cancelled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let active = Mutex<[String: Claim]>([:])
    private let logger: Logger
    /// The providers whose tokens authenticate downloads from their hosts.
    private let providers: ModelProviderRegistry

    init(logger: Logger, providers: ModelProviderRegistry) {
        self.logger = logger
        self.providers = providers
    }

    /// The SDK's User-Agent on every request it makes.
    static let userAgent = "RunAnywhere/\(RunAnywhere.version) (Linux)"

    /// Headers for a download: the user agent, and the authentication of the provider whose host
    /// `url` is (none for other hosts; a redirect to another origin drops it too).
    func headers(for url: URL) -> HTTPHeaders {
        var headers = HTTPHeaders([("User-Agent", Self.userAgent)])
        for (name, value) in providers.authenticationHeaders(for: url) { headers.add(name: name, value: value) }
        return headers
    }

    /// Fetches `model`'s files into its folder, reporting progress; returns the model as it is
    /// afterwards (its format confirmed from the file's header).
    /// A download of the model that was cancelled and is still stopping is waited for, so that
    /// a resume right after a cancel works; one still running is ``ErrorCode/alreadyInProgress``.
    func download(_ model: ModelInfo, report: @escaping @Sendable (DownloadProgress) -> Void) async throws -> ModelInfo {
        try await claim(model.id)
        defer { release(model.id) }
        let work = Task { try await transfer(model, report: report) }
        let stop: @Sendable () -> Void = { [self] in
            active.withLock { $0[model.id]?.cancelled = true }
            work.cancel()
        }
        active.withLock { $0[model.id]?.stop = stop }
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            stop()
        }
    }

    /// Stops model `id`'s download and returns once it has stopped (its partial file kept for a
    /// resume); false when none is running.
    func cancel(_ id: String) async -> Bool {
        let stop = active.withLock { $0[id]?.stop }
        guard let stop else { return false }
        stop()
        await ended(id)
        return true
    }

    /// Returns once no download of `id` is running.
    private func ended(_ id: String) async {
        await withCheckedContinuation { continuation in
            let waiting = active.withLock { claims in
                guard claims[id] != nil else { return false }
                claims[id]?.waiters.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    private func transfer(_ model: ModelInfo, report: @escaping @Sendable (DownloadProgress) -> Void) async throws -> ModelInfo {
        guard let localPath = model.localPath else { throw SDKError(.invalidInput, "Model '\(model.id)' has no place on disk") }
        var meter = ProgressMeter(modelId: model.id)
        let progress: (Int64, Int64?) throws -> Void = { done, total in
            try Task.checkCancellation()
            if meter.total == nil { meter.setTotal(total) }
            if let update = meter.update(done: done) { report(update) }
        }
        var result = model
        switch model.artifactType {
        case .singleFile:
            guard let url = model.downloadURL else { throw SDKError(.invalidInput, "Model '\(model.id)' has no download URL") }
            try await fetch(url, to: localPath, progress: progress)
            report(meter.report(.verifying))
            try verify(localPath, sha256: model.sha256)
            result = try confirmFormat(of: model, file: localPath)
        case .archive(let type):
            guard let url = model.downloadURL else { throw SDKError(.invalidInput, "Model '\(model.id)' has no download URL") }
            let archive = localPath.appendingPathComponent(".download").appendingPathComponent(url.lastPathComponent)
            try await fetch(url, to: archive, progress: progress)
            report(meter.report(.verifying))
            try verify(archive, sha256: model.sha256)
            report(meter.report(.extracting))
            try ArchiveExtractor.extract(archive, type: type, into: localPath)
            try? FileManager.default.removeItem(at: archive.deletingLastPathComponent())
        case .multiFile(let files):
            var sizes: [Int64?] = []
            for file in files { sizes.append(await HTTPTransfer.contentLength(of: file.url, headers: headers(for: file.url))) }
            // The servers' sizes, summed saturating: a bogus Content-Length must not overflow.
            let total = sizes.contains(nil) ? nil : sizes.compactMap { $0 }.reduce(Int64(0)) { $0.saturatingAdd($1) }
            meter.setTotal(total)
            var base: Int64 = 0
            for (file, size) in zip(files, sizes) {
                let destination = localPath.appendingPathComponent(file.filename)
                try await fetch(file.url, to: destination) { done, _ in try progress(base.saturatingAdd(done), total) }
                base = base.saturatingAdd(size ?? 0)
                try verify(destination, sha256: file.sha256)
            }
            report(meter.report(.verifying))
        }
        report(meter.report(.completed))
        return result
    }

    private enum ClaimAttempt { case claimed, stopping, running }

    private func claim(_ id: String) async throws {
        while true {
            let attempt: ClaimAttempt = active.withLock { claims in
                guard let claim = claims[id] else {
                    claims[id] = Claim()
                    return .claimed
                }
                return claim.cancelled ? .stopping : .running
            }
            switch attempt {
            case .claimed: return
            case .running: throw SDKError(.alreadyInProgress, "Model '\(id)' is already being downloaded")
            case .stopping: await ended(id)
            }
        }
    }

    private func release(_ id: String) {
        let waiters = active.withLock { $0.removeValue(forKey: id)?.waiters ?? [] }
        for waiter in waiters { waiter.resume() }
    }

    private func fetch(_ url: URL, to destination: URL, progress: (Int64, Int64?) throws -> Void) async throws {
        if url.isFileURL {
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw SDKError.fileManagement(.fileNotFound, "No such file: \(url.path)")
            }
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            let staging = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).partial")
            try? FileManager.default.removeItem(at: staging)
            do {
                try FileManager.default.copyItem(at: url, to: staging)
            } catch {
                try? FileManager.default.removeItem(at: staging)
                throw SDKError.writeFailed("Cannot copy \(url.path) into \(destination.deletingLastPathComponent().path)", error)
            }
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.moveItem(at: staging, to: destination)
            let size = FileDigest.size(of: destination)
            return try progress(size, size)
        }
        try await HTTPTransfer(url: url, destination: destination, logger: logger).run(headers: headers(for: url), progress: progress)
    }

    private func verify(_ file: URL, sha256 expected: String?) throws {
        guard let expected = expected?.lowercased() else { return }
        let actual = try FileDigest.sha256(of: file)
        guard actual == expected else {
            try? FileManager.default.removeItem(at: file)
            throw SDKError(
                .checksumMismatch, "\(file.lastPathComponent) has sha256 \(actual), not the expected \(expected); the file was deleted")
        }
    }

    /// The model with its format as the file's header shows it. A file whose header is not a
    /// model the framework reads (e.g. an HTML error page) is deleted and refused.
    private func confirmFormat(of model: ModelInfo, file: URL) throws -> ModelInfo {
        let sniffed = ModelFormat.sniff(fileAt: file)
        if sniffed == model.format { return model }
        let readable = model.framework.formats
        if sniffed != .unknown, readable.contains(sniffed) { return model.with(format: sniffed) }
        if sniffed == .unknown, !ModelFormat.sniffable.contains(model.format) { return model }
        try? FileManager.default.removeItem(at: file)
        let what =
            sniffed == .unknown
            ? "not a model file (its first bytes match no known model format)"
            : "a \(sniffed.rawValue) file, which \(model.framework.displayName) does not read"
        throw SDKError.fileManagement(.invalidModelFormat, "The download for '\(model.id)' is \(what); it was deleted")
    }
}

extension ModelFormat {
    /// Formats ``sniff(fileAt:)`` recognises.
    static let sniffable: Set<ModelFormat> = [.gguf, .ggml, .onnx, .safetensors]
}

extension ModelInfo {
    /// This model with another format.
    func with(format: ModelFormat) -> ModelInfo {
        ModelInfo(
            id: id, name: name, category: category, format: format, framework: framework, downloadURL: downloadURL, localPath: localPath,
            artifactType: artifactType, downloadSize: downloadSize, contextLength: contextLength, supportsThinking: supportsThinking,
            thinkingPattern: thinkingPattern, description: description, source: source, createdAt: createdAt, updatedAt: Date(),
            sha256: sha256, license: license
        )
    }
}
