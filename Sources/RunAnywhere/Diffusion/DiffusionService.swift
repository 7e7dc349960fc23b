import Foundation

/// One image to generate, with every option resolved (a real seed, a non-empty prompt).
public struct DiffusionRequest: Sendable, Equatable {
    /// What the image shows.
    public let prompt: String
    /// The options, already validated; `seed` is never -1.
    public let options: DiffusionGenerationOptions

    /// Creates a request.
    public init(prompt: String, options: DiffusionGenerationOptions) {
        self.prompt = prompt
        self.options = options
    }
}

/// A generated image as the engine hands it over.
public struct DiffusionImage: Sendable, Equatable {
    /// A PNG file.
    public let png: Data
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int

    /// Creates an image.
    public init(png: Data, width: Int, height: Int) {
        self.png = png
        self.width = width
        self.height = height
    }
}

/// A diffusion model an engine has loaded.
public protocol DiffusionService: AnyObject, Sendable {
    /// Bytes of memory a `width`×`height` generation needs beyond the loaded weights, estimated,
    /// so that a size the machine cannot hold is refused before any work.
    func workingMemory(width: Int, height: Int) -> Int64
    /// Throws a clear error for options this engine or model cannot run (a sampler it lacks, a
    /// size its network cannot divide), before any work.
    func check(_ options: DiffusionGenerationOptions) throws
    /// Generates one image; blocking. `onStep(done, total)` is called after each denoising step.
    /// Raising `cancellation` stops the engine at the next step, with `CancellationError`.
    func generate(_ request: DiffusionRequest, cancellation: CancellationFlag, onStep: @escaping @Sendable (Int, Int) -> Void) throws
        -> DiffusionImage
    /// Frees the model's memory, returning once it is freed; the runtime calls it when it unloads
    /// the model (no generation runs then), and uses the model no more. The default does
    /// nothing: the memory goes with the last reference.
    func unload() async
}

extension DiffusionService {
    /// Does nothing: the model's memory is freed with its last reference.
    public func unload() async {}
}
