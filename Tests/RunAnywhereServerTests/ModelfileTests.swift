import Foundation
import RunAnywhere
import RunAnywhereServer
import Testing

/// ollama Modelfiles as `ollama create -f` reads them, read into what a model keeps; and every
/// line that cannot be kept refused, naming where it is.
@Suite struct ModelfileTests {
    @Test func everyInstructionIsRead() throws {
        let modelfile = try Modelfile(
            parsing: #"""
                # A brief assistant
                FROM smollm2:latest
                parameter temperature 0.2
                PARAMETER num_ctx 1024
                PARAMETER stop "<|im_end|>"
                PARAMETER stop "say \"end\""
                PARAMETER num_predict -1
                SYSTEM """You answer
                in one word."""
                MESSAGE user Is Toronto in Canada?
                MESSAGE assistant "yes"
                LICENSE MIT
                LICENSE """Be
                kind."""
                ADAPTER ./tone.gguf
                ADAPTER /adapters/style.gguf
                REQUIRES 0.6.0
                """#)
        #expect(modelfile.from == "smollm2:latest")
        #expect(modelfile.base(relativeTo: URL(fileURLWithPath: "/tmp")) == .model("smollm2"))
        let defaults = modelfile.defaults
        #expect(
            defaults.temperature == 0.2 && defaults.contextLength == 1024 && defaults.maxTokens == LLMGenerationOptions.untilContextFull)
        #expect(defaults.stopSequences == ["<|im_end|>", #"say "end""#])
        #expect(defaults.systemPrompt == "You answer\nin one word.")
        #expect(defaults.messages?.map(\.role) == [.user, .assistant])
        #expect(defaults.messages?.map(\.content) == ["Is Toronto in Canada?", "yes"])
        #expect(modelfile.license == "MIT\n\nBe\nkind.")
        #expect(
            modelfile.adapterFiles(relativeTo: URL(fileURLWithPath: "/models/here")).map(\.path) == [
                "/models/here/tone.gguf", "/adapters/style.gguf",
            ])
    }

    /// A `"…"` value reads `\"` and `\\` as the character; any other backslash stands for itself.
    @Test(arguments: [
        (#""ends with a \"quote\"""#, #"ends with a "quote""#), (#""has \"\"\" inside""#, #"has """ inside"#),
        (#""a \\ backslash, \\\" both, \n kept""#, #"a \ backslash, \" both, \n kept"#),
    ])
    func aQuotedValueIsUnescapedOnce(quoted: String, text: String) throws {
        #expect(try Modelfile(parsing: "FROM a\nSYSTEM \(quoted)").defaults.systemPrompt == text)
    }

    @Test(arguments: [
        ("SYSTEM hi", "FROM is required"), ("FROM a\nFROM b", "line 2: FROM is given twice"),
        ("FROM a\nTALK loudly", "line 2: TALK is not an instruction"), ("FROM a\nSYSTEM \"\"\"open\nstill open", "never closed"),
        ("FROM a\nSYSTEM \"x\" y", "closing quote"), ("FROM a\nPARAMETER temperature", "takes a name and a value"),
        ("FROM a\nADAPTER ./lora-folder", "adapters must be"),
        ("FROM a\nPARAMETER mirostat 1", "mirostat is not kept"), ("FROM a\nPARAMETER num_gpu 10", "num_gpu"),
        ("FROM a\nPARAMETER temperature hot", "temperature"), ("FROM a\nMESSAGE system be brief", "system"),
        ("FROM a\nMESSAGE narrator once upon", "narrator"),
    ])
    func whatCannotBeKeptIsRefused(text: String, words: String) throws {
        let error = try #require(throws: SDKError.self) { try Modelfile(parsing: text) }
        #expect(error.code == .invalidInput && error.message.hasPrefix("Modelfile") && error.message.contains(words), "\(error.message)")
    }

    /// A template is read, and taken only as the base's own (the CLI tests take SmolLM2's).
    @Test func aTemplateIsTakenOnlyAsTheBasesOwn() throws {
        let modelfile = try Modelfile(parsing: "FROM a\nTEMPLATE {{ .Prompt }}")
        #expect(modelfile.template == "{{ .Prompt }}")
        let error = try #require(throws: SDKError.self) { try modelfile.check(base: nil) }
        #expect(error.message.contains("template is not taken"))
        try Modelfile(parsing: "FROM a").check(base: nil)
    }
}
