import Foundation

/// A generated image and how it was made (the spec's `DiffusionResult`).
public struct DiffusionResult: Codable, Sendable, Equatable {
    /// The image, as a PNG file (8-bit RGB).
    public let imageData: Data
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The seed the noise came from: the one asked for, or the one picked for a random seed (-1).
    public let seedUsed: Int64
    /// Denoising steps taken.
    public let steps: Int
    /// Milliseconds from the request to the finished PNG: the prompt's encoding, every step and
    /// the decoding.
    public let generationTimeMs: Int64
    /// Always false: no safety checker runs here (see ``DiffusionConfiguration/enableSafetyChecker``).
    public let safetyFlagged: Bool
    /// The model that drew it.
    public let modelId: String

    /// Creates a result.
    package init(
        imageData: Data, width: Int, height: Int, seedUsed: Int64, steps: Int, generationTimeMs: Int64, safetyFlagged: Bool = false,
        modelId: String
    ) {
        self.imageData = imageData
        self.width = width
        self.height = height
        self.seedUsed = seedUsed
        self.steps = steps
        self.generationTimeMs = generationTimeMs
        self.safetyFlagged = safetyFlagged
        self.modelId = modelId
    }
}

/// Where a generation is (the spec's `DiffusionProgress`): one value after each denoising step,
/// and a last one, at stage ``Stage/complete``, carrying the image.
public struct DiffusionProgress: Codable, Sendable, Equatable {
    /// The parts of a generation.
    public enum Stage: String, Codable, Sendable {
        /// Denoising, step by step.
        case denoising
        /// Done: ``DiffusionProgress/result`` holds the image.
        case complete
    }

    /// Fraction done, 0 to 1 (steps done over steps; 1 once complete).
    public let progress: Float
    /// Steps done so far (1-based once the first is done).
    public let currentStep: Int
    /// Steps in all.
    public let totalSteps: Int
    /// The part of the generation.
    public let stage: Stage
    /// Milliseconds since the request.
    public let elapsedMs: Double
    /// Milliseconds still to go, from the steps' pace so far (the decoding not counted); nil
    /// before the first step and once complete.
    public let etaMs: Double?
    /// The finished image, on the last value only.
    public let result: DiffusionResult?

    /// Creates a progress value.
    package init(
        progress: Float, currentStep: Int, totalSteps: Int, stage: Stage, elapsedMs: Double, etaMs: Double?, result: DiffusionResult? = nil
    ) {
        self.progress = progress
        self.currentStep = currentStep
        self.totalSteps = totalSteps
        self.stage = stage
        self.elapsedMs = elapsedMs
        self.etaMs = etaMs
        self.result = result
    }
}
