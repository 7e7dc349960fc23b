import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp

/// `runanywhere quantize-model --type NAME [--threads N] INPUT OUTPUT`: writes the GGUF model
/// INPUT quantized to OUTPUT with llama.cpp's quantizer, in a process of its own, a line
/// `tensor DONE/TOTAL` on standard output for each tensor written. The runtime
/// runs it for every quantization (``RunAnywhere/ChildProcessQuantizer``: `models create
/// --quantize`, ollama's `/api/create` with `quantize`), so that a crash of the quantizer ends
/// this process, not the caller.
struct QuantizeModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quantize-model", abstract: "Write a GGUF model quantized (what models create --quantize runs).",
        shouldDisplay: false
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "The quantization: \(ModelQuantization.offered.joined(separator: ", ")).") var type: String
    @Option(help: "CPU threads (default: every core).") var threads: Int?
    @Argument(help: "The GGUF model to read.") var input: String
    @Argument(help: "The file to write.") var output: String

    func run() async throws {
        let logger = CLIContext.makeLogger(global)
        try await CLIContext.reportingErrors {
            let quantization = try ModelQuantization(named: type)
            if let threads, threads < 1 { throw SDKError(.invalidInput, "--threads must be at least 1") }
            EngineWorker.faultIfTesting(input)
            try await LlamaQuantizer(logger: logger).quantize(
                URL(fileURLWithPath: input), to: URL(fileURLWithPath: output), as: quantization, threads: threads
            ) { progress in
                Terminal.write("tensor \(progress.done)/\(progress.total)\n")
            }
        }
    }
}
