import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere models create NAME -f Modelfile` in a models folder of the test's own: a model
/// made from the installed default model and one from a GGUF file beside the Modelfile, what
/// they keep shown by `models info`, applied by `generate`, and a Modelfile that asks for what a
/// model cannot keep refused with nothing made.
@Suite(.serialized) struct CLIModelfileTests {
    @Test func aModelfileMakesAModelThatKeepsItsSettings() throws {
        let (cli, home, _) = try CLIRunner.isolatedWithDefaultModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let modelfile = home.appendingPathComponent("Modelfile")
        try #"""
        # Brief answers
        FROM smollm2-135m-instruct-q4_1:latest
        SYSTEM """You answer in one word.
        Always."""
        PARAMETER num_predict 3
        PARAMETER temperature 0
        MESSAGE user Hi
        MESSAGE assistant Hello.
        LICENSE Apache-2.0
        """#.write(to: modelfile, atomically: true, encoding: .utf8)
        let made = try cli.run(["models", "create", "brief", "-f", modelfile.path, "--json"])
        #expect(made.status == 0, "\(made.stderr)")
        let model = try made.json()
        let defaults = model["defaults"] as? [String: Any]
        #expect(defaults?["systemPrompt"] as? String == "You answer in one word.\nAlways." && defaults?["maxTokens"] as? Int == 3)
        #expect(model["license"] as? String == "Apache-2.0")

        let question = ["generate", "--json", "--threads", "1", "Tell me a long story about a dragon."]
        let brief = try cli.run(question + ["--model", "brief"])
        #expect(brief.status == 0, "\(brief.stderr)")
        let answer = try brief.json()
        #expect((answer["tokensUsed"] as? Int ?? .max) <= 3, "the model's num_predict bounds the answer: \(answer)")
        let plain = try cli.run(question + ["--max-tokens", "3"]).json()
        #expect((answer["inputTokens"] as? Int ?? 0) > (plain["inputTokens"] as? Int ?? .max), "its system prompt and messages are read")
        let longer = try cli.run(question + ["--model", "brief", "--max-tokens", "5"]).json()
        #expect((longer["tokensUsed"] as? Int ?? 0) > 3 || longer["stopReason"] as? String == "stop", "a flag is over the model's setting")

        // TEMPLATE is taken as the model file's own (as a shown Modelfile names it), and no other.
        let info = try cli.run(["models", "info", "brief", "--json"]).json()
        let template = try #require((info["gguf"] as? [String: Any])?["chatTemplate"] as? String)
        for (name, text, kept) in [("same", template, true), ("other", template + " ", false)] {
            try "FROM brief\nTEMPLATE \"\"\"\(text)\"\"\"\n".write(to: modelfile, atomically: true, encoding: .utf8)
            let output = try cli.run(["models", "create", name, "-f", modelfile.path])
            #expect((output.status == 0) == kept, "\(name): \(output.stderr)")
            if !kept { #expect(output.stderr.contains("template is not taken"), "\(output.stderr)") }
        }
        let same = try cli.run(["models", "info", "same", "--json"]).json()
        #expect(
            (same["model"] as? [String: Any])?["defaults"] as? NSDictionary == defaults as NSDictionary?,
            "made from brief, it keeps brief's")

        // ADAPTER: a LoRA adapter beside the Modelfile, kept by the model and applied unless `--lora` chooses.
        let adapter = home.appendingPathComponent("tone.gguf")
        try GGUFWriter.loraFixture(for: try #require(TestEnvironment.defaultModelFile)).write(to: adapter)
        try "FROM brief\nADAPTER ./tone.gguf\n".write(to: modelfile, atomically: true, encoding: .utf8)
        let toned = try cli.run(["models", "create", "toned", "-f", modelfile.path, "--json"])
        #expect(toned.status == 0, "\(toned.stderr)")
        let kept = (try toned.json()["defaults"] as? [String: Any])?["loraAdapters"] as? [[String: Any]]
        #expect(kept?.map { $0["path"] as? String } == ["tone.gguf"], "\(toned.stdout)")
        let greedy = ["generate", "--json", "--threads", "1", "--temperature", "0", "--max-tokens", "8", "Name three colours."]
        let own = try cli.run(greedy + ["--model", "toned"]).json()["text"] as? String
        let chosen = try cli.run(greedy + ["--model", "brief", "--lora", adapter.path]).json()["text"] as? String
        let base = try cli.run(greedy + ["--model", "brief"]).json()["text"] as? String
        #expect(own != nil && own == chosen && own != base, "own: \(own ?? "-"), chosen: \(chosen ?? "-"), base: \(base ?? "-")")
    }

    @Test(.enabled(if: TestEnvironment.infillFixture != nil, "needs the coder fixture: run scripts/setup --tests"))
    func aModelfileFromAFileImportsItAndRefusalsMakeNothing() throws {
        let fixture = try #require(TestEnvironment.infillFixture)
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let folder = home.appendingPathComponent("project")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("coder.gguf"), withDestinationURL: fixture)
        try "FROM ./coder.gguf\nPARAMETER num_predict 2\n".write(
            to: folder.appendingPathComponent("Modelfile"), atomically: true, encoding: .utf8)
        try "FROM ./coder.gguf\nTEMPLATE {{ .Prompt }}\n".write(
            to: folder.appendingPathComponent("Templated"), atomically: true, encoding: .utf8)

        let refused = try cli.run(["models", "create", "templated", "-f", folder.appendingPathComponent("Templated").path])
        #expect(refused.status != 0 && refused.stderr.contains("template"), "\(refused.stderr)")
        let made = try cli.run(["models", "create", "coder", "-f", folder.appendingPathComponent("Modelfile").path])
        #expect(made.status == 0 && made.stdout.contains("coder"), "\(made.stderr)")
        let listed = try cli.run(["models", "list", "--json"]).stdout
        #expect(listed.contains("\"coder\"") && !listed.contains("templated"), "\(listed)")
        let answer = try cli.run(["generate", "--json", "--raw", "--threads", "1", "--model", "coder", "def main("]).json()
        #expect((answer["tokensUsed"] as? Int ?? .max) <= 2, "\(answer)")

        // --quantize: the F16 fixture written as Q8_0 by llama.cpp's quantizer, in its own process.
        let modelfile = folder.appendingPathComponent("Modelfile").path
        let quantized = try cli.run(["models", "create", "coder-q8", "-f", modelfile, "--quantize", "q8_0", "--threads", "1"])
        #expect(quantized.status == 0 && quantized.stderr.contains("quantizing to Q8_0"), "\(quantized.stderr)")
        let info = try cli.run(["models", "info", "coder-q8", "--json"]).json()
        #expect((info["gguf"] as? [String: Any])?["quantization"] as? String == "Q8_0", "\(info)")
        #expect(((info["model"] as? [String: Any])?["defaults"] as? [String: Any])?["maxTokens"] as? Int == 2, "it keeps the Modelfile's")
        let small = try cli.run(["generate", "--json", "--raw", "--threads", "1", "--model", "coder-q8", "def main("])
        #expect(try small.status == 0 && (small.json()["tokensUsed"] as? Int ?? .max) <= 2, "\(small.stderr)")
        // What cannot be quantized, and a quantizer that crashes, are errors; nothing is made.
        let again = try cli.run(["models", "create", "twice", "-f", modelfile, "--quantize", "Q4_K_M"])
        #expect(again.status == 0, "an F16 file quantizes to any type offered: \(again.stderr)")
        try "FROM coder-q8\n".write(to: folder.appendingPathComponent("Requantized"), atomically: true, encoding: .utf8)
        let requantized = try cli.run(
            ["models", "create", "q4", "-f", folder.appendingPathComponent("Requantized").path, "--quantize", "q4_0"])
        #expect(requantized.status == 1 && requantized.stderr.contains("quantized already (Q8_0)"), "\(requantized.stderr)")
        let unknown = try cli.run(["models", "create", "iq", "-f", modelfile, "--quantize", "IQ2_XXS"])
        #expect(unknown.status == 1 && unknown.stderr.contains("Q4_K_M"), "\(unknown.stderr)")
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("[[engine-fault:segv]].gguf"), withDestinationURL: fixture)
        try "FROM ./[[engine-fault:segv]].gguf\n".write(to: folder.appendingPathComponent("Faulty"), atomically: true, encoding: .utf8)
        var faulty = cli
        faulty.environment["RUNANYWHERE_TEST_ENGINE_FAULTS"] = "1"
        let crashed = try faulty.run(["models", "create", "crashed", "-f", folder.appendingPathComponent("Faulty").path, "-q", "q8_0"])
        #expect(
            crashed.status == 1 && crashed.stderr.contains("crashed llama.cpp's quantizer") && crashed.stderr.contains("SIGSEGV"),
            "\(crashed.stderr)")
        let models = try cli.run(["models", "list", "--json"]).stdout
        #expect(!models.contains("\"crashed\"") && !models.contains("\"q4\"") && !models.contains("\"iq\""), "\(models)")
        let left = try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("models").path)
        #expect(!left.contains { $0.hasPrefix(".quantize.") }, "\(left)")
    }
}
