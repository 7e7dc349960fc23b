import CLlamaCpp
import Foundation
import Logging
import RunAnywhere

/// llama.cpp's quantizer (`llama_model_quantize`, what `llama-quantize` runs) in this process:
/// reads a GGUF model's tensors and writes them as a ``RunAnywhere/ModelQuantization`` to another
/// file, with llama.cpp's own choice of types per tensor for the k-quants (`Q4_K_M` keeps some
/// tensors at `Q6_K`…). The CLI runs it in a child process of its own (`runanywhere
/// quantize-model`), so that a crash of the quantizer costs that process only.
package struct LlamaQuantizer: ModelQuantizer {
    let logger: Logger

    /// A quantizer whose llama.cpp log goes to `logger`.
    package init(logger: Logger) { self.logger = logger }

    /// Quantizes as ``RunAnywhere/ModelQuantizer`` says; the progress is what llama.cpp logs for
    /// each tensor it writes. It runs to its end once started: llama.cpp's quantizer has no way
    /// to stop it (the child process it runs in for the CLI and the server is killed instead).
    package func quantize(
        _ input: URL, to output: URL, as quantization: ModelQuantization, threads: Int?,
        progress: @escaping @Sendable (QuantizationProgress) -> Void
    ) async throws {
        let library = try LlamaLibrary.load(logger: logger)
        try await runBlocking {
            var parameters = library.api.llama_model_quantize_default_params()
            parameters.nthread = Int32(clamping: threads ?? 0)
            parameters.ftype = llama_ftype(rawValue: UInt32(quantization.fileType))
            let status = library.logSink.watching({ line in QuantizationProgress(line: line).map(progress) }) {
                input.path.withCString { from in
                    output.path.withCString { to in library.api.llama_model_quantize(from, to, &parameters) }
                }
            }
            guard status == 0 else {
                try? FileManager.default.removeItem(at: output)
                throw SDKError(
                    .modelIncompatible,
                    library.logSink.explain("llama.cpp could not quantize \(input.lastPathComponent) to \(quantization.name)"))
            }
        }
    }
}
