internal import CStableDiffusion
import Foundation
import RunAnywhere
import Synchronization

/// A diffusion model loaded in stable-diffusion.cpp: one `sd_ctx_t`, used by one generation at a
/// time (the model's turn, the runtime's `inTurn(on:)`, and the C shim's own lock). Text to image, decoding only.
final class StableDiffusionService: DiffusionService, @unchecked Sendable {
    // @unchecked: `context` is only used under the locks above, and freed once (`freed`): by
    // unload(), which the runtime calls only when no generation runs, or else in deinit.
    private let library: StableDiffusionLibrary
    private let context: OpaquePointer
    private let reduceMemory: Bool
    private let freed = Mutex(false)

    /// Loads the model's files; a file stable-diffusion.cpp cannot read is a clear error.
    init(library: StableDiffusionLibrary, files: StableDiffusionFiles, configuration: DiffusionConfiguration, threads: Int) throws {
        self.library = library
        self.reduceMemory = configuration.reduceMemory
        let name = URL(fileURLWithPath: files.checkpoint ?? files.diffusionModel ?? "").lastPathComponent
        var params = sd_ctx_params_t()
        library.api.sd_ctx_params_init(&params)
        let strings = CStrings()
        params.model_path = strings.copy(files.checkpoint)
        params.diffusion_model_path = strings.copy(files.diffusionModel)
        params.vae_path = strings.copy(files.vae)
        params.taesd_path = strings.copy(files.taesd)
        params.clip_l_path = strings.copy(files.clipL)
        params.clip_g_path = strings.copy(files.clipG)
        params.t5xxl_path = strings.copy(files.t5xxl)
        params.llm_path = strings.copy(files.llm)
        params.n_threads = Int32(clamping: max(1, threads))  // every generation uses them; the runtime checks 1...512
        params.vae_decode_only = true  // text to image never encodes an image
        params.free_params_immediately = false  // keep the weights for the next image
        var message = [CChar](repeating: 0, count: 512)
        let loaded = withUnsafePointer(to: library.api) { ra_sd_new_ctx($0, &params, &message, message.count) }
        withExtendedLifetime(strings) {}
        guard let loaded else {
            let thrown = Self.text(message)
            throw SDKError(
                .modelLoadFailed,
                library.logSink.explain("stable-diffusion.cpp could not load '\(name)'\(thrown.isEmpty ? "" : " (\(thrown))")"))
        }
        guard library.api.sd_ctx_supports_image_generation(loaded) else {
            library.api.free_sd_ctx(loaded)
            throw SDKError(
                .modelIncompatible, "'\(name)' is not an image-generation model (stable-diffusion.cpp loaded it as a video model)")
        }
        self.context = loaded
    }

    deinit { freeContext() }

    func unload() async { freeContext() }

    /// Frees the context once, and gives the freed buffers back to the system.
    private func freeContext() {
        guard
            freed.withLock({ freed in
                defer { freed = true }
                return !freed
            })
        else { return }
        library.api.free_sd_ctx(context)
        ra_engine_release_free_memory()
    }

    /// A generous estimate: about 6.5 KB per pixel for decoding the image, the largest buffer of a
    /// generation (for Stable Diffusion 1.5's VAE, about 1.6 GB at 512×512), or a tile's worth
    /// when decoding in tiles (``RunAnywhere/DiffusionConfiguration/reduceMemory``), plus 256 MiB for the rest.
    func workingMemory(width: Int, height: Int) -> Int64 {
        let pixels = Int64(width) * Int64(height)
        return (256 << 20) + 6_656 * (reduceMemory ? min(pixels, 512 * 512) : pixels)
    }

    func check(_ options: DiffusionGenerationOptions) throws {
        _ = try Self.sampler(options.scheduler)
    }

    func generate(_ request: DiffusionRequest, cancellation: CancellationFlag, onStep: @escaping @Sendable (Int, Int) -> Void) throws
        -> DiffusionImage
    {
        guard !freed.withLock({ $0 }) else { throw SDKError(.notInitialized, "The diffusion model was unloaded") }
        let options = request.options
        let (method, scheduler) = try Self.sampler(options.scheduler)
        var params = sd_img_gen_params_t()
        library.api.sd_img_gen_params_init(&params)
        params.width = Int32(options.width)
        params.height = Int32(options.height)
        params.seed = options.seed
        params.batch_count = 1
        params.sample_params.sample_steps = Int32(options.steps)
        params.sample_params.sample_method = method
        params.sample_params.scheduler = scheduler
        params.sample_params.guidance.txt_cfg = options.guidanceScale
        params.vae_tiling_params.enabled = reduceMemory
        let progress = StepReporter(steps: options.steps, cancellation: cancellation, onStep: onStep)
        var stopped = false
        var message = [CChar](repeating: 0, count: 512)
        let mark = library.logSink.mark()
        let images = request.prompt.withCString { prompt in
            options.negativePrompt.withCString { negative in
                params.prompt = prompt
                params.negative_prompt = negative
                return withUnsafePointer(to: library.api) { api in
                    ra_sd_generate(
                        api, context, &params,
                        { step, steps, _, user in
                            let reporter = Unmanaged<StepReporter>.fromOpaque(user!).takeUnretainedValue()
                            return reporter.report(step: Int(step), of: Int(steps))
                        }, Unmanaged.passUnretained(progress).toOpaque(), &stopped, &message, message.count)
                }
            }
        }
        withExtendedLifetime(progress) {}
        if stopped { throw CancellationError() }
        guard let images, let pixels = images.pointee.data else {
            free(images)
            let thrown = Self.text(message)
            throw SDKError(
                .generationFailed,
                library.logSink.explain(
                    "stable-diffusion.cpp could not generate the image\(thrown.isEmpty ? "" : " (\(thrown))")", since: mark))
        }
        defer {
            free(pixels)
            free(images)
        }
        let image = images.pointee
        return try png(
            pixels, width: Int(image.width), height: Int(image.height), channels: Int(image.channel),
            croppedTo: (options.width, options.height))
    }

