import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// A model made with what a Modelfile adds (`system`, `parameters`, `messages`, `license`): kept
/// with the model, shown by `/api/show`, inherited by copies, and applied by every generation surface
/// under the request's own values. In process, on the scripted engine, which answers the words of
/// the last user line and counts a prompt as its words plus one: how many words an answer has
/// shows the bound it kept, and the prompt's count shows the system prompt and messages it read.
@Suite struct OllamaModelDefaultsTests {
    typealias Routes = OpenAIRouteTests

    static func post(_ client: some TestClientProtocol, _ path: String, _ json: String) async throws -> (HTTPResponse.Status, ByteBuffer) {
        try await OllamaCreateRouteTests.post(client, path, json)
    }

    static let mario = #"""
        {"model": "mario", "from": "scripted", "stream": false, "system": "You are Mario from Super Mario Bros.",
         "parameters": {"num_predict": 2, "temperature": 0.2, "stop": ["<end>"], "num_ctx": 512, "repeat_last_n": -1},
         "messages": [{"role": "user", "content": "hi there"}, {"role": "assistant", "content": "It's a me"}],
         "license": ["MIT", "Be kind."]}
        """#

    /// The ollama chat's answer and prompt count for `messages` on `model`, with `options`.
    static func chat(
        _ client: some TestClientProtocol, _ model: String, _ messages: String, options: String = "{}"
    ) async throws -> (content: String, promptTokens: Int, reason: String) {
        let (status, body) = try await post(
            client, "/api/chat", #"{"model": "\#(model)", "messages": \#(messages), "options": \#(options), "stream": false}"#)
        let json = try Routes.json(body)
        #expect(status == .ok, "\(json)")
        let content = (json["message"] as? [String: Any])?["content"] as? String ?? ""
        return (content, json["prompt_eval_count"] as? Int ?? -1, json["done_reason"] as? String ?? "")
    }

    @Test func aModelKeepsWhatItWasMadeWithAndEverySurfaceAppliesIt() async throws {
        let runtime = try scriptedRuntime()
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let (made, answer) = try await Self.post(client, "/api/create", Self.mario)
            #expect(made == .ok, "\(String(buffer: answer))")

            let (shown, show) = try await Self.post(client, "/api/show", #"{"model": "mario"}"#)
            let json = try Routes.json(show)
            #expect(shown == .ok && json["system"] as? String == "You are Mario from Super Mario Bros.")
            #expect(json["license"] as? String == "MIT\n\nBe kind.")
            let messages = try #require(json["messages"] as? [[String: String]])
            #expect(messages == [["role": "user", "content": "hi there"], ["role": "assistant", "content": "It's a me"]])
            let parameters = (json["parameters"] as? String ?? "").split(separator: "\n").map(String.init)
            for line in ["num_ctx 512", "temperature 0.2", "num_predict 2", "repeat_last_n -1", #"stop "<end>""#] {
                #expect(parameters.contains(line), "\(parameters)")
            }
            let modelfile = json["modelfile"] as? String ?? ""
            #expect(modelfile.contains(#"SYSTEM """You are Mario"#) && modelfile.contains(#"MESSAGE assistant """It's a me""""#))
            #expect(
                modelfile.contains("PARAMETER num_predict 2") && modelfile.contains("LICENSE \"\"\"MIT\n\nBe kind.\"\"\""), "\(modelfile)")
            // Read again (as `ollama show --modelfile` then `ollama create -f` would), it makes the same model.
            let reread = try Modelfile(parsing: modelfile)
            var (again, kept) = (reread.defaults, try #require(try runtime.model(id: "mario").defaults))
            #expect(again.messages?.map { [$0.role, $0.content] as [AnyHashable] } == kept.messages?.map { [$0.role, $0.content] })
            (again.messages, kept.messages) = (nil, nil)
            #expect(again == kept && reread.license == "MIT\n\nBe kind.", "\(modelfile)")

            // ollama: the model's bound, unless the request sets one; its system prompt and
            // messages, unless the request brings a system message (then that one).
            let question = #"[{"role": "user", "content": "one two three four"}]"#
            let plain = try await Self.chat(client, "scripted", question)
            #expect(plain.content == "one two three four" && plain.reason == "stop")
            let bounded = try await Self.chat(client, "mario", question)
            #expect(bounded.content == "one two" && bounded.reason == "length")
            #expect(try await Self.chat(client, "mario", question, options: #"{"num_predict": 3}"#).content == "one two three")
            // The lines "system: …" (8 words), "user: hi there" (3) and "assistant: It's a me" (4).
            #expect(bounded.promptTokens == plain.promptTokens + 8 + 3 + 4, "\(bounded) \(plain)")
            let own = try await Self.chat(
                client, "mario", #"[{"role": "system", "content": "Hi."}, {"role": "user", "content": "one two three four"}]"#)
            #expect(own.promptTokens == bounded.promptTokens - 6, "the request's system prompt replaces the model's")

            // OpenAI, Anthropic and Responses apply the same bound and prompt.
            let (_, chat) = try await Self.post(
                client, "/v1/chat/completions", #"{"model": "mario", "messages": \#(question)}"#)
            let completion = try Routes.json(chat)
            let usage = completion["usage"] as? [String: Any]
            #expect(usage?["completion_tokens"] as? Int == 2 && usage?["prompt_tokens"] as? Int == bounded.promptTokens, "\(completion)")
            let (_, more) = try await Self.post(
                client, "/v1/chat/completions", #"{"model": "mario", "messages": \#(question), "max_tokens": 3}"#)
            #expect((try Routes.json(more)["usage"] as? [String: Any])?["completion_tokens"] as? Int == 3)
            let (_, message) = try await Self.post(
                client, "/v1/messages", #"{"model": "mario", "max_tokens": 10, "messages": \#(question)}"#)
            let anthropic = try Routes.json(message)
            #expect((anthropic["usage"] as? [String: Any])?["input_tokens"] as? Int == bounded.promptTokens, "\(anthropic)")
            let (_, response) = try await Self.post(client, "/v1/responses", #"{"model": "mario", "input": "one two three four"}"#)
            let responses = try Routes.json(response)
            #expect((responses["usage"] as? [String: Any])?["output_tokens"] as? Int == 2, "\(responses)")

            // llama-server's /completion: the model's bound over llama-server's default (-1).
            for (fields, content) in [("", "one two"), (#", "n_predict": 3"#, "one two three")] {
                let (_, completion) = try await Self.post(
                    client, "/completion", #"{"model": "mario", "prompt": "one two three four"\#(fields)}"#)
                #expect(try Routes.json(completion)["content"] as? String == content, "\(fields)")
            }

            // A model made from it keeps what it does not set again; a copy keeps everything.
            let (derived, _) = try await Self.post(
                client, "/api/create", #"{"model": "luigi", "from": "mario", "parameters": {"num_predict": 3}, "stream": false}"#)
            #expect(derived == .ok)
            let luigi = try await Self.chat(client, "luigi", question)
            #expect(luigi.content == "one two three" && luigi.promptTokens == bounded.promptTokens)
            let (copied, _) = try await Self.post(client, "/api/copy", #"{"source": "mario", "destination": "mario-too"}"#)
            #expect(try copied == .ok && runtime.model(id: "mario-too").defaults == runtime.model(id: "mario").defaults)
        }
    }

    /// What cannot be a model's default is refused, naming where it is; nothing is made.
    @Test(arguments: [
        (#""parameters": {"num_gpu": 10}"#, "num_gpu"), (#""parameters": {"temperature": 5}"#, "temperature"),
        (#""parameters": {"num_ctx": 4}"#, "num_ctx"), (#""parameters": {"num_predict": 0}"#, "parameters.num_predict"),
        (#""messages": [{"role": "system", "content": "x"}]"#, "system"), (#""messages": [{"role": "user"}]"#, "content"),
        (#""messages": "hi""#, "messages"), (#""license": 5"#, "license"),
    ])
    func refusals(field: String, named: String) async throws {
        let runtime = try scriptedRuntime()
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let (status, body) = try await Self.post(client, "/api/create", #"{"model": "m", "from": "scripted", \#(field)}"#)
            let message = try OllamaRouteTests.error(body)
            #expect(status == .badRequest && message.contains(named), "\(field): \(message)")
        }
        #expect(runtime.availableModels().filter { $0.source == .local }.map(\.id) == ["scripted"], "nothing was made")
    }
}

/// A model made with LoRA adapters (a Modelfile's `ADAPTER`, `adapters` of `/api/create`): each
/// checked to fit, kept in the model's folder, applied to every request that chooses none,
/// shown in its Modelfile, and kept by the models made from it. The scripted engine writes down
/// the adapters each generation hands it.
@Suite struct OllamaModelAdapterTests {
    typealias Routes = OpenAIRouteTests

    /// A generated LoRA adapter (not trained) for ``GGUFWriter/tinyLlama(chatTemplate:)``'s one
    /// projection, made for `architecture`.
    static func adapter(architecture: String = "llama") -> Data {
        GGUFWriter(
            metadata: [
                ("general.architecture", .string(architecture)), ("general.type", .string("adapter")), ("adapter.type", .string("lora")),
            ],
            tensors: [
                .init(name: "blk.0.attn_q.weight.lora_a", shape: [256, 4], type: 0, bytes: 256 * 4 * 4),
                .init(name: "blk.0.attn_q.weight.lora_b", shape: [4, 2], type: 0, bytes: 4 * 2 * 4),
            ]
        ).data()
    }

    static func upload(_ client: some TestClientProtocol, _ data: Data) async throws -> String {
        let digest = OllamaCreateRouteTests.digest(data)
        try await client.execute(uri: "/api/blobs/\(digest)", method: .post, body: ByteBuffer(data: data)) {
            #expect($0.status == .created)
        }
        return digest
    }

    @Test func aModelKeepsItsAdaptersAndAppliesThemToRequestsThatChooseNone() async throws {
        let log = ScriptedLog()
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(log: log))
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let model = try await Self.upload(client, GGUFWriter.tinyLlama().data())
            let tone = try await Self.upload(client, Self.adapter())
            let other = try await Self.upload(client, Self.adapter(architecture: "qwen2"))
            func create(_ json: String) async throws -> (HTTPResponse.Status, String) {
                let (status, body) = try await OllamaModelDefaultsTests.post(client, "/api/create", json)
                return (status, String(buffer: body))
            }
            func adaptersOf(_ id: String, lora: String? = nil) async throws -> [String] {
                let before = log.all.count
                let (path, json) =
                    lora.map {
                        ("/v1/chat/completions", #"{"model": "\#(id)", "messages": [{"role": "user", "content": "hi"}], "lora": \#($0)}"#)
                    }
                    ?? ("/api/generate", #"{"model": "\#(id)", "prompt": "one two", "stream": false}"#)
                let (status, body) = try await OllamaModelDefaultsTests.post(client, path, json)
                #expect(status == .ok, "\(String(buffer: body))")
                return log.all.dropFirst(before).filter { $0.hasPrefix("adapters") }
            }

            // One made for another architecture is refused, naming it; nothing is made, no upload lost.
            let (refused, why) = try await create(
                #"{"model": "wrong", "files": {"m.gguf": "\#(model)"}, "adapters": {"other.gguf": "\#(other)"}, "stream": false}"#)
            #expect(refused == .badRequest && why.contains("other.gguf") && why.contains("qwen2"), "\(why)")
            #expect((try? runtime.model(id: "wrong")) == nil)
            let (missing, unknown) = try await create(
                #"{"model": "wrong", "from": "scripted", "adapters": {"a.gguf": "sha256:\#(String(repeating: "1", count: 64))"}}"#)
            #expect(missing == .badRequest && unknown.contains("adapters names the blob"), "\(unknown)")

            let (made, steps) = try await create(
                #"{"model": "tuned", "files": {"m.gguf": "\#(model)"}, "adapters": {"tone.gguf": "\#(tone)"}, "stream": false}"#)
            #expect(made == .ok, "\(steps)")
            let tuned = try runtime.model(id: "tuned")
            #expect(tuned.defaults?.loraAdapters == [LoRAAdapter(path: "tone.gguf")] && tuned.primaryFile?.lastPathComponent == "m.gguf")
            #expect(try await adaptersOf("tuned") == ["adapters tuned: tone.gguf"])
            #expect(try await adaptersOf("scripted").isEmpty, "a model without adapters applies none")
            // A request's own choice, even none, replaces the model's (llama-server's lora field).
            #expect(try await adaptersOf("tuned", lora: "[]").isEmpty)

            // /api/show names the kept file; its Modelfile reads back to the same file.
            let (_, show) = try await OllamaModelDefaultsTests.post(client, "/api/show", #"{"model": "tuned"}"#)
            let modelfile = try Routes.json(show)["modelfile"] as? String ?? ""
            let files = try Modelfile(parsing: modelfile).adapterFiles(relativeTo: URL(fileURLWithPath: "/"))
            #expect(files.count == 1 && files.first?.lastPathComponent == "tone.gguf", "\(modelfile)")
            #expect(files.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })

            // A model made from it keeps its adapters (its own files: deleting the first leaves them whole).
            #expect(try await create(#"{"model": "tuned-too", "from": "tuned", "stream": false}"#).0 == .ok)
            try await client.execute(uri: "/api/delete", method: .delete, headers: .json, body: Routes.body(#"{"model": "tuned"}"#)) {
                #expect($0.status == .ok)
            }
            #expect(try await adaptersOf("tuned-too") == ["adapters tuned-too: tone.gguf"])
        }
    }

    /// Values `"""…"""` cannot hold (one with `"""` in it, one ending in `"`) are written so that
    /// /api/show's Modelfile reads back as the same text.
    @Test func everyTextReadsBackFromTheShownModelfile() async throws {
        let runtime = try scriptedRuntime()
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let system = #"Say "hi" or """bye""", then \"stop\""#
            let json = JSONValue.object(
                JSONObject([
                    ("model", "quoted"), ("from", "scripted"), ("stream", false), ("system", .string(system)),
                    ("messages", [["role": "user", "content": #"Is it "quoted""#], ["role": "assistant", "content": "It ends with \\"]]),
                ]))
            let (made, body) = try await OllamaModelDefaultsTests.post(client, "/api/create", json.text)
            #expect(made == .ok, "\(String(buffer: body))")
            let (_, show) = try await OllamaModelDefaultsTests.post(client, "/api/show", #"{"model": "quoted"}"#)
            let modelfile = try Routes.json(show)["modelfile"] as? String ?? ""
            let reread = try Modelfile(parsing: modelfile)
            #expect(reread.defaults.systemPrompt == system, "\(modelfile)")
            #expect(reread.defaults.messages?.map(\.content) == [#"Is it "quoted""#, "It ends with \\"], "\(modelfile)")
        }
    }
}
