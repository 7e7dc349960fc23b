import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere describe IMAGE`: a vision-language model answers a question about an image.
struct DescribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe", abstract: "Describe an image (PNG, JPEG, GIF or BMP) with a vision-language model, streaming the answer.",
        discussion: """
            The model is a multimodal GGUF with its vision projector (mmproj): SmolVLM from the catalog \
            (`runanywhere models pull smolvlm-256m-instruct`), or the fixture scripts/setup writes \
            (\(SDKConstants.Models.visionFixtureID): random weights, so its answers are noise). \
            Ctrl-C stops the answer and keeps what was written. Exit status: 0 done, 1 error, 130 interrupted.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var flags: GenerationFlags
    @Option(name: .long, help: "What to ask about the image.") var prompt = "Describe this image."
    @Flag(name: .long, help: "Print one JSON object with the answer and its measurements instead of streaming.") var json = false
    @Argument(help: "The image file.") var image: String

    func validate() throws {
        if prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("--prompt is empty; ask something about the image")
        }
    }

    func run() async throws {
        try await CLIContext.run(global, engineProcesses: !flags.rpcWorkers.isEmpty) { context in
            try flags.checkSampling()
            let runtime = try RunAnywhere.runtime()
            // Read and checked once, here: a bad image fails before any model loads.
            let picture = VLMImage(data: try VLMImage(filePath: image).load().bytes)
            let model = try flags.model.map { try runtime.model(id: $0) } ?? runtime.defaultVisionModel()
            if model.id == SDKConstants.Models.visionFixtureID {
                context.logger.warning("\(model.id) is a test fixture with random weights: its answer is noise, not a description")
            }
            let settings = context.settings()
            try await runtime.loadVLMModel(model, options: flags.loadOptions(settings, savedPrompts: context.savedPrompts))  // checks its projector
            let generation = try await runtime.generateEvents(
                prompt, images: [picture], context: nil, options: flags.options(settings, model: model), model: model.id,
                loadOptions: flags.loadOptions(settings, savedPrompts: context.savedPrompts)
            )
            let result = VLMResult(try await StreamPrinter.run(generation, printing: !json))
            if json {
                try JSONOutput.print(result)
            } else {
                let encode = result.imageEncodeTimeMs.map { String(format: " • image encoded in %.0f ms", $0) } ?? ""
                context.logger.info(
                    "\(String(format: "%.1fs • %d tok/s", result.totalTimeMs / 1000, Int(result.tokensPerSecond.rounded()))) • \(result.promptTokens) prompt tokens\(encode) • stop: \(result.stopReason.rawValue)"
                )
            }
            if result.stopReason == .cancelled { throw ExitCode(130) }
        }
    }
}
