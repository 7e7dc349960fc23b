import Foundation
import RunAnywhere

/// The files of a diffusion model, by the part of the pipeline each holds: one checkpoint file,
/// or a folder of parts told apart by name, as stable-diffusion.cpp's own tools take them
/// (`…vae…`, `…taesd…`, `…clip_l…`, `…clip_g…`, `…t5…`, `…llm…`, and the denoiser as
/// `…diffusion_model…`/`…unet…`/`…transformer…`; any other file is the checkpoint).
struct StableDiffusionFiles: Sendable, Equatable {
    /// A whole checkpoint, or the part no name says (sd.cpp's `model_path`).
    var checkpoint: String?
    /// The denoising network alone (`diffusion_model_path`).
    var diffusionModel: String?
    var vae: String?
    var taesd: String?
    var clipL: String?
    var clipG: String?
    var t5xxl: String?
    var llm: String?

    /// Every file, for sizes.
    var all: [String] { [checkpoint, diffusionModel, vae, taesd, clipL, clipG, t5xxl, llm].compactMap(\.self) }

    /// The files of the downloaded model `model`.
    init(model: ModelInfo) throws {
        guard let path = model.localPath, model.isDownloaded else {
            throw SDKError(.modelNotDownloaded, "Model '\(model.id)' is not downloaded (run `runanywhere models pull \(model.id)`)")
        }
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory)
        guard isDirectory.boolValue else {
            checkpoint = path.path
            return
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path.path)) ?? []).sorted().filter { name in
            !name.hasPrefix(".") && ["gguf", "safetensors", "ckpt"].contains((name as NSString).pathExtension.lowercased())
        }
        var rest: [String] = []
        for name in names {
            let file = path.appendingPathComponent(name).path
            let lower = name.lowercased()
            if lower.contains("taesd") {
                taesd = file
            } else if lower.contains("vae") {
                vae = file
            } else if lower.contains("clip_l") {
                clipL = file
            } else if lower.contains("clip_g") {
                clipG = file
            } else if lower.contains("t5") {
                t5xxl = file
            } else if lower.contains("llm") {
                llm = file
            } else if ["diffusion_model", "unet", "transformer"].contains(where: lower.contains) {
                diffusionModel = file
            } else {
                rest.append(file)
            }
        }
        checkpoint = rest.max { Self.size(of: $0) < Self.size(of: $1) }
        guard checkpoint != nil || diffusionModel != nil else {
            throw SDKError(
                .modelIncompatible, "Model '\(model.id)' has no diffusion model file (.gguf, .safetensors or .ckpt) in \(path.path)")
        }
    }

    /// A file's size in bytes (0 when it cannot be read).
    static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
