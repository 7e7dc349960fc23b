import Foundation
import RunAnywhere

/// Workloads over the SDK's installed models, chosen by what the model does.
package enum ModelWorkload {
    /// The workload for the installed model `id`: one decode step per frame for a language
    /// model, a fixed window per frame for a speech-recognition model, a 32 ms frame for the
    /// voice activity detector, an image frame for a vision-language model.
    package static func make(id: String, runtime: RunAnywhereRuntime, threads: Int) throws -> any FrameWorkload {
        let model = try runtime.model(id: id)
        guard model.isDownloaded, let path = model.localPath else {
            throw SDKError(.modelNotDownloaded, "The model '\(id)' is not installed; `runanywhere models pull \(id)` installs it")
        }
        let installed = InstalledModel(info: model, fileBytes: fileBytes(path), runtime: runtime, threads: threads)
        switch model.category {
        case .language: return DecodeStepWorkload(installed)
        case .speechRecognition: return TranscriptionWorkload(installed)
        case .multimodal, .vision: return VisionWorkload(installed)
        case .audio where model.id == SDKConstants.Models.voiceActivityModelID: return VoiceActivityWorkload(installed)
        default:
            throw SDKError(
                .invalidInput,
                "The model '\(id)' (\(model.category.displayName.lowercased())) does not work in frames; benchrunner runs language, "
                    + "speech-recognition, vision-language and voice-activity models"
            )
        }
    }

    /// The size of the file at `url`, or of every file under it when it is a folder.
    static func fileBytes(_ url: URL) -> Int64 {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: url.path, isDirectory: &isFolder) else { return 0 }
        guard isFolder.boolValue else { return (try? manager.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0 }
        let files = manager.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey])?.compactMap { $0 as? URL } ?? []
        return files.reduce(0) { $0 + Int64((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
    }

}

/// An installed model a workload runs through the SDK, and how.
struct InstalledModel {
    let info: ModelInfo
    /// The size of its files.
    let fileBytes: Int64
    let runtime: RunAnywhereRuntime
    /// CPU threads per frame.
    let threads: Int
}

/// A workload over an ``InstalledModel``: the payload's fields come from the model.
protocol InstalledModelWorkload: FrameWorkload {
    var model: InstalledModel { get }
}

extension InstalledModelWorkload {
    var modelID: String { model.info.id }
    /// The payload's name for the engine: "llama.cpp", "whisper.cpp".
    var backend: String { model.info.framework.displayName.lowercased().replacingOccurrences(of: " ", with: "") }
    var modelFileBytes: Int64 { model.fileBytes }
}
