import Foundation

/// Stable Diffusion model families, with the defaults each is made for (the spec's
/// `DiffusionModelVariant`). stable-diffusion.cpp reads the architecture from the file itself;
/// the variant only chooses the defaults a caller did not set.
public enum DiffusionModelVariant: String, Codable, Sendable, CaseIterable {
    /// Stable Diffusion 1.5 (512×512).
    case sd15 = "sd15"
    /// Stable Diffusion 2.1 (768×768).
    case sd21 = "sd21"
    /// SDXL (1024×1024; 8 GB of memory or more).
    case sdxl = "sdxl"
    /// SDXL Turbo: a few steps, no classifier-free guidance.
    case sdxlTurbo = "sdxl_turbo"
    /// SDXS: one step, no classifier-free guidance.
    case sdxs = "sdxs"
    /// Latent Consistency Model: a few steps, low guidance.
    case lcm = "lcm"

    /// The image size the family was trained at.
    public var defaultResolution: (width: Int, height: Int) {
        switch self {
        case .sd15, .sdxs, .lcm: (512, 512)
        case .sd21: (768, 768)
        case .sdxl, .sdxlTurbo: (1024, 1024)
        }
    }

    /// Denoising steps the family needs.
    public var defaultSteps: Int {
        switch self {
        case .sdxs: 1
        case .sdxlTurbo, .lcm: 4
        case .sd15, .sd21, .sdxl: 20
        }
    }

    /// Classifier-free guidance scale; 0 for the families distilled to work without it.
    public var defaultGuidanceScale: Float {
        switch self {
        case .sdxs, .sdxlTurbo: 0
        case .lcm: 1.5
        case .sd15, .sd21, .sdxl: 7.5
        }
    }

    /// Whether the family needs classifier-free guidance (twice the work per step).
    public var requiresCFG: Bool { defaultGuidanceScale > 1 }
}

/// How to load a diffusion model (the spec's `DiffusionConfiguration`).
public struct DiffusionConfiguration: Codable, Sendable, Equatable {
    /// The model's id, when the caller knows it.
    public var modelId: String?
    /// The model family, for defaults.
    public var modelVariant: DiffusionModelVariant
    /// Kept for the spec's signature. No safety checker runs here: stable-diffusion.cpp has
    /// none, so no result is ever flagged (``DiffusionResult/safetyFlagged`` is always false).
    public var enableSafetyChecker: Bool
    /// Decodes the image in tiles, so that large images need far less memory, at some cost in
    /// time (stable-diffusion.cpp's VAE tiling).
    public var reduceMemory: Bool
    /// The engine to use; nil picks the one that can run the model (stable-diffusion.cpp).
    public var preferredFramework: InferenceFramework?
    /// CPU threads; nil uses the machine's default.
    public var threads: Int?

    /// Creates a configuration.
    public init(
        modelId: String? = nil, modelVariant: DiffusionModelVariant = .sd15, enableSafetyChecker: Bool = true, reduceMemory: Bool = false,
        preferredFramework: InferenceFramework? = nil, threads: Int? = nil
    ) {
        self.modelId = modelId
        self.modelVariant = modelVariant
        self.enableSafetyChecker = enableSafetyChecker
        self.reduceMemory = reduceMemory
        self.preferredFramework = preferredFramework
        self.threads = threads
    }
}
