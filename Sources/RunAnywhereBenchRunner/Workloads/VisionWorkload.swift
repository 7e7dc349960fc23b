import Foundation
import RunAnywhere

/// A vision-language model over the gradient frames: each frame is one image encoded and one
/// token generated about it.
final class VisionWorkload: InstalledModelWorkload {
    let model: InstalledModel
    private var images: [VLMImage] = []

    init(_ model: InstalledModel) {
        self.model = model
    }

    func load(frameCount: Int) async throws {
        let frames = try GradientFrames()
        let (width, height) = (frames.source.width, frames.source.height)
        images = (0..<frameCount).map { VLMImage(rgbPixels: Data(frames.rgb($0)), width: width, height: height) }
        try await model.runtime.loadVLMModel(model.info, options: ModelLoadOptions(threads: model.threads))
    }

    func process(frame index: Int) async throws -> Bool {
        let options = LLMGenerationOptions(maxTokens: 1, temperature: 0, seed: 42, threads: model.threads)
        _ = try await model.runtime.processImage(images[index], prompt: "What is in this image?", options: options)
        return true
    }

    func unload() async {
        images = []
        await model.runtime.unloadVLMModel()
    }
}
