import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// The quantizations offered by name, the files a quantization starts from, the progress read
/// from the quantizer's lines, and a cancel killing the quantizer's process (the quantizing
/// itself runs on llama.cpp: `LlamaTests.Quantization`, the CLI's `CLIModelfileTests`).
@Suite struct ModelQuantizationTests {
    @Test func namesAreReadInAnyCaseAndOnlyThoseOffered() throws {
        for (name, fileType) in [("q4_K_M", 15), ("Q8_0", 7), ("f16", 1), ("bf16", 32), ("q6_k", 18)] {
            let quantization = try ModelQuantization(named: name)
            #expect(quantization.fileType == fileType && quantization.name == name.uppercased())
        }
        for name in ["IQ2_XXS", "q4", "", "F32"] {
            let error = try #require(throws: SDKError.self) { try ModelQuantization(named: name) }
            #expect(error.code == .invalidInput && error.message.contains("Q4_K_M, Q5_K_S"), "\(error.message)")
        }
    }

    @Test func aQuantizationStartsFromFloatsOnly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-quantize-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // tinyLlama says file type 2 (Q4_0); the same tensors with F16 named, or no type named
        // and a quantized tensor among them.
        let quantized = folder.appendingPathComponent("q.gguf")
        try GGUFWriter.tinyLlama().write(to: quantized)
        let error = try #require(throws: SDKError.self) {
            try ModelQuantization.checkSource(try GGUFReader.read(quantized), name: "q.gguf")
        }
        #expect(error.code == .modelIncompatible && error.message.contains("quantized already (Q4_0)"), "\(error.message)")
        var named = GGUFWriter.tinyLlama()
        named.metadata = named.metadata.map { $0.0 == "general.file_type" ? ($0.0, .u32(1)) : $0 }
        let floats = folder.appendingPathComponent("f.gguf")
        try named.write(to: floats)
        try ModelQuantization.checkSource(try GGUFReader.read(floats), name: "f.gguf")
        var unnamed = GGUFWriter.tinyLlama()
        unnamed.metadata.removeAll { $0.0 == "general.file_type" }
        let guessed = folder.appendingPathComponent("u.gguf")
        try unnamed.write(to: guessed)
        #expect(throws: SDKError.self, "a Q4_0 tensor, no type named") {
            try ModelQuantization.checkSource(try GGUFReader.read(guessed), name: "u.gguf")
        }
    }

    /// How far a quantization is, read from llama.cpp's log or the quantizer process's output.
    @Test func progressIsReadFromTheQuantizersLines() {
        let logged = "[  12/ 291]                  blk.0.attn_q.weight - [  576,   576,     1,     1], type =    f16, converting to q8_0"
        #expect(QuantizationProgress(line: logged) == QuantizationProgress(done: 12, total: 291))
        #expect(QuantizationProgress(line: "tensor 291/291") == QuantizationProgress(done: 291, total: 291))
        for other in ["llama_model_quantize_impl: model size = 258.00 MiB", "[ 3/ 0] x", "tensor 5/4", "tensor a/b", "", "[12/291"] {
            #expect(QuantizationProgress(line: other) == nil, "\(other)")
        }
    }

    /// Cancelling a quantization in a child process kills the process: here a shell standing in
    /// for `runanywhere quantize-model` that reports one tensor and then never ends (a process
    /// still there 30 s after the cancel fails the test, which then kills it itself).
    @Test func cancellingKillsTheQuantizersProcess() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-quantize-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid")
        let quantizer = ChildProcessQuantizer(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "echo $$ > '\(pidFile.path)'; echo 'tensor 1/2'; exec sleep 100000", "sh"])
        let (reports, report) = AsyncStream.makeStream(of: QuantizationProgress.self)
        let work = Task {
            try await quantizer.quantize(
                folder.appendingPathComponent("in.gguf"), to: folder.appendingPathComponent("out.gguf"),
                as: try ModelQuantization(named: "q8_0"), threads: nil
            ) { report.yield($0) }
        }
        var iterator = reports.makeAsyncIterator()
        #expect(await iterator.next() == QuantizationProgress(done: 1, total: 2))
        let pid = try #require(
            pid_t(String(decoding: try Data(contentsOf: pidFile), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        work.cancel()
        let gone = try await ProcessWatch.gone(pid)
        #expect(gone, "the cancel killed the quantizer's process")
        await #expect(throws: CancellationError.self) { try await work.value }
    }

    @Test func aRuntimeWithoutAQuantizerSaysSo() async throws {
        let runtime = try scriptedRuntime()
        let error = await #expect(throws: SDKError.self) {
            try await runtime.prepareQuantization(of: "scripted", as: try ModelQuantization(named: "q8_0"), id: "small")
        }
        #expect(error?.code == .frameworkNotAvailable && error?.message.contains("quantizer") == true)
    }
}
