import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// llama-server's own `/completion` and `/infill` on the scripted engine (it answers with the
/// prompt's words): its field names and defaults, whole, streamed and cut to `response_fields`,
/// and every refusal. `/infill` on a real code model is checked with the fill-in-the-middle
/// fixture by Tests/clients/openai_client_check.py.
@Suite(.inProcessLane) struct LlamaServerRouteTests {
    static func post(_ client: some TestClientProtocol, _ path: String, _ body: String) async throws -> (HTTPResponse.Status, ByteBuffer) {
        try await client.execute(uri: path, method: .post, headers: .json, body: ByteBuffer(string: body)) { ($0.status, $0.body) }
    }

    @Test func aCompletionIsAnsweredInLlamaServersShape() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, body) = try await Self.post(
                client, "/completion", #"{"model": "scripted", "prompt": "red green blue", "n_predict": 2}"#)
            let whole = try OpenAIRouteTests.json(body)
            #expect(status == .ok && whole["content"] as? String == "red green" && whole["stop"] as? Bool == true, "\(whole)")
            #expect(whole["tokens_predicted"] as? Int == 2 && whole["model"] as? String == "scripted")
            #expect(whole["stop_type"] as? String == "limit" && whole["stopping_word"] as? String == "", "\(whole)")
            #expect(whole["truncated"] as? Bool == false && whole["has_new_line"] as? Bool == false)
            let stopped = try OpenAIRouteTests.json(
                try await Self.post(client, "/completion", #"{"model": "scripted", "prompt": "red green blue", "stop": ["blue"]}"#).1)
            #expect(stopped["stop_type"] as? String == "word" && stopped["stopping_word"] as? String == "blue", "\(stopped)")
            let ended = try OpenAIRouteTests.json(try await Self.post(client, "/completion", #"{"model": "scripted", "prompt": "red"}"#).1)
            #expect(ended["stop_type"] as? String == "eos" && ended["truncated"] as? Bool == false, "\(ended)")
            let timings = try #require(whole["timings"] as? [String: Any])
            #expect(timings["predicted_n"] as? Int == 2 && timings["prompt_ms"] is Double)

            let picked = try OpenAIRouteTests.json(
                try await Self.post(
                    client, "/completion",
                    #"{"model": "scripted", "prompt": "red", "response_fields": ["content", "timings/predicted_n", "nothing/here"]}"#
                ).1)
            #expect(Set(picked.keys) == ["content", "timings/predicted_n"] && picked["timings/predicted_n"] as? Int == 1, "\(picked)")

            let (streamStatus, streamed) = try await Self.post(
                client, "/completion", #"{"model": "scripted", "prompt": "red green blue", "stream": true}"#)
            let events = try ModelCatalogRouteTests.events(streamed)
            #expect(streamStatus == .ok && events.allSatisfy { $0.name == nil }, "data-only events, as llama-server writes them")
            #expect(events.dropLast().allSatisfy { $0.data["stop"] as? Bool == false })
            #expect(events.compactMap { $0.data["content"] as? String }.joined() == "red green blue")
            #expect(events.last?.data["stop"] as? Bool == true && events.last?.data["tokens_predicted"] as? Int == 3)
        }
    }

    /// Several prompts are answered side by side, as llama-server answers them: whole, an array
    /// in the prompts' order, each with its index (and its `response_fields` only); streamed,
    /// each prompt's pieces and last event with its index.
    @Test func severalPromptsAreAnsweredEachWithItsIndex() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, body) = try await Self.post(
                client, "/completion", #"{"model": "scripted", "prompt": ["red green", {"prompt_string": "blue"}]}"#)
            let answers = try #require(
                try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [[String: Any]], "\(String(buffer: body))")
            #expect(status == .ok && answers.map { $0["index"] as? Int } == [0, 1], "\(answers)")
            #expect(
                answers.map { $0["content"] as? String } == ["red green", "blue"] && answers.allSatisfy { $0["stop"] as? Bool == true })
            let picked = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(
                        buffer: try await Self.post(
                            client, "/completion", #"{"model": "scripted", "prompt": ["red", "blue"], "response_fields": ["content"]}"#
                        ).1)) as? [[String: Any]])
            #expect(picked.map { $0["content"] as? String } == ["red", "blue"] && picked.allSatisfy { $0.count == 1 }, "\(picked)")
            let one = try OpenAIRouteTests.json(try await Self.post(client, "/completion", #"{"model": "scripted", "prompt": ["red"]}"#).1)
            #expect(one["content"] as? String == "red" && one["index"] as? Int == 0, "one prompt in an array is answered alone: \(one)")
            let object = try OpenAIRouteTests.json(
                try await Self.post(client, "/completion", #"{"model": "scripted", "prompt": {"prompt_string": "red"}}"#).1)
            #expect(object["content"] as? String == "red", "\(object)")

            // Streamed, each prompt's last event holds its response_fields only, as a whole answer does.
            let cut = try ModelCatalogRouteTests.events(
                try await Self.post(
                    client, "/completion",
                    #"{"model": "scripted", "prompt": ["red", "blue"], "stream": true, "response_fields": ["index", "stop"]}"#
                ).1)
            #expect(
                cut.filter { $0.data["stop"] as? Bool == true }.map { Set($0.data.keys) } == [["index", "stop"], ["index", "stop"]],
                "\(cut.map(\.data))")
            let (streamStatus, streamed) = try await Self.post(
                client, "/completion", #"{"model": "scripted", "prompt": ["red green blue", "one two"], "stream": true}"#)
            let events = try ModelCatalogRouteTests.events(streamed)
            #expect(streamStatus == .ok && events.count == (3 + 1) + (2 + 1), "\(events.map(\.data))")
            for (index, words) in [(0, "red green blue"), (1, "one two")] {
                let own = events.filter { $0.data["index"] as? Int == index }
                #expect(own.compactMap { $0.data["content"] as? String }.joined() == words, "\(own.map(\.data))")
                #expect(own.last?.data["stop"] as? Bool == true && own.dropLast().allSatisfy { $0.data["stop"] as? Bool == false })
            }
        }
    }

    /// llama-server's sampler fields as front ends send them, every one set, are taken: the DRY
    /// sequence breakers as an array, or as that array written in a string.
    @Test(arguments: [#"["\n", ":"]"#, #""[\"\\n\", \":\"]""#])
    func samplerFieldsAreTaken(breakers: String) async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, body) = try await Self.post(
                client, "/completion",
                #"{"model": "scripted", "prompt": "red green", "typical_p": 0.9, "dynatemp_range": 0.2, "dynatemp_exponent": 1.1, "xtc_probability": 0.5, "xtc_threshold": 0.1, "top_n_sigma": 2, "dry_multiplier": 0.8, "dry_base": 1.75, "dry_allowed_length": 2, "dry_penalty_last_n": -1, "dry_sequence_breakers": \#(breakers), "mirostat": 0, "mirostat_tau": 5, "mirostat_eta": 0.1}"#
            )
            #expect(status == .ok, "\(String(buffer: body))")
        }
    }

    /// What llama-server refuses, this server refuses with the field named; `/infill` on a model
    /// without fill-in-the-middle tokens says so.
    @Test(arguments: [
        ("/completion", #""n_predict": 2"#, "prompt"), ("/completion", #""prompt": {"a": 1}"#, "prompt"),
        ("/completion", #""prompt": "x", "n_predict": 0"#, "n_predict"), ("/completion", #""prompt": "x", "seed": -2"#, "seed"),
        ("/completion", #""prompt": "x", "n_probs": 21"#, "n_probs"), ("/completion", #""prompt": [-1]"#, "prompt.0"),
        ("/completion", #""prompt": [["a"]]"#, "prompt.0"), ("/completion", #""prompt": ["a", [1, true]]"#, "prompt.1.1"),
        ("/completion", #""prompt": [{"prompt_string": "a", "multimodal_data": ["AAAA"]}]"#, "prompt.0.multimodal_data"),
        ("/completion", #""prompt": true"#, "prompt"), ("/completion", #""prompt": {"prompt_string": 5}"#, "prompt"),
        ("/completion", #""prompt": [\#(Array(repeating: "\"a\"", count: 17).joined(separator: ","))]"#, "prompt"),
        ("/completion", #""prompt": []"#, "prompt"),
        ("/completion", #""prompt": "x", "mirostat": 3"#, "mirostat"), ("/completion", #""prompt": "x", "typical_p": -0.5"#, "typical_p"),
        ("/completion", #""prompt": "x", "xtc_probability": 0.5, "xtc_threshold": 2"#, "xtc_threshold"),
        ("/completion", #""prompt": "x", "dry_multiplier": 1, "dry_allowed_length": -1"#, "dry_allowed_length"),
        ("/completion", #""prompt": "x", "dry_multiplier": 1, "dry_sequence_breakers": [""]"#, "dry_sequence_breakers"),
        ("/completion", #""prompt": "x", "json_schema": 5"#, "json_schema"),
        ("/completion", #""prompt": "x", "dry_multiplier": 1, "dry_sequence_breakers": 5"#, "dry_sequence_breakers"),
        ("/completion", #""prompt": "x", "json_schema": {"not": {"type": "string"}}"#, "json_schema"),
        ("/infill", #""input_suffix": "b""#, "input_prefix"), ("/infill", #""input_prefix": "a""#, "input_suffix"),
        ("/infill", #""input_prefix": "a", "input_suffix": "b", "input_extra": [{"filename": "f"}]"#, "input_extra"),
        ("/infill", #""input_prefix": "a", "input_suffix": "b", "input_extra": [{"filename": 3, "text": "t"}]"#, "input_extra"),
        ("/infill", #""input_prefix": "a", "input_suffix": "b", "mirostat": 2, "mirostat_eta": 0"#, "mirostat_eta"),
        ("/infill", #""input_prefix": "a", "input_suffix": "b""#, "model"),
    ])
    func badRequestsNameTheirField(path: String, fields: String, param: String) async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, body) = try await Self.post(client, path, #"{"model": "scripted", \#(fields)}"#)
            let error = try OpenAIRouteTests.error(body)
            #expect(status == .badRequest && error["param"] as? String == param, "\(path) \(fields): \(error)")
        }
    }
}

/// llama-server's `GET /props` and `POST /apply-template`, in process on the scripted engine
/// (whose chat template writes each message as "role: content" lines, so a prompt is known to
/// the byte): the properties read from the model's file, its own defaults among them, and the
/// prompt a chat request becomes.
@Suite(.inProcessLane) struct LlamaServerPropsTests {
    typealias Routes = OpenAIRouteTests

    static func props(_ client: some TestClientProtocol, _ query: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: "/props\(query)", method: .get) { ($0.status, try Routes.json($0.body)) }
    }

    @Test func propsDescribeTheModelAndItsDefaults() async throws {
        let runtime = try scriptedRuntime()
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let (status, props) = try await Self.props(client, "?model=scripted")
            #expect(status == .ok && props["model_alias"] as? String == "scripted" && props["is_sleeping"] as? Bool == true, "\(props)")
            #expect(props["total_slots"] as? Int == 4, "serve's default --parallel")
            #expect((props["model_path"] as? String)?.hasSuffix(".gguf") == true)
            let settings = try #require(props["default_generation_settings"] as? [String: Any])
            let params = try #require(settings["params"] as? [String: Any])
            #expect(params["n_predict"] as? Int == -1 && params["top_k"] as? Int == 40 && params["seed"] as? Int == -1, "\(params)")
            #expect((settings["n_ctx"] as? Int ?? 0) > 0 && (props["modalities"] as? [String: Bool])?["vision"] == false)
            #expect(props["bos_token"] as? String == "" && props["eos_token"] as? String == "", "the fixture names neither")

            // A model made with a Modelfile: its own settings are the defaults; once it has answered it is awake.
            let (made, _) = try await OllamaModelDefaultsTests.post(client, "/api/create", OllamaModelDefaultsTests.mario)
            #expect(made == .ok)
            _ = try await LlamaServerRouteTests.post(client, "/completion", #"{"model": "mario", "prompt": "one"}"#)
            let (_, mario) = try await Self.props(client, "?model=mario")
            let own = try #require((mario["default_generation_settings"] as? [String: Any])?["params"] as? [String: Any])
            #expect(own["n_predict"] as? Int == 2 && own["stop"] as? [String] == ["<end>"] && own["repeat_last_n"] as? Int == -1, "\(own)")
            #expect((mario["default_generation_settings"] as? [String: Any])?["n_ctx"] as? Int == 512)
            #expect(mario["is_sleeping"] as? Bool == false)

            let (unknown, missing) = try await Self.props(client, "?model=nope")
            #expect(unknown == .notFound && "\(missing)".contains("nope"))
            let (none, _) = try await Self.props(client, "")
            #expect(none == .notFound, "the default model is not installed here")
        }
    }

    @Test func aChatRequestBecomesTheModelsPrompt() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let messages = #"[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]"#
            let (status, body) = try await LlamaServerRouteTests.post(
                client, "/apply-template", #"{"model": "scripted", "messages": \#(messages)}"#)
            #expect(try status == .ok && Routes.json(body)["prompt"] as? String == "system: Be brief.\nuser: Hi\nassistant:")
            // Tools are offered as a generation offers them: their instruction in the system prompt.
            let tools = #"[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]"#
            let (_, offered) = try await LlamaServerRouteTests.post(
                client, "/apply-template", #"{"model": "scripted", "messages": \#(messages), "tools": \#(tools)}"#)
            let prompt = try Routes.json(offered)["prompt"] as? String ?? ""
            #expect(prompt.hasPrefix("system: Be brief.") && prompt.contains("get_weather"), "\(prompt)")
            let (unnamed, refusal) = try await LlamaServerRouteTests.post(client, "/apply-template", #"{"messages": \#(messages)}"#)
            #expect(
                unnamed == .notFound && String(buffer: refusal).contains(RunAnywhere.defaultModelID), "without model: the default model")
            let (empty, _) = try await LlamaServerRouteTests.post(client, "/apply-template", #"{"model": "scripted", "messages": []}"#)
            #expect(empty == .badRequest)
        }
    }
}
