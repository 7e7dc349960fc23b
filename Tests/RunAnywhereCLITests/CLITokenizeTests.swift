import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere tokenize` and `detokenize` on the default model, and `models info` and `import`
/// with safetensors and ONNX files.
@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct CLITokenizeTests {
    /// A one-line error and exit status 1, as every bad input ends.
    func expectError(_ output: CLIRunner.Output, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        CLIBadInputTests().expectError(output, fragment, sourceLocation: sourceLocation)
    }

    @Test func tokenizeAndDetokenizeRoundTrip() throws {
        try CLIRunner.withData { cli, _ in
            let text = "Cats sleep for twelve hours. Naïve 🐱!"
            let plain = try cli.run(["tokenize", text])
            #expect(plain.status == 0, "\(plain.stderr)")
            let ids = plain.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
            #expect(
                !ids.isEmpty && ids.count == plain.stdout.split(whereSeparator: \.isWhitespace).count, "ids on one line: \(plain.stdout)")
            #expect(try cli.run(["tokenize", "--json", text]).json()["tokens"] as? [Int] == ids.map(Int.init))
            let back = try cli.run(["detokenize", "-"], input: plain.stdout)
            #expect(back.status == 0 && back.stdout == text + "\n", "\(back.stdout.debugDescription) \(back.stderr)")
            let json = try cli.run(["detokenize", "--json"] + ids.map(String.init)).json()
            #expect(json["content"] as? String == text)
            #expect(try cli.run(["tokenize", "-"], input: text).stdout == plain.stdout, "the text from standard input")

            // The count is what generation reports for the same raw prompt.
            let generated = try cli.run(["generate", "--json", "--raw", "--max-tokens", "1", "--threads", "1", text]).json()
            #expect(generated["inputTokens"] as? Int == ids.count)

            let pieces = try cli.run(["tokenize", "--with-pieces", "Hi 🐱"])
            #expect(pieces.status == 0 && pieces.stdout.contains("\"Hi\"") && pieces.stdout.contains("<0x"), "\(pieces.stdout)")
            let special = try cli.run(["tokenize", "--json", "--no-special", "--no-parse-special", "<|im_start|>"]).json()
            #expect((special["tokens"] as? [Int])?.count ?? 0 > 1, "read as plain text: \(special)")

            expectError(try cli.run(["detokenize", "99999999"]), "is not in the model's vocabulary")
            expectError(try cli.run(["detokenize", "1", "two"]), "'two' is not a token id")
            expectError(
                try cli.run(["tokenize", "--model", SDKConstants.Models.defaultSpeechRecognitionModelID, "Hi"]), "only language models")
            expectError(try cli.run(["tokenize", "--model", "no-such-model", "Hi"]), "not found")
        }
    }

    @Test func modelsInfoAndImportReadSafetensorsAndONNX() throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let checkpoint = home.appendingPathComponent("tiny-sd.safetensors")
        try SafetensorsWriter(
            tensors: [
                .float32("model.diffusion_model.out.weight", shape: [2, 3], values: [1, 2, 3, 4, 5, 6]),
                .float32("first_stage_model.bias", shape: [4], values: [0, 0, 0, 0]),
            ], metadata: ["modelspec.title": "Tiny SD", "modelspec.architecture": "stable-diffusion-v1"]
        ).write(to: checkpoint)
        let imported = try cli.run(["models", "import", checkpoint.path, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try imported.json()["category"] as? String == "image-generation")
        let info = try cli.run(["models", "info", "tiny-sd"])
        #expect(
            info.status == 0 && info.stdout.contains("SAFETENSORS metadata") && info.stdout.contains("stable-diffusion-v1"),
            "\(info.stdout)")
        let json = try cli.run(["models", "info", "tiny-sd", "--json"]).json()
        let metadata = try #require(json["metadata"] as? [String: Any])
        #expect(metadata["parameterCount"] as? Int == 10 && metadata["tensorCount"] as? Int == 2 && json["gguf"] == nil)

        let cut = home.appendingPathComponent("cut.safetensors")
        try Data(try Data(contentsOf: checkpoint).dropLast(4)).write(to: cut)
        expectError(try cli.run(["models", "import", cut.path]), "truncated")
        let garbage = home.appendingPathComponent("garbage.onnx")
        try Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) }).write(to: garbage)
        expectError(try cli.run(["models", "import", garbage.path]), "not a valid ONNX model")
    }

    @Test(.enabled(if: TestEnvironment.speechInstalled, "needs the Piper voice of scripts/setup --build"))
    func modelsInfoShowsAVoicesONNXMetadata() throws {
        try CLIRunner.withData { cli, _ in
            let info = try cli.run(["models", "info", SDKConstants.Models.defaultVoiceID])
            #expect(info.status == 0, "\(info.stderr)")
            #expect(info.stdout.contains("ONNX metadata") && info.stdout.contains("input: INT64 [batch_size, phonemes]"), "\(info.stdout)")
            let metadata = try #require(
                try cli.run(["models", "info", SDKConstants.Models.defaultVoiceID, "--json"]).json()["metadata"] as? [String: Any])
            #expect(metadata["format"] as? String == "onnx" && metadata["architecture"] as? String == "vits")
            #expect((metadata["outputs"] as? [[String: Any]])?.first?["name"] as? String == "output")
        }
    }
}
