import Foundation
import RunAnywhere

/// A vision-language model over the gradient frames: each frame is one image encoded and one
/// token generated about it.
final class VisionWorkload: FrameWorkload {
    let modelID: String
    let backend: String
    let modelFileBytes: Int64
    private let model: ModelInfo
    private let runtime: RunAnywhereRuntime
    private let threads: Int
    private var images: [VLMImage] = []

    init(model: ModelInfo, fileBytes: Int64, runtime: RunAnywhereRuntime, threads: Int) {
        self.model = model
        modelID = model.id
        backend = ModelWorkload.backend(model)
        modelFileBytes = fileBytes
        self.runtime = runtime
        self.threads = threads
    }

    func load(frameCount: Int) async throws {
        let frames = try GradientFrames()
        let (width, height) = (frames.source.width, frames.source.height)
        images = (0..<frameCount).map { VLMImage(rgbPixels: Data(frames.rgb($0)), width: width, height: height) }
        try await runtime.loadVLMModel(model, options: ModelLoadOptions(threads: threads))
    }

    func process(frame index: Int) async throws -> Bool {
        let options = LLMGenerationOptions(maxTokens: 1, temperature: 0, seed: 42, threads: threads)
        _ = try await runtime.processImage(images[index], prompt: "What is in this image?", options: options)
        return true
    }

    func unload() async {
        images = []
        await runtime.unloadVLMModel()
    }
}
