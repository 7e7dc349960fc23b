import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// Every OpenAI route, status and error shape, in process, against the scripted engine.
@Suite struct OpenAIRouteTests {
    static func server(_ runtime: RunAnywhereRuntime, apiKey: String? = nil, cors: [String] = [], maxBody: Int = 1 << 20)
        -> RunAnywhereServer
    {
        RunAnywhereServer(
            runtime: runtime,
            configuration: ServerConfiguration(
                port: 0, apiKey: apiKey, corsOrigins: cors, maxBodySize: maxBody,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            ))
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    static func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// The `error` object of an OpenAI-style error response.
    static func error(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try json(buffer)["error"] as? [String: Any])
    }

    @Test func healthAndModels() async throws {
        let runtime = try scriptedRuntime()
        // Besides the language model: an embedding model and a reranker (served on /v1), and a voice-activity model (not).
        for (id, category) in [("embedder", ModelCategory.embedding), ("reranker", .reranking), ("vad", .audio)] {
            let file = runtime.configuration.modelsDirectory.deletingLastPathComponent().appendingPathComponent("\(id).gguf")
            try GGUFWriter.tinyLlama().write(to: file)
            try runtime.registerModel(id: id, name: id, url: file, framework: .llamaCpp, modality: category)
        }
        let app = Self.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                let body = try Self.json(response.body)
                #expect(body["status"] as? String == "ok")
            }
            try await client.execute(uri: "/v1/models", method: .get) { response in
                let body = try Self.json(response.body)
                #expect(body["object"] as? String == "list")
                let models = try #require(body["data"] as? [[String: Any]])
                #expect(models.allSatisfy { $0["object"] as? String == "model" && $0["owned_by"] as? String == "runanywhere" })
                let listed = Dictionary(
                    models.map { ($0["id"] as? String ?? "", $0["category"] as? String ?? "") }, uniquingKeysWith: { first, _ in first })
                #expect(
                    listed["scripted"] == "language" && listed["embedder"] == "embedding" && listed["reranker"] == "reranking", "\(listed)")
                #expect(listed["vad"] == nil, "a model no /v1 route takes is not listed")
            }
            for id in ["scripted", "embedder", "reranker"] {
                try await client.execute(uri: "/v1/models/\(id)", method: .get) { response in
                    #expect(response.status == .ok)
                    let body = try Self.json(response.body)
                    #expect(body["id"] as? String == id)
                }
            }
            try await client.execute(uri: "/v1/models/vad", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/v1/models/nope", method: .get) { response in
                #expect(response.status == .notFound)
                let error = try Self.error(response.body)
                #expect(error["code"] as? String == "model_not_found")
                #expect(error["type"] as? String == "not_found_error")
            }
            try await client.execute(uri: "/v1/nowhere", method: .get) { response in
                #expect(response.status == .notFound)
                let error = try Self.error(response.body)
                #expect(
                    error["message"] as? String == "This server has no route GET /v1/nowhere", "unknown routes are named, in OpenAI's shape"
                )
            }
            // What an ollama client asks for that is not here is answered in ollama's shape.
            try await client.execute(uri: "/api/push", method: .post, headers: .json, body: Self.body(#"{"model": "scripted"}"#)) {
                response in
                #expect(response.status == .notFound)
                let body = try Self.json(response.body)
                #expect(body["error"] as? String == "This server has no route POST /api/push")
            }
            // And an Anthropic client's, under /v1/messages, in Anthropic's.
            try await client.execute(uri: "/v1/messages/batches", method: .post, headers: .json, body: Self.body("{}")) { response in
                let body = try Self.json(response.body)
                #expect(response.status == .notFound && body["type"] as? String == "error", "\(body)")
                #expect((body["error"] as? [String: Any])?["message"] as? String == "This server has no route POST /v1/messages/batches")
            }
        }
    }

    @Test func chatCompletionWholeAndCutShort() async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let request =
                #"{"model": "scripted", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "one two three"}]}]}"#
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: Self.body(request)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let body = try Self.json(response.body)
                #expect(body["object"] as? String == "chat.completion")
                #expect((body["id"] as? String)?.hasPrefix("chatcmpl-") == true)
                #expect(body["model"] as? String == "scripted")
                let choice = try #require((body["choices"] as? [[String: Any]])?.first)
                #expect(choice["finish_reason"] as? String == "stop")
                let message = try #require(choice["message"] as? [String: Any])
                #expect(message["role"] as? String == "assistant")
                #expect(message["content"] as? String == "one two three")
                let usage = try #require(body["usage"] as? [String: Any])
                #expect(usage["completion_tokens"] as? Int == 3)
                #expect((usage["prompt_tokens"] as? Int ?? 0) > 3)
                #expect(usage["total_tokens"] as? Int == (usage["prompt_tokens"] as? Int ?? 0) + 3)
                #expect((usage["prompt_tokens_details"] as? [String: Any])?["cached_tokens"] as? Int == 0)
                let timings = try #require(body["timings"] as? [String: Any])
                #expect(timings["predicted_n"] as? Int == 3)
            }
            let short = #"{"model": "scripted", "max_tokens": 2, "messages": [{"role": "user", "content": "one two three"}]}"#
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: Self.body(short)) { response in
                let body = try Self.json(response.body)
                let choice = try #require((body["choices"] as? [[String: Any]])?.first)
                #expect(choice["finish_reason"] as? String == "length")
                #expect((choice["message"] as? [String: Any])?["content"] as? String == "one two")
            }
        }
    }

    /// The whole conversation a client sends is read, not only its last message (the scripted
    /// engine counts one prompt token per word of the formatted prompt).
    @Test func chatCompletionReadsTheWholeConversation() async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            func promptTokens(_ messages: String) async throws -> Int {
                try await client.execute(
                    uri: "/v1/chat/completions", method: .post, headers: .json,
                    body: Self.body(#"{"model": "scripted", "messages": \#(messages)}"#)
                ) { response in
                    try #require(Self.json(response.body)["usage"] as? [String: Any])["prompt_tokens"] as? Int ?? 0
                }
            }
            let alone = try await promptTokens(#"[{"role": "user", "content": "four"}]"#)
            let after = try await promptTokens(
                #"[{"role": "user", "content": "one two three"}, {"role": "assistant", "content": "yes"}, {"role": "user", "content": "four"}]"#
            )
            #expect(after == alone + 6, "the earlier turns' words are in the prompt: \(after) vs \(alone)")
        }
    }

    @Test func chatCompletionStreamsServerSentEvents() async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let request =
                #"{"model": "scripted", "stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "alpha beta"}]}"#
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: Self.body(request)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/event-stream")
                let events = EventStreamBody.data(in: String(buffer: response.body))
                #expect(events.last == "[DONE]")
                let chunks = try events.dropLast().map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
                #expect(chunks.allSatisfy { $0["object"] as? String == "chat.completion.chunk" })
                #expect(Set(chunks.compactMap { $0["id"] as? String }).count == 1, "every chunk has the completion's id")
                let deltas = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any] }
                #expect(deltas.first?["role"] as? String == "assistant")
                #expect(deltas.compactMap { $0["content"] as? String }.joined() == "alpha beta")
                let reasons = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String }
                #expect(reasons == ["stop"])
                let usage = try #require(chunks.last?["usage"] as? [String: Any], "include_usage adds a last chunk with the usage")
                #expect(usage["completion_tokens"] as? Int == 2)
                #expect((chunks.last?["choices"] as? [Any])?.isEmpty == true)
            }
        }
    }

    /// The scripted engine echoes the user's message, so a message that is a call in the built-in
    /// format comes back as one: the server's framing of calls, whole and streamed, and of the
    /// results sent back.
    @Test func chatCompletionToolCallsWholeStreamedAndAnswered() async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        let tools =
            #""tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]"#
        let call = #"{\"tool_calls\":[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}]}"#
        let request = #"{"model": "scripted", \#(tools), "messages": [{"role": "user", "content": "\#(call)"}]"#
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: Self.body(request + "}")) {
                response in
                let choice = try #require((try Self.json(response.body)["choices"] as? [[String: Any]])?.first)
                #expect(choice["finish_reason"] as? String == "tool_calls")
                let message = try #require(choice["message"] as? [String: Any])
                #expect(message["content"] is NSNull, "content is null beside the calls")
                let calls = try #require(message["tool_calls"] as? [[String: Any]])
                let function = try #require(calls.first?["function"] as? [String: Any])
                #expect(
                    calls.count == 1 && calls.first?["type"] as? String == "function"
                        && (calls.first?["id"] as? String)?.hasPrefix("call_") == true)
                #expect(function["name"] as? String == "get_weather" && function["arguments"] as? String == #"{"city":"Oslo"}"#)
            }
            try await client.execute(
                uri: "/v1/chat/completions", method: .post, headers: .json, body: Self.body(request + #", "stream": true}"#)
            ) { response in
                let events = EventStreamBody.data(in: String(buffer: response.body))
                let chunks = try events.dropLast().map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
                let choices = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first }
                let deltas = choices.compactMap { $0["delta"] as? [String: Any] }
                #expect(deltas.compactMap { $0["content"] as? String }.joined().isEmpty, "the call's text is not streamed as content")
                let calls = deltas.compactMap { $0["tool_calls"] as? [[String: Any]] }.flatMap { $0 }
                #expect(calls.count == 2 && calls.allSatisfy { $0["index"] as? Int == 0 })
                #expect((calls.first?["function"] as? [String: Any])?["name"] as? String == "get_weather" && calls.first?["id"] is String)
                #expect(calls.compactMap { ($0["function"] as? [String: Any])?["arguments"] as? String }.joined() == #"{"city":"Oslo"}"#)
                #expect(choices.compactMap { $0["finish_reason"] as? String } == ["tool_calls"])
            }
            // The result goes back as a tool message, which the model reads as a turn of its own.
            let answered =
                #"{"model": "scripted", \#(tools), "messages": [{"role": "user", "content": "Weather?"}, "#
                + #"{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]}, "#
                + #"{"role": "tool", "tool_call_id": "call_1", "content": "18 C"}]}"#
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: Self.body(answered)) { response in
                let choice = try #require((try Self.json(response.body)["choices"] as? [[String: Any]])?.first)
                #expect((choice["message"] as? [String: Any])?["content"] as? String == "Result of the tool get_weather: 18 C")
                #expect(choice["finish_reason"] as? String == "stop")
            }
        }
    }

    @Test func completionsWholeAndStreamed() async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(
                uri: "/v1/completions", method: .post, headers: .json,
                body: Self.body(#"{"model": "scripted", "prompt": "red green blue", "max_tokens": 5}"#)
            ) { response in
                let body = try Self.json(response.body)
                #expect(body["object"] as? String == "text_completion")
                let choice = try #require((body["choices"] as? [[String: Any]])?.first)
                #expect(choice["text"] as? String == "red green blue", "the prompt is read as is, without a chat template")
                #expect(choice["finish_reason"] as? String == "stop")
            }
            try await client.execute(
                uri: "/v1/completions", method: .post, headers: .json,
                body: Self.body(#"{"model": "scripted", "prompt": ["red green blue"], "stream": true, "max_tokens": 2}"#)
            ) { response in
                let events = EventStreamBody.data(in: String(buffer: response.body))
                #expect(events.last == "[DONE]")
                let chunks = try events.dropLast().map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
                let choices = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first }
                #expect(choices.compactMap { $0["text"] as? String }.joined() == "red green")
                #expect(choices.compactMap { $0["finish_reason"] as? String } == ["length"])
                #expect(!chunks.contains { $0["usage"] is [String: Any] }, "no usage chunk unless asked for")
            }
        }
    }

    @Test(arguments: [
        (#"{"model": "scripted", "messages": [{"role": "user", "content": "hi"}"#, 400, nil as String?, nil as String?),
        (#"{"model": "scripted"}"#, 400, "messages", nil),
        (#"{"model": "scripted", "messages": "hi"}"#, 400, "messages", nil),
        (#"{"model": "scripted", "messages": []}"#, 400, "messages", nil),
        (#"{"model": "scripted", "messages": [{"role": "system", "content": "Be brief."}]}"#, 400, "messages", nil),
        (#"{"model": "scripted", "messages": [{"role": "assistant", "content": "hi"}]}"#, 400, "messages", nil),
        (#"{"model": "scripted", "messages": [{"role": "robot", "content": "hi"}]}"#, 400, "messages", nil),
        (
            #"{"model": "scripted", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}"#, 400,
            "messages", nil
        ),
        (#"{"model": "scripted", "n": 9, "messages": [{"role": "user", "content": "hi"}]}"#, 400, "n", nil),
        (#"{"model": "scripted", "max_tokens": 0, "messages": [{"role": "user", "content": "hi"}]}"#, 400, "max_tokens", nil),
        (#"{"model": "scripted", "seed": -1, "messages": [{"role": "user", "content": "hi"}]}"#, 400, "seed", nil),
        (#"{"model": "scripted", "temperature": "hot", "messages": [{"role": "user", "content": "hi"}]}"#, 400, "temperature", nil),
        (#"{"model": "scripted", "temperature": 9, "messages": [{"role": "user", "content": "hi"}]}"#, 400, "temperature", "invalidInput"),
        (#"{"model": "scripted", "top_p": 0, "messages": [{"role": "user", "content": "hi"}]}"#, 400, "top_p", "invalidInput"),
        (#"{"model": "scripted", "top_k": -3, "messages": [{"role": "user", "content": "hi"}]}"#, 400, "top_k", "invalidInput"),
        (#"{"model": "scripted", "min_p": 2, "messages": [{"role": "user", "content": "hi"}]}"#, 400, "min_p", "invalidInput"),
        (#"{"model": "scripted", "stop": [""], "messages": [{"role": "user", "content": "hi"}]}"#, 400, "stop", "invalidInput"),
        (#"{"model": "scripted", "mirostat": 3, "messages": [{"role": "user", "content": "hi"}]}"#, 400, "mirostat", nil),
        (
            #"{"model": "scripted", "dry_multiplier": 0.8, "dry_sequence_breakers": [], "messages": [{"role": "user", "content": "hi"}]}"#,
            400, "dry_sequence_breakers", nil
        ),
        (
            #"{"model": "scripted", "max_completion_tokens": 0, "messages": [{"role": "user", "content": "hi"}]}"#, 400,
            "max_completion_tokens", nil
        ),
        (#"{"model": "scripted", "keep_alive": "soon", "messages": [{"role": "user", "content": "hi"}]}"#, 400, "keep_alive", nil),
        (#"{"model": "nope", "messages": [{"role": "user", "content": "hi"}]}"#, 404, "model", "model_not_found"),
        (#"{"model": "../../etc/passwd", "messages": [{"role": "user", "content": "hi"}]}"#, 400, nil, nil),
        (#"{"model": "scripted", "tool_choice": "sometimes", "messages": [{"role": "user", "content": "hi"}]}"#, 400, "tool_choice", nil),
        (
            #"{"model": "scripted", "functions": [{"name": "f", "parameters": {"type": "object"}}], "messages": [{"role": "user", "content": "hi"}]}"#,
            400, "functions", nil
        ),
        (
            #"{"model": "scripted", "function_call": {"name": "f"}, "messages": [{"role": "user", "content": "hi"}]}"#, 400,
            "function_call", nil
        ),
        (
            #"{"model": "scripted", "tools": [{"type": "function", "function": {"name": "a b"}}], "messages": [{"role": "user", "content": "hi"}]}"#,
            400, "tools", nil
        ),
        (
            #"{"model": "scripted", "tools": [{"type": "retrieval", "function": {"name": "a"}}], "messages": [{"role": "user", "content": "hi"}]}"#,
            400, "tools", nil
        ),
        (#"{"model": "scripted", "tool_choice": "required", "messages": [{"role": "user", "content": "hi"}]}"#, 400, "tool_choice", nil),
        (
            #"{"model": "scripted", "tools": [{"type": "function", "function": {"name": "a"}}], "tool_choice": {"type": "function", "function": {"name": "zz"}}, "messages": [{"role": "user", "content": "hi"}]}"#,
            400, "tool_choice", nil
        ),
        (
            #"{"model": "scripted", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]}"#,
            400, "messages", nil
        ),
        (
            #"{"model": "scripted", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "[1"}}]}, {"role": "tool", "tool_call_id": "c", "content": "1"}]}"#,
            400, "messages", nil
        ),
        (
            #"{"model": "scripted", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yes"}, {"role": "tool", "tool_call_id": "c", "content": "1"}]}"#,
            400, nil, nil
        ),
    ])
    func badChatRequestsGetOpenAIErrors(body: String, status: Int, param: String?, code: String?) async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: Self.body(body)) { response in
                #expect(response.status.code == status, "\(body)")
                let error = try Self.error(response.body)
                #expect(!(error["message"] as? String ?? "").isEmpty)
                #expect(error["type"] as? String == (status == 404 ? "not_found_error" : "invalid_request_error"))
                if let param { #expect(error["param"] as? String == param, "\(body)") }
                if let code { #expect(error["code"] as? String == code) }
                // An option the SDK refuses is named in the message as the request spelled it.
                if code == "invalidInput", let param {
                    #expect((error["message"] as? String ?? "").contains(param), "\(error)")
                }
            }
        }
    }

    @Test(arguments: [
        #"{"model": "scripted", "prompt": []}"#, #"{"model": "scripted", "prompt": [[]]}"#, #"{"model": "scripted", "prompt": [-1]}"#,
        #"{"model": "scripted", "prompt": [1.5]}"#, #"{"model": "scripted", "prompt": [99999999999999999999]}"#,
        #"{"model": "scripted", "prompt": [[1], [2.5]]}"#, #"{"model": "scripted", "prompt": [[1, 2], ["a"]]}"#,
        #"{"model": "scripted", "prompt": ["a", "b", "c"], "n": 6}"#,
    ])
    func badCompletionPromptsGetOpenAIErrors(body: String) async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/completions", method: .post, headers: .json, body: Self.body(body)) { response in
                #expect(response.status.code == 400, "\(body)")
                let error = try Self.error(response.body)
                #expect(error["param"] as? String == "prompt" && error["type"] as? String == "invalid_request_error", "\(body): \(error)")
            }
        }
    }

    /// A suffix asks for the gap between each text prompt and it to be filled in: not with echo
    /// or token-id prompts, and only by a model trained for it (the scripted one is not); empty,
    /// it is a plain completion.
    @Test(arguments: [
        (#""prompt": "a", "suffix": "b", "echo": true"#, "echo", "invalid_request_error"),
        (#""prompt": [1, 2], "suffix": "b""#, "suffix", "invalid_request_error"),
        (#""prompt": "a", "suffix": "b""#, "model", "model_incompatible"),
    ])
    func aSuffixIsRefusedWhereItCannotApply(fields: String, param: String, code: String) async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let body = #"{"model": "scripted", \#(fields)}"#
            try await client.execute(uri: "/v1/completions", method: .post, headers: .json, body: Self.body(body)) { response in
                #expect(response.status.code == 400, "\(body)")
                let error = try Self.error(response.body)
                #expect(error["param"] as? String == param && (error["code"] as? String ?? error["type"] as? String) == code, "\(error)")
            }
            let plain = #"{"model": "scripted", "prompt": "red", "suffix": "", "max_tokens": 2}"#
            try await client.execute(uri: "/v1/completions", method: .post, headers: .json, body: Self.body(plain)) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func loadedModelsAreListedWithTheirKeepAlive() async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/models/loaded", method: .get) { response in
                let body = try Self.json(response.body)
                #expect((body["models"] as? [Any])?.isEmpty == true)
            }
            let request = #"{"model": "scripted", "keep_alive": "1m", "messages": [{"role": "user", "content": "hi"}]}"#
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: Self.body(request)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/models/loaded", method: .get) { response in
                let body = try Self.json(response.body)
                let model = try #require((body["models"] as? [[String: Any]])?.first)
                #expect(model["modelId"] as? String == "scripted")
                #expect(model["state"] as? String == "loaded")
                #expect(model["activeRequests"] as? Int == 0)
                #expect(model["deviceMemoryBytes"] as? Int == 0)  // the scripted engine runs on no GPU
                #expect(model["keepAliveSeconds"] as? Double == 60)
                #expect(model["expiresAt"] is String)
            }
        }
    }

    @Test func metricsCountRequestsAndGenerations() async throws {
        let app = Self.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let request = #"{"model": "scripted", "messages": [{"role": "user", "content": "one two three"}]}"#
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: Self.body(request)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/v1/models/nope", method: .get) { #expect($0.status == .notFound) }
            // The generation reaches the metrics through the event bus, a moment after its response.
            var text = ""
            let deadline = ContinuousClock.now + .seconds(60)
            while !text.contains("runanywhere_completion_tokens_total"), ContinuousClock.now < deadline {
                text = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(text.contains(#"runanywhere_completion_tokens_total{model="scripted"} 3"#), "\(text)")
            #expect(text.contains(#"runanywhere_generations_total{model="scripted",backend="cpu",stop_reason="stop"} 1"#))
            #expect(text.contains(#"runanywhere_time_to_first_token_seconds_count{model="scripted"} 1"#))
            #expect(text.contains(#"runanywhere_http_requests_total{route="/v1/chat/completions",method="POST",status="200"} 1"#))
            #expect(text.contains(#"runanywhere_http_requests_total{route="/v1/models/{id}",method="GET",status="404"} 1"#))
            #expect(text.contains("runanywhere_models_loaded 1"))
            #expect(text.contains(#"runanywhere_model_requests{model="scripted"} 0"#))
            #expect(text.contains(#"runanywhere_queue_depth{model="scripted"} 0"#))
        }
    }

    @Test func bodiesOverTheLimitAreRefused() async throws {
        let app = Self.server(try scriptedRuntime(), maxBody: 1024).checkedApplication()
        try await app.test(.router) { client in
            let request = #"{"model": "scripted", "prompt": "\#(String(repeating: "x", count: 4096))"}"#
            try await client.execute(uri: "/v1/completions", method: .post, headers: .json, body: Self.body(request)) { response in
                #expect(response.status == .contentTooLarge)
                let error = try Self.error(response.body)
                #expect(error["message"] as? String == "The request body is larger than 1024 bytes")
            }
        }
    }

    @Test func anAPIKeyGuardsEveryRouteButHealth() async throws {
        let app = Self.server(try scriptedRuntime(), apiKey: "s3cret").checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/models", method: .get) { response in
                #expect(response.status == .unauthorized)
                let error = try Self.error(response.body)
                #expect(error["code"] as? String == "invalid_api_key")
            }
            try await client.execute(uri: "/v1/models", method: .get, headers: [.authorization: "Bearer wrong"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/v1/models", method: .get, headers: [.authorization: "Bearer s3cret"]) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test func corsOnlyForTheListedOrigins() async throws {
        let app = Self.server(try scriptedRuntime(), cors: ["http://localhost:3000"]).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/models", method: .get, headers: [.origin: "http://localhost:3000"]) { response in
                #expect(response.headers[.accessControlAllowOrigin] == "http://localhost:3000")
            }
            // A listed page reads errors as the server answers them, in each dialect's shape, with the CORS headers.
            let page: HTTPFields = [.origin: "http://localhost:3000", .contentType: "application/json"]
            let unknownModel = #"{"model":"nope","messages":[{"role":"user","content":"Hi"}],"max_tokens":1}"#
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: page, body: ByteBuffer(string: unknownModel)) {
                response in
                #expect(response.status == .notFound)
                #expect(response.headers[.accessControlAllowOrigin] == "http://localhost:3000")
                let code = try Self.error(response.body)["code"] as? String
                #expect(code == "model_not_found")
            }
            try await client.execute(uri: "/v1/messages", method: .post, headers: page, body: ByteBuffer(string: "{")) { response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.accessControlAllowOrigin] == "http://localhost:3000")
                let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(body?["type"] as? String == "error", "Anthropic's shape")
            }
            try await client.execute(uri: "/api/chat", method: .post, headers: page, body: ByteBuffer(string: unknownModel)) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.accessControlAllowOrigin] == "http://localhost:3000")
                let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(body?["error"] is String, "ollama's shape")
            }
            try await client.execute(uri: "/v1/models", method: .get, headers: [.origin: "http://evil.example"]) { response in
                #expect(response.status == .forbidden, "a page on another origin is refused, not merely left without CORS headers")
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
            let preflight: HTTPFields = [.origin: "http://localhost:3000", .accessControlRequestMethod: "POST"]
            try await client.execute(uri: "/v1/chat/completions", method: .options, headers: preflight) { response in
                #expect(response.status == .noContent || response.status == .ok)
                #expect(response.headers[.accessControlAllowMethods]?.contains("POST") == true)
                // Anthropic's clients send their key and API version in headers of their own.
                let allowed = response.headers[.accessControlAllowHeaders]?.lowercased() ?? ""
                #expect(["authorization", "x-api-key", "anthropic-version"].allSatisfy(allowed.contains), "\(allowed)")
            }
        }
        let closed = Self.server(try scriptedRuntime()).checkedApplication()
        try await closed.test(.router) { client in
            try await client.execute(uri: "/v1/models", method: .get, headers: [.origin: "http://localhost:3000"]) { response in
                #expect(response.status == .forbidden, "no page but the server's own unless origins are given")
                #expect(response.headers[.accessControlAllowOrigin] == nil, "CORS is off unless origins are given")
            }
        }
    }

    @Test func refusesToListenBeyondLoopbackWithoutAKey() throws {
        let logger = Logger(label: "test")
        #expect(throws: SDKError.self) { try ServerConfiguration(host: "0.0.0.0", logger: logger).validate() }
        try ServerConfiguration(host: "0.0.0.0", apiKey: "k", logger: logger).validate()
        try ServerConfiguration(host: "127.0.0.1", logger: logger).validate()
        try ServerConfiguration(host: "::1", logger: logger).validate()
    }
}

/// The `data:` payloads of a server-sent-events body.
enum EventStreamBody {
    static func data(in text: String) -> [String] {
        text.components(separatedBy: "\n\n").compactMap { event in
            let lines = event.split(separator: "\n").filter { $0.hasPrefix("data:") }.map { $0.dropFirst(5).drop { $0 == " " } }
            return lines.isEmpty ? nil : lines.joined(separator: "\n")
        }
    }
}
