import Foundation
import RunAnywhere

/// Workloads over the SDK's installed models, chosen by what the model does.
public enum ModelWorkload {
    /// The workload for the installed model `id`: one decode step per frame for a language
    /// model, a fixed window per frame for a speech-recognition model, a 32 ms frame for the
    /// voice activity detector, an image frame for a vision-language model.
    public static func make(id: String, runtime: RunAnywhereRuntime, threads: Int) throws -> any FrameWorkload {
        let model = try runtime.model(id: id)
        guard model.isDownloaded, let path = model.localPath else {
            throw SDKError(.modelNotDownloaded, "The model '\(id)' is not installed; `runanywhere models pull \(id)` installs it")
        }
        let bytes = fileBytes(path)
        switch model.category {
        case .language:
            return DecodeStepWorkload(model: model, fileBytes: bytes, runtime: runtime, threads: threads)
        case .speechRecognition:
            return TranscriptionWorkload(model: model, fileBytes: bytes, runtime: runtime, threads: threads)
        case .multimodal, .vision:
            return VisionWorkload(model: model, fileBytes: bytes, runtime: runtime, threads: threads)
        case .audio where model.id == SDKConstants.Models.voiceActivityModelID:
            return VoiceActivityWorkload(model: model, fileBytes: bytes, runtime: runtime)
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

    /// The payload's name for the engine that runs `model`.
    static func backend(_ model: ModelInfo) -> String {
        model.framework.displayName.lowercased().replacingOccurrences(of: " ", with: "")
    }
}