    /// A PNG of `pixels` (8-bit, `channels` per pixel), cut to `size` around its centre when sd.cpp
    /// generated a larger image (it rounds sizes up to what its network divides).
    private func png(
        _ pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, channels: Int, croppedTo size: (width: Int, height: Int)
    ) throws -> DiffusionImage {
        let (outWidth, outHeight) = (min(width, size.width), min(height, size.height))
        let (left, top) = ((width - outWidth) / 2, (height - outHeight) / 2)
        if (outWidth, outHeight) != (width, height) {
            for row in 0..<outHeight {  // rows move towards the start, never overlapping unread ones
                (pixels + row * outWidth * channels).update(
                    from: pixels + ((top + row) * width + left) * channels, count: outWidth * channels)
            }
        }
        var length = 0
        guard
            let encoded = library.api.tdefl_write_image_to_png_file_in_memory(
                pixels, Int32(outWidth), Int32(outHeight), Int32(channels), &length)
        else {
            throw SDKError(.generationFailed, "Could not encode the \(outWidth)×\(outHeight) image as PNG")
        }
        defer { library.api.mz_free(encoded) }
        return DiffusionImage(png: Data(bytes: encoded, count: length), width: outWidth, height: outHeight)
    }

    /// The C string in `buffer`.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// sd.cpp's sample method and scheduler for `scheduler`; the samplers it lacks are an error.
    static func sampler(_ scheduler: DiffusionScheduler) throws -> (sample_method_t, scheduler_t) {
        guard let pair = samplers[scheduler] else {
            let offered = DiffusionScheduler.allCases.filter { samplers[$0] != nil }.map(\.rawValue).joined(separator: ", ")
            throw SDKError(.invalidInput, "stable-diffusion.cpp has no '\(scheduler.rawValue)' sampler; choose one of \(offered)")
        }
        return pair
    }

    /// The samplers sd.cpp has, as its sample method and scheduler (it has no DPM++ 2M SDE, nor LMS).
    private static let samplers: [DiffusionScheduler: (sample_method_t, scheduler_t)] = [
        .dpmPP2MKarras: (DPMPP2M_SAMPLE_METHOD, KARRAS_SCHEDULER), .dpmPP2M: (DPMPP2M_SAMPLE_METHOD, DISCRETE_SCHEDULER),
        .ddim: (DDIM_TRAILING_SAMPLE_METHOD, DISCRETE_SCHEDULER), .euler: (EULER_SAMPLE_METHOD, DISCRETE_SCHEDULER),
        .eulerAncestral: (EULER_A_SAMPLE_METHOD, DISCRETE_SCHEDULER), .pndm: (IPNDM_SAMPLE_METHOD, DISCRETE_SCHEDULER),
        .lcm: (LCM_SAMPLE_METHOD, DISCRETE_SCHEDULER),
    ]
}

/// Receives sd.cpp's progress for one generation: passes sampling steps on, and says whether to
/// go on.
private final class StepReporter: Sendable {
    let steps: Int
    let cancellation: CancellationFlag
    let onStep: @Sendable (Int, Int) -> Void

    init(steps: Int, cancellation: CancellationFlag, onStep: @escaping @Sendable (Int, Int) -> Void) {
        self.steps = steps
        self.cancellation = cancellation
        self.onStep = onStep
    }

    /// Called with `step` of `total`; false stops the generation.
    func report(step: Int, of total: Int) -> Bool {
        if step > 0, total == steps { onStep(step, total) }  // not step 0, nor decoding tiles
        return !cancellation.isCancelled
    }
}

/// C strings that live as long as this object.
private final class CStrings {
    private var copies: [UnsafeMutablePointer<CChar>] = []

    /// A copy of `string`, or nil for nil.
    func copy(_ string: String?) -> UnsafePointer<CChar>? {
        guard let string, let copy = strdup(string) else { return nil }
        copies.append(copy)
        return UnsafePointer(copy)
    }

    deinit { copies.forEach { free($0) } }
}
