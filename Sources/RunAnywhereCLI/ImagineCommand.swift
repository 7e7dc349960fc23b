import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere imagine PROMPT --output FILE.png`: a diffusion model draws an image.
struct ImagineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagine", abstract: "Generate an image from a text prompt with a diffusion model, and write it as a PNG file.",
        discussion: """
            The model is a Stable Diffusion GGUF run by stable-diffusion.cpp: Stable Diffusion 1.5 from the \
            catalog (`runanywhere models pull stable-diffusion-v1-5-q8-0`, 1.8 GB), or the fixture scripts/setup \
            writes (\(SDKConstants.Models.diffusionFixtureID): random weights, so its images are noise). \
            Unset options take the model family's defaults (Stable Diffusion 1.5: 512×512, 20 steps, guidance 7.5). \
            A progress bar shows each step on standard error. The file is written only once the image is \
            complete; Ctrl-C stops at the next step and writes nothing. Exit status: 0 done, 1 error, 130 interrupted.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "What the image shows.") var prompt: String
    @Option(name: [.short, .long], help: "The PNG file to write (replaced if it exists).") var output: String
    @Option(name: .long, help: "Model id (default: the first downloaded image-generation model, a real one before the fixture).") var model:
        String?
    @Option(name: .customLong("negative-prompt"), help: "What the image should not show.") var negativePrompt: String?
    @Option(name: .long, help: "Denoising steps, 1 to \(SDKConstants.Limits.maxDiffusionSteps).") var steps: Int?
    @Option(name: .long, help: "Seed of the noise; the same seed and options give the same image (default: random).") var seed: Int64?
    @Option(name: .long, help: "Width in pixels, a multiple of 8.") var width: Int?
    @Option(name: .long, help: "Height in pixels, a multiple of 8.") var height: Int?
    @Option(name: .long, help: "Classifier-free guidance scale, 0 to 30.") var guidance: Float?
    @Option(name: .long, help: "Sampler: \(DiffusionScheduler.allCases.map(\.rawValue).joined(separator: ", ")).") var sampler: String?
    @Option(name: .long, help: "CPU threads (default: all cores, at most 4).") var threads: Int?
    @Flag(name: .customLong("reduce-memory"), help: "Decode the image in tiles: far less memory for large images, somewhat slower.")
    var reduceMemory = false
    @Flag(name: .long, help: "Print one JSON object with the file and the measurements.") var json = false

    /// What `--json` prints: the result without its bytes, and where they went.
    struct Output: Encodable {
        let output: String
        let width: Int
        let height: Int
        let seedUsed: Int64
        let steps: Int
        let generationTimeMs: Int64
        let safetyFlagged: Bool
        let modelId: String
        let bytes: Int
    }

    func validate() throws {
        if prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the prompt is empty; say what the image shows")
        }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if let sampler, DiffusionScheduler(caseInsensitive: sampler) == nil {
            throw ValidationError(
                "unknown sampler '\(sampler)'; choose one of \(DiffusionScheduler.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() async throws {
        try await CLIContext.run(global) { context in
            let runtime = try RunAnywhere.runtime()
            try OutputFile.check(output)  // before minutes of drawing
            let file = URL(fileURLWithPath: output)
            let model = try model.map { try runtime.model(id: $0, category: .imageGeneration) } ?? runtime.defaultDiffusionModel()
            let configuration = DiffusionConfiguration(
                modelId: model.id, reduceMemory: reduceMemory, threads: threads ?? context.settings().threads)
            let options = DiffusionGenerationOptions.defaults(for: configuration.modelVariant, prompt: prompt).with(
                negativePrompt: negativePrompt, width: width, height: height, steps: steps, guidanceScale: guidance, seed: seed,
                scheduler: sampler.flatMap(DiffusionScheduler.init(caseInsensitive:))
            )
            try options.validate()  // before the model loads
            if model.id == SDKConstants.Models.diffusionFixtureID {
                context.logger.warning("\(model.id) is a test fixture with random weights: its image is noise, not a picture of the prompt")
            }
            try await runtime.loadDiffusionModel(model, configuration: configuration)
            let progress = try await runtime.generateImageStream(prompt: prompt, options: options)
            var bar = StepBar()
            let result: DiffusionResult? = try await Interrupts.shared.whileRunning(onInterrupt: {
                Task { await runtime.cancelImageGeneration() }
            }) {
                defer { bar.finish() }
                do {
                    for try await step in progress {
                        if let result = step.result { return result }
                        bar.show(step)
                    }
                } catch is CancellationError {}
                return nil
            }
            guard let result else { throw ExitCode(130) }
            try OutputFile.write(result.imageData, to: output)
            if json {
                try JSONOutput.print(
                    Output(
                        output: file.path, width: result.width, height: result.height, seedUsed: result.seedUsed, steps: result.steps,
                        generationTimeMs: result.generationTimeMs, safetyFlagged: result.safetyFlagged, modelId: result.modelId,
                        bytes: result.imageData.count
                    ))
            } else {
                Terminal.standardError(
                    String(
                        format: "%@: %d×%d, %d steps, seed %lld, %.1fs", file.path, result.width, result.height, result.steps,
                        result.seedUsed,
                        Double(result.generationTimeMs) / 1000
                    ))
            }
        }
    }
}

/// The steps of one image on standard error: a bar redrawn in place on a terminal, a line per
/// step otherwise.
private struct StepBar {
    private var line = StatusLine()

    mutating func show(_ step: DiffusionProgress) {
        let eta = step.etaMs.map { String(format: ", ETA %.1fs", $0 / 1000) } ?? ""
        line.show(
            String(
                format: "[%@] step %d/%d • %.1fs elapsed%@", StatusLine.bar(Double(step.progress)), step.currentStep, step.totalSteps,
                step.elapsedMs / 1000, eta))
    }

    mutating func finish() { line.clear() }
}
