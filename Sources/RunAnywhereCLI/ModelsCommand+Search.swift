import ArgumentParser
import Foundation
import RunAnywhere

extension ModelsCommand {
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search", abstract: "List the GGUF models of a Hugging Face repository, with the reference that adds each.",
            discussion: "A gated or private repository needs HF_TOKEN to download; HF_ENDPOINT names another hub."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The repository: hf.co/OWNER/REPO (with :QUANT, only the files that carry it).") var query: String
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let models = try await RunAnywhere.runtime().searchModels(query)
                if json { return try JSONOutput.print(models) }
                guard !models.isEmpty else { return Terminal.write("No GGUF models match \(query)\n") }
                let rows = models.map { model in
                    [
                        model.reference, model.quantization ?? "-", model.sizeBytes.map(Terminal.bytes) ?? "-",
                        model.parts > 1 ? "\(model.parts) parts (not supported)" : model.file,
                        model.requiresToken ? "needs HF_TOKEN" : "open",
                    ]
                }
                Terminal.write(Terminal.table(["REFERENCE", "QUANT", "SIZE", "FILE", "ACCESS"], rows))
                Terminal.write("Add one with: runanywhere models add REFERENCE\n")
            }
        }
    }
}
