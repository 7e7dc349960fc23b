import Foundation

/// The sampler that denoises the image, by the spec's names (`DiffusionScheduler`). Each engine
/// runs the ones it has; asking for another is an error before any work.
public enum DiffusionScheduler: String, Codable, Sendable, CaseIterable {
    /// DPM++ 2M with Karras sigmas: good images in few steps.
    case dpmPP2MKarras = "dpm++_2m_karras"
    /// DPM++ 2M.
    case dpmPP2M = "dpm++_2m"
    /// DPM++ 2M SDE.
    case dpmPP2MSDE = "dpm++_2m_sde"
    /// DDIM (stable-diffusion.cpp: its trailing-timestep variant).
    case ddim = "ddim"
    /// Euler.
    case euler = "euler"
    /// Euler ancestral: the usual choice for SD-Turbo and SDXL Turbo.
    case eulerAncestral = "euler_a"
    /// PNDM (stable-diffusion.cpp: improved PNDM, iPNDM).
    case pndm = "pndm"
    /// LMS.
    case lms = "lms"
    /// Latent Consistency Model sampling, for LCM and SDXS models.
    case lcm = "lcm"

    /// Parses a raw value, ignoring case ("Euler_A").
    package init?(caseInsensitive string: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue == string.lowercased() }) else { return nil }
        self = match
    }
}

/// What image to generate (the spec's `DiffusionGenerationOptions`, text to image).
public struct DiffusionGenerationOptions: Codable, Sendable, Equatable {
    /// What the image shows. ``RunAnywhere/generateImage(prompt:options:)``'s own
    /// `prompt` argument takes its place when it is not empty.
    public var prompt: String
    /// What the image should not show.
    public var negativePrompt: String
    /// Width in pixels: a multiple of 8, 64 to 2048.
    public var width: Int
    /// Height in pixels: a multiple of 8, 64 to 2048.
    public var height: Int
    /// Denoising steps, 1 to 150.
    public var steps: Int
    /// Classifier-free guidance scale, 0 to 30; at 1 or below the negative prompt is not used
    /// and each step costs half as much.
    public var guidanceScale: Float
    /// The noise's seed; the same seed, prompt and options give the same image. -1 picks one at
    /// random (``DiffusionResult/seedUsed`` says which).
    public var seed: Int64
    /// The sampler.
    public var scheduler: DiffusionScheduler

    /// Creates options.
    public init(
        prompt: String = "", negativePrompt: String = "", width: Int = 512, height: Int = 512, steps: Int = 20,
        guidanceScale: Float = 7.5, seed: Int64 = -1, scheduler: DiffusionScheduler = .dpmPP2MKarras
    ) {
        self.prompt = prompt
        self.negativePrompt = negativePrompt
        self.width = width
        self.height = height
        self.steps = steps
        self.guidanceScale = guidanceScale
        self.seed = seed
        self.scheduler = scheduler
    }

    /// Options for text-to-image generation (the spec's factory).
    public static func textToImage(
        prompt: String, negativePrompt: String = "", width: Int = 512, height: Int = 512, steps: Int = 20,
        guidanceScale: Float = 7.5, seed: Int64 = -1, scheduler: DiffusionScheduler = .dpmPP2MKarras
    ) -> DiffusionGenerationOptions {
        DiffusionGenerationOptions(
            prompt: prompt, negativePrompt: negativePrompt, width: width, height: height, steps: steps, guidanceScale: guidanceScale,
            seed: seed, scheduler: scheduler
        )
    }

    /// The defaults of the model family `variant` (size, steps, guidance), with `prompt`.
    public static func defaults(for variant: DiffusionModelVariant, prompt: String = "") -> DiffusionGenerationOptions {
        DiffusionGenerationOptions(
            prompt: prompt, width: variant.defaultResolution.width, height: variant.defaultResolution.height, steps: variant.defaultSteps,
            guidanceScale: variant.defaultGuidanceScale,
            scheduler: variant == .sdxs || variant == .lcm ? .lcm : variant == .sdxlTurbo ? .eulerAncestral : .dpmPP2MKarras
        )
    }

    /// These options with each value given in place of its own (nil keeps it).
    public func with(
        negativePrompt: String? = nil, width: Int? = nil, height: Int? = nil, steps: Int? = nil, guidanceScale: Float? = nil,
        seed: Int64? = nil,
        scheduler: DiffusionScheduler? = nil
    ) -> DiffusionGenerationOptions {
        var options = self
        options.negativePrompt = negativePrompt ?? options.negativePrompt
        options.width = width ?? options.width
        options.height = height ?? options.height
        options.steps = steps ?? options.steps
        options.guidanceScale = guidanceScale ?? options.guidanceScale
        options.seed = seed ?? options.seed
        options.scheduler = scheduler ?? options.scheduler
        return options
    }

    /// Throws ``ErrorCode/invalidInput`` naming the first value out of range.
    package func validate() throws {
        if let invalid = firstInvalidOption() { throw invalid.error }
    }

    /// The first value out of range, by its property's name (`width`, `height`, `steps`,
    /// `guidanceScale`, `seed`, `prompt` or `negativePrompt`), with the error that says why: a
    /// server names the request's field from it.
    package func firstInvalidOption() -> (name: String, error: SDKError)? {
        func bad(_ name: String, _ why: String) -> (name: String, error: SDKError) {
            (name, SDKError(.invalidInput, "Invalid image options: \(why)"))
        }
        let sides = SDKConstants.Limits.diffusionSides
        let multiple = SDKConstants.Limits.diffusionSideMultiple
        for (name, value) in [("width", width), ("height", height)] {
            guard sides.contains(value) else {
                return bad(name, "\(name) must be \(sides.lowerBound) to \(sides.upperBound) pixels (got \(value))")
            }
            guard value % multiple == 0 else { return bad(name, "\(name) must be a multiple of \(multiple) (got \(value))") }
        }
        guard (1...SDKConstants.Limits.maxDiffusionSteps).contains(steps) else {
            return bad("steps", "steps must be 1 to \(SDKConstants.Limits.maxDiffusionSteps) (got \(steps))")
        }
        guard guidanceScale.isFinite, (0...30).contains(guidanceScale) else {
            return bad("guidanceScale", "guidanceScale must be 0 to 30 (got \(guidanceScale))")
        }
        guard seed >= -1 else { return bad("seed", "seed must be -1 (random) or a number from 0 (got \(seed))") }
        let longest = SDKConstants.Limits.maxDiffusionPromptCharacters
        for (name, text) in [("prompt", prompt), ("negativePrompt", negativePrompt)] where text.count > longest {
            return bad(name, "\(name) has \(text.count) characters; at most \(longest)")
        }
        return nil
    }
}
