import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp

extension ModelsCommand {
    struct ConvertEmbedding: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "convert-embedding",
            abstract: "Convert a Hugging Face BERT embedding model folder (sentence-transformers) into a GGUF file llama.cpp runs."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model folder (config.json, model.safetensors, vocab.txt, tokenizer files, modules.json).") var directory:
            String
        @Option(name: .long, help: "The GGUF file to write.") var output: String
        @Option(name: .long, help: "The model's name, written as general.name.") var name: String?

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let report = try BertEmbeddingConverter.convert(
                    sourceDirectory: URL(fileURLWithPath: directory), output: URL(fileURLWithPath: output), name: name
                )
                let pooling = report.pooling.map { "\($0) pooling" } ?? "no pooling"
                Terminal.write(
                    "Wrote \(output): \(report.tensorCount) tensors, \(report.vocabularySize) tokens, \(report.embeddingLength) dimensions, \(pooling), \(Terminal.bytes(report.bytes))\n"
                )
            }
        }
    }
}
