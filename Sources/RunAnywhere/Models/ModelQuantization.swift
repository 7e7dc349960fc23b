import Foundation
import Synchronization

/// A quantization llama.cpp's quantizer writes a GGUF model in without an importance matrix, by
/// the name llama.cpp and ollama give it (`Q4_K_M`, `Q8_0`…; any case is read): what `ollama
/// create --quantize` and `llama-quantize` offer.
package struct ModelQuantization: Sendable, Equatable {
    /// The name, as llama.cpp writes it (`Q4_K_M`).
    package let name: String
    /// llama.cpp's `llama_ftype` for it (`general.file_type` of the file it writes).
    package let fileType: Int

    /// The names offered: every legacy and k-quant, and the 16-bit floats. The i-quants need an
    /// importance matrix, which nothing here computes.
    package static let offered = [
        "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K_S", "Q3_K_M", "Q3_K_L", "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "Q6_K",
        "F16", "BF16",
    ]

    /// The quantization `name` (any case); ``ErrorCode/invalidInput`` listing the offered ones otherwise.
    package init(named name: String) throws {
        let wanted = name.uppercased()
        guard Self.offered.contains(wanted), let fileType = (0...64).first(where: { GGMLType.fileTypeName($0) == wanted }) else {
            throw SDKError(
                .invalidInput, "Cannot quantize to '\(name)': the quantizations offered are \(Self.offered.joined(separator: ", "))")
        }
        self.name = wanted
        self.fileType = fileType
    }

    /// Throws ``ErrorCode/modelIncompatible`` unless the GGUF model `metadata` (of the file
    /// `name`) is one a quantization starts from: a language, embedding or reranking model whose
    /// weights are 32- or 16-bit floats (`general.file_type` F32, F16 or BF16; without one, every
    /// tensor of those types), as ollama's quantizing asks. Quantizing an already quantized
    /// model again would lose more than the quantization says.
    package static func checkSource(_ metadata: GGUFMetadata, name: String) throws {
        let floats: Set<Int> = [0, 1, 32]
        let isFloat =
            metadata.fileType.map { floats.contains($0) } ?? metadata.tensors.allSatisfy { [0, 1, 30].contains($0.type) }
        guard isFloat else {
            throw SDKError(
                .modelIncompatible,
                "\(name) is quantized already (\(metadata.quantization ?? "not 32- or 16-bit floats")): quantizing starts from an F32, F16 or BF16 model"
            )
        }
    }
}

/// How far a quantization is: the tensors written of the file's total.
package struct QuantizationProgress: Sendable, Equatable {
    /// Tensors written.
    package let done: Int
    /// Tensors in the file.
    package let total: Int

    /// `done` of `total` tensors.
    package init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }

    /// The progress a line of llama.cpp's quantizer log (`[  12/ 291] blk.0.attn_q.weight - …`)
    /// or of `runanywhere quantize-model`'s output (`tensor 12/291`) reports; nil for any other line.
    package init?(line: String) {
        let text = line.hasPrefix("tensor ") ? Substring(line.dropFirst(7)) : Substring(line)
        let counts: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            counts = text[text.index(after: text.startIndex)..<close]
        } else {
            counts = text.prefix { !$0.isWhitespace }
        }
        let parts = counts.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let done = Int(parts[0]), let total = Int(parts[1]), total > 0, (0...total).contains(done) else {
            return nil
        }
        self.init(done: done, total: total)
    }
}

/// Writes a GGUF model file quantized: llama.cpp's quantizer in this process
/// (`RunAnywhereLlamaCpp`'s `LlamaQuantizer`) or in a child process (``ChildProcessQuantizer``).
package protocol ModelQuantizer: Sendable {
    /// Writes `input` quantized as `quantization` to `output`, with `threads` (nil: every core),
    /// reporting each tensor written to `progress`. Cancelling the task stops the work where the
    /// quantizer can stop it (a child process is killed; llama.cpp's quantizer in this process
    /// runs to its end).
    func quantize(
        _ input: URL, to output: URL, as quantization: ModelQuantization, threads: Int?,
        progress: @escaping @Sendable (QuantizationProgress) -> Void
    ) async throws
}

/// Quantizes in a child process, so that a crash of llama.cpp's quantizer costs that process:
/// runs `executable arguments… --type NAME [--threads N] INPUT OUTPUT` (`runanywhere
/// quantize-model`), which writes its progress to standard output (`tensor DONE/TOTAL` lines)
/// and exits 0, or says why on standard error. Cancelling the task kills the process.
package struct ChildProcessQuantizer: ModelQuantizer {
    /// The program.
    package var executable: URL
    /// The arguments before `--type`.
    package var arguments: [String]
    /// How long a quantization may take before it counts as a hang and is killed.
    package var timeout: Duration

    /// A quantizer that runs `executable arguments…`, killed after `timeout`.
    package init(executable: URL, arguments: [String], timeout: Duration = .seconds(4 * 3600)) {
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
    }

    package func quantize(
        _ input: URL, to output: URL, as quantization: ModelQuantization, threads: Int?,
        progress: @escaping @Sendable (QuantizationProgress) -> Void
    ) async throws {
        let arguments =
            arguments + ["--type", quantization.name] + (threads.map { ["--threads", "\($0)"] } ?? []) + [input.path, output.path]
        let (executable, timeout) = (executable, timeout)
        // The child, and whether the task was cancelled: whichever comes second kills it.
        let child = Mutex<(pid: pid_t?, cancelled: Bool)>((nil, false))
        let outcome = try await withTaskCancellationHandler {
            try await runBlocking {
                try ModelProbe.run(
                    executable, arguments, timeout: timeout, purpose: "quantizer",
                    started: { pid in
                        child.withLock { state in
                            state.pid = pid
                            if state.cancelled { kill(pid, SIGKILL) }
                        }
                    },
                    output: { line in QuantizationProgress(line: line).map(progress) })
            }
        } onCancel: {
            child.withLock { state in
                state.cancelled = true
                if let pid = state.pid { kill(pid, SIGKILL) }
            }
        }
        try Task.checkCancellation()
        let what = "Quantizing \(input.lastPathComponent) to \(quantization.name)"
        switch outcome {
        case .passed: return
        case .crashed(let signal, let said):
            throw SDKError(
                .engineCrashed,
                "\(what) crashed llama.cpp's quantizer in its process (signal \(signal)\(ModelProbe.signalName(signal).map { ", \($0)" } ?? "")); nothing was made\(said.isEmpty ? "" : " (\(said))")"
            )
        case .failed(let said): throw SDKError(.modelIncompatible, said.isEmpty ? "\(what) failed" : said)
        case .timedOut: throw SDKError(.generationFailed, "\(what) took over \(Int(timeout.inSeconds)) seconds and was stopped")
        }
    }
}
