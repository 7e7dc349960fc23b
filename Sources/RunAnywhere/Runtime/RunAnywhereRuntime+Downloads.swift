import Foundation

/// A model's files on disk.
public struct ModelStorage: Codable, Sendable, Equatable {
    /// The model's ID.
    public let modelId: String
    /// The model's name for people.
    public let name: String
    /// The model's folder or file on disk.
    public let path: String
    /// Bytes the model takes on disk.
    public let sizeBytes: Int64
}

/// Disk use of the models folder.
public struct StorageInfo: Codable, Sendable, Equatable {
    /// Every model with files on disk, largest first.
    public let models: [ModelStorage]
    /// Bytes all of them take.
    public let totalModelBytes: Int64
    /// Bytes free on the volume of the models folder.
    public let freeBytes: Int64?
    /// The models folder.
    public let directory: String
}

extension RunAnywhereRuntime {
    /// Downloads a model's files, streaming its progress: bytes, smoothed speed, time left and
    /// state (downloading, verifying, extracting, completed, or failed with the error, which the
    /// stream then also throws). A transfer cut off or cancelled keeps its partial file, and
    /// the next download resumes from it. Progress is also published on ``events``.
    public nonisolated func downloadModelWithProgress(_ id: String) throws -> AsyncThrowingStream<DownloadProgress, any Error> {
        let model = try catalog.model(id: id)
        if model.downloadURL == nil, case .singleFile = model.artifactType, !model.isDownloaded {
            throw SDKError(.invalidInput, "Model '\(id)' has no download URL; it is installed by scripts/setup")
        }
        let events = self.events
        return .fed { [catalog, downloader] continuation in
            let report: @Sendable (DownloadProgress) -> Void = { progress in
                continuation.yield(progress)
                events.publish(.downloadProgress(progress))
            }
            do {
                if model.isDownloaded {
                    report(
                        DownloadProgress(
                            modelId: id, bytesDownloaded: 0, totalBytes: nil, speed: nil, estimatedTimeRemaining: nil, state: .completed))
                } else {
                    let downloaded = try await downloader.download(model, report: report)
                    if downloaded != model, !catalog.isBuiltIn(id) { try catalog.update(downloaded) }
                }
            } catch {
                let failure = (error as? SDKError) ?? SDKError(.downloadFailed, "\(error)")
                if !(error is CancellationError) {
                    report(
                        DownloadProgress(
                            modelId: id, bytesDownloaded: 0, totalBytes: nil, speed: nil, estimatedTimeRemaining: nil,
                            state: .failed(failure)))
                }
                throw error
            }
        }
    }

    /// Stops model `id`'s download and returns once it has stopped; its partial file stays, and
    /// the next download resumes from it. False when no download of it is running.
    @discardableResult
    public nonisolated func cancelDownload(_ id: String) async -> Bool {
        await downloader.cancel(id)
    }

    /// Size on disk of every model in the models folder, the total, and the free space (models
    /// elsewhere, such as a registered file or a system voice, are not the SDK's to count).
    public nonisolated func storageInfo() -> StorageInfo {
        let root = catalog.modelsDirectory.standardizedFileURL.path + "/"
        let models = catalog.all().compactMap { model -> ModelStorage? in
            guard model.isDownloaded, let path = model.localPath, path.standardizedFileURL.path.hasPrefix(root) else { return nil }
            return ModelStorage(modelId: model.id, name: model.name, path: path.path, sizeBytes: FileDigest.size(of: path))
        }.sorted { $0.sizeBytes > $1.sizeBytes }
        return StorageInfo(
            models: models, totalModelBytes: models.reduce(0) { $0 + $1.sizeBytes },
            freeBytes: FileDigest.freeSpace(at: catalog.modelsDirectory), directory: catalog.modelsDirectory.path
        )
    }

    /// Deletes a model's files from the models folder (a partial download too). A user-added
    /// model's entry goes with them; a file registered where it lies outside the models folder
    /// is left alone. The current language, speech-to-text and voice models must be unloaded
    /// first, and a model in use cannot be deleted (``ErrorCode/modelInUse``); an idle cached one
    /// is unloaded. The check and the deletion run without a suspension, so no load of the model
    /// can start meanwhile.
    public func deleteStoredModel(_ id: String) async throws {
        let model = try catalog.model(id: id)
        try deleteUnloaded(id)
        events.publish(.modelDeleted(modelId: model.id))
    }

    /// Deletes the files of a model that is not loaded.
    private func deleteUnloaded(_ id: String) throws {
        if isCurrent(id) { throw SDKError(.modelInUse, "Model '\(id)' is loaded; unload it first") }
        if let cached = cache[id] {
            guard cached.uses == 0, cached.loading == nil else {
                throw SDKError(.modelInUse, "Model '\(id)' is in use; try again when its requests have finished")
            }
            unloadNow(id)
        }
        let folder = catalog.modelsDirectory.appendingPathComponent(id)
        if FileManager.default.fileExists(atPath: folder.path) { try FileManager.default.removeItem(at: folder) }
        // A reference's folder is nested (hf.co/OWNER/REPO:QUANT): the folders it leaves empty go too.
        var parent = folder.deletingLastPathComponent()
        while parent.standardizedFileURL.path.count > catalog.modelsDirectory.standardizedFileURL.path.count,
            (try? FileManager.default.contentsOfDirectory(atPath: parent.path))?.isEmpty == true
        {
            try? FileManager.default.removeItem(at: parent)
            parent = parent.deletingLastPathComponent()
        }
        if !catalog.isBuiltIn(id) { try catalog.remove(id: id) }
    }
}
