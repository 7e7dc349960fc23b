import Foundation

extension RunAnywhereRuntime {
    /// Copies the downloaded model `id` as a new model `newID` (named `newID`) with everything
    /// else its entry says (category, context, thinking, tool-call format, licence, defaults,
    /// LoRA adapters), `defaults` over its own, `license` in place of its own and the LoRA adapter
    /// files `adapters` (each checked to fit it) in place of its own adapters. The files in
    /// its folder become hard links (no bytes copied: model files are never rewritten in place,
    /// and deleting either model leaves the other whole), or copies where the file system cannot
    /// link; a model registered where its file lies (a `file` URL) keeps pointing there.
    package nonisolated func copyModel(
        _ id: String, to newID: String, defaults: ModelDefaults? = nil, license: String? = nil, adapters: [URL] = []
    ) throws -> ModelInfo {
        try defaults?.validate()
        let model = try catalog.model(id: id)
        guard model.isDownloaded, let path = model.localPath else {
            throw SDKError(.modelNotDownloaded, "Model '\(id)' is not downloaded: pull it before copying it")
        }
        try ModelInfo.validateID(newID)
        let folder = catalog.modelsDirectory.appendingPathComponent(id).standardizedFileURL
        let newFolder = catalog.modelsDirectory.appendingPathComponent(newID)
        let inside = path.standardizedFileURL.path.hasPrefix(folder.path + "/") || path.standardizedFileURL == folder
        var copy = ModelInfo(
            id: newID, name: newID, category: model.category, format: model.format, framework: model.framework,
            localPath: inside ? URL(fileURLWithPath: newFolder.path + path.standardizedFileURL.path.dropFirst(folder.path.count)) : path,
            artifactType: model.artifactType, downloadSize: model.downloadSize, contextLength: model.contextLength,
            supportsThinking: model.supportsThinking, thinkingPattern: model.thinkingPattern, description: "A copy of \(model.id)",
            source: .local, sha256: model.sha256, license: license ?? model.license, toolCallFormat: model.toolCallFormat
        )
        var merged = defaults?.over(model.defaults) ?? model.defaults ?? ModelDefaults()
        if !adapters.isEmpty {
            merged.loraAdapters = try ModelFiles.checkAdapters(
                adapters, fitting: model.category == .language ? try metadata(of: model) : nil, model: newID)
        }
        let ownAdapters = FileManager.default.fileExists(atPath: loraFolder(of: id).path)
        guard inside || ownAdapters || !adapters.isEmpty else {
            copy.defaults = merged.isEmpty ? nil : merged
            try catalog.add(copy)
            return try catalog.model(id: newID)
        }
        ScratchFile.removeAbandoned(in: catalog.modelsDirectory, prefix: ".copy.")
        let staging = ScratchFile.url(in: catalog.modelsDirectory, prefix: ".copy.", suffix: ".partial")
        defer { try? FileManager.default.removeItem(at: staging) }
        // Inside the models folder the whole folder is copied, its adapters with it; a model
        // registered elsewhere has only its adapters here.
        let stagedAdapters = staging.appendingPathComponent(ModelDefaults.loraFolder)
        do {
            if inside {
                try ModelFiles.place(folder, at: staging, linking: true)
            } else {
                try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
                if ownAdapters { try ModelFiles.place(loraFolder(of: id), at: stagedAdapters, linking: true) }
            }
        } catch {
            throw SDKError.writeFailed("Cannot copy \(folder.path)", error)
        }
        if !adapters.isEmpty {
            try? FileManager.default.removeItem(at: stagedAdapters)
            try ModelFiles.placeAdapters(adapters, in: stagedAdapters, modelsDirectory: catalog.modelsDirectory)
        }
        copy.defaults = merged.isEmpty ? nil : merged
        try catalog.add(copy) {
            do {
                try FileManager.default.createDirectory(at: newFolder.deletingLastPathComponent(), withIntermediateDirectories: true)
                if inside {
                    try? FileManager.default.removeItem(at: newFolder)
                    try FileManager.default.moveItem(at: staging, to: newFolder)
                } else {
                    try FileManager.default.createDirectory(at: newFolder, withIntermediateDirectories: true)
                    try? FileManager.default.removeItem(at: newFolder.appendingPathComponent(ModelDefaults.loraFolder))
                    try FileManager.default.moveItem(at: stagedAdapters, to: newFolder.appendingPathComponent(ModelDefaults.loraFolder))
                }
            } catch {
                throw SDKError.writeFailed("Cannot move the copy into \(newFolder.path)", error)
            }
        }
        return try catalog.model(id: newID)
    }
}

/// Puts model files in place.
enum ModelFiles {
    /// Places `source` (a file, or a folder with everything in it but names starting with ".") at
    /// `destination`: with `linking`, as hard links where the file system allows (a link to a
    /// file that a symbolic link names), copies otherwise.
    static func place(_ source: URL, at destination: URL, linking: Bool) throws {
        let resolved = source.resolvingSymlinksInPath()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved.path, isDirectory: &isFolder) else {
            throw SDKError.fileManagement(.fileNotFound, "No such file: \(source.path)")
        }
        if isFolder.boolValue {
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
            for name in try FileManager.default.contentsOfDirectory(atPath: resolved.path) where !name.hasPrefix(".") {
                try place(resolved.appendingPathComponent(name), at: destination.appendingPathComponent(name), linking: linking)
            }
        } else if !linking || (try? FileManager.default.linkItem(at: resolved, to: destination)) == nil {
            try FileManager.default.copyItem(at: resolved, to: destination)
        }
    }
}
