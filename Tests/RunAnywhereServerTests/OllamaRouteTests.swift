import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// ollama's API, in process, against the scripted engine (which echoes the user's message, one
/// token a word): chat and generate whole and as NDJSON lines, options, tool calls both ways,
/// loading and unloading, the model routes, and ollama's error shape on these routes only. The
/// official `ollama` client against the real engine is CLIOllamaServeTests.
@Suite struct OllamaRouteTests {
    typealias Routes = OpenAIRouteTests

    /// The lines of an NDJSON body, each parsed as a JSON object.
    static func lines(_ buffer: ByteBuffer) throws -> [[String: Any]] {
        try String(buffer: buffer).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The message of an ollama error body, after checking that it is the only field.
    static func error(_ buffer: ByteBuffer) throws -> String {
        let body = try Routes.json(buffer)
        #expect(body.keys.sorted() == ["error"], "ollama's shape: \(body)")
        return try #require(body["error"] as? String)
    }

    @Test func chatWholeAndAsLines() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let request =
                #"{"model": "scripted:latest", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "alpha beta gamma"}]"#
            try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: Routes.body(request + #", "stream": false}"#)) {
                response in
                #expect(response.status == .ok && response.headers[.contentType] == "application/json")
                let body = try Routes.json(response.body)
                #expect(body["model"] as? String == "scripted:latest", "the name as the client wrote it")
                #expect(body["done"] as? Bool == true && body["done_reason"] as? String == "stop")
                let message = try #require(body["message"] as? [String: Any])
                #expect(message["role"] as? String == "assistant" && message["content"] as? String == "alpha beta gamma")
                #expect(body["eval_count"] as? Int == 3 && (body["prompt_eval_count"] as? Int ?? 0) > 3)
                let total = try #require(body["total_duration"] as? Int)
                #expect(
                    total > 0 && total >= (body["load_duration"] as? Int ?? .max), "durations in nanoseconds, the load within the total")
                #expect((body["created_at"] as? String)?.hasSuffix("Z") == true)
            }
            // Streaming is ollama's default.
            try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: Routes.body(request + "}")) { response in
                #expect(response.headers[.contentType] == "application/x-ndjson")
                let lines = try Self.lines(response.body)
                #expect(lines.count == 4, "a line per token, then the last")
                #expect(lines.dropLast().allSatisfy { $0["done"] as? Bool == false && $0["done_reason"] == nil })
                let text = lines.compactMap { ($0["message"] as? [String: Any])?["content"] as? String }.joined()
                #expect(text == "alpha beta gamma")
                let last = try #require(lines.last)
                #expect(last["done"] as? Bool == true && last["done_reason"] as? String == "stop" && last["eval_count"] as? Int == 3)
            }
            // num_predict bounds the answer; a stop sequence ends it.
            let bounded =
                #"{"model": "scripted", "stream": false, "options": {"num_predict": 2, "temperature": 0, "seed": 7}, "messages": [{"role": "user", "content": "one two three"}]}"#
            try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: Routes.body(bounded)) { response in
                let body = try Routes.json(response.body)
                #expect(body["done_reason"] as? String == "length" && body["eval_count"] as? Int == 2)
                #expect((body["message"] as? [String: Any])?["content"] as? String == "one two")
            }
            let stopped =
                #"{"model": "scripted", "stream": false, "options": {"stop": [" two"]}, "messages": [{"role": "user", "content": "one two three"}]}"#
            try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: Routes.body(stopped)) { response in
                let body = try Routes.json(response.body)
                #expect((body["message"] as? [String: Any])?["content"] as? String == "one")
            }
        }
    }

    @Test func generateWholeRawAndAsLines() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            // curl -d labels its body as a form; ollama's examples post that way.
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let request = #"{"model": "scripted", "prompt": "red green", "system": "Answer.", "stream": false}"#
            let templated = try await client.execute(uri: "/api/generate", method: .post, headers: form, body: Routes.body(request)) {
                response in
                #expect(response.status == .ok)
                let body = try Routes.json(response.body)
                #expect(body["response"] as? String == "red green" && body["done"] as? Bool == true && body["message"] == nil)
                return body["prompt_eval_count"] as? Int ?? 0
            }
            let raw = #"{"model": "scripted", "prompt": "red green", "raw": true, "stream": false}"#
            try await client.execute(uri: "/api/generate", method: .post, body: Routes.body(raw)) { response in
                let body = try Routes.json(response.body)
                #expect(response.status == .ok && body["response"] is String && body["done_reason"] is String)
                let tokens = try #require(body["prompt_eval_count"] as? Int)
                #expect(
                    tokens < templated - 2, "the prompt verbatim, without the chat template or the system prompt: \(tokens) vs \(templated)"
                )
            }
            let streamed = #"{"model": "scripted", "prompt": "red green blue"}"#
            try await client.execute(uri: "/api/generate", method: .post, headers: .json, body: Routes.body(streamed)) { response in
                let lines = try Self.lines(response.body)
                #expect(lines.compactMap { $0["response"] as? String }.joined() == "red green blue")
                #expect(lines.last?["done"] as? Bool == true && lines.count == 4)
            }
            // A suffix fills in a gap with a code model's tokens: the scripted model has none, and a
            // system prompt has no place in it.
            let refusals = [
                ("template", #""template": "{{ .Prompt }}""#), ("context", #""context": [1, 2, 3]"#),
                ("fill in the middle", #""suffix": "end""#), ("suffix", #""suffix": "end", "system": "Be brief.""#),
            ]
            for (named, fields) in refusals {
                let refused = #"{"model": "scripted", "prompt": "x", \#(fields)}"#
                try await client.execute(uri: "/api/generate", method: .post, headers: .json, body: Routes.body(refused)) { response in
                    #expect(response.status == .badRequest)
                    let message = try Self.error(response.body)
                    #expect(message.contains(named), "the error names \(named): \(message)")
                }
            }
            let plain = #"{"model": "scripted", "prompt": "red", "suffix": "", "stream": false}"#
            try await client.execute(uri: "/api/generate", method: .post, headers: .json, body: Routes.body(plain)) { response in
                #expect(response.status == .ok, "an empty suffix is a plain generation, as ollama reads it")
            }
        }
    }

    @Test func toolCallsWholeStreamedAndAnswered() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        let tools =
            #""tools": [{"type": "function", "function": {"name": "get_weather", "description": "The weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]"#
        let call = #"{\"tool_calls\":[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}]}"#
        let request = #"{"model": "scripted", \#(tools), "messages": [{"role": "user", "content": "\#(call)"}]"#
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: Routes.body(request + #", "stream": false}"#)) {
                response in
                let body = try Routes.json(response.body)
                #expect(body["done_reason"] as? String == "stop")
                let message = try #require(body["message"] as? [String: Any])
                #expect(message["content"] as? String == "", "the call's text is not content")
                let calls = try #require(message["tool_calls"] as? [[String: Any]])
                let function = try #require(calls.first?["function"] as? [String: Any])
                #expect(calls.count == 1 && (calls.first?["id"] as? String)?.isEmpty == false)
                #expect(function["name"] as? String == "get_weather" && function["index"] as? Int == 0)
                #expect((function["arguments"] as? [String: Any])?["city"] as? String == "Oslo", "arguments as an object, not JSON text")
            }
            try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: Routes.body(request + "}")) { response in
                let lines = try Self.lines(response.body)
                let calls = lines.compactMap { ($0["message"] as? [String: Any])?["tool_calls"] as? [[String: Any]] }
                #expect(calls.count == 1 && calls.first.map(\.count) == 1, "the call in a line of its own")
                let content = lines.compactMap { ($0["message"] as? [String: Any])?["content"] as? String }.joined()
                #expect(content.isEmpty)
                #expect(lines.last?["done"] as? Bool == true)
            }
            // The result goes back as a tool message naming the tool; ollama's clients send calls without ids.
            let answered =
                #"{"model": "scripted", "stream": false, \#(tools), "messages": [{"role": "user", "content": "Weather?"}, "#
                + #"{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}, "#
                + #"{"role": "tool", "tool_name": "get_weather", "content": "18 C"}]}"#
            try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: Routes.body(answered)) { response in
                #expect(response.status == .ok)
                let body = try Routes.json(response.body)
                #expect((body["message"] as? [String: Any])?["content"] as? String == "Result of the tool get_weather: 18 C")
            }
            let orphan =
                #"{"model": "scripted", "messages": [{"role": "user", "content": "Weather?"}, {"role": "tool", "tool_name": "get_weather", "content": "18 C"}]}"#
            try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: Routes.body(orphan)) { response in
                let message = try Self.error(response.body)
                #expect(response.status == .badRequest && message.contains("tool_calls"))
            }
        }
    }

    @Test func aRequestWithoutAPromptLoadsOrUnloads() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(
                uri: "/api/chat", method: .post, headers: .json,
                body: Routes.body(#"{"model": "scripted", "messages": [], "keep_alive": "1m"}"#)
            ) { response in
                let lines = try Self.lines(response.body)
                #expect(lines.count == 1 && lines.first?["done_reason"] as? String == "load" && lines.first?["done"] as? Bool == true)
            }
            try await client.execute(uri: "/api/ps", method: .get) { response in
                let models = try #require(try Routes.json(response.body)["models"] as? [[String: Any]])
                #expect(
                    models.count == 1 && models.first?["name"] as? String == "scripted:latest"
                        && models.first?["model"] as? String == "scripted:latest")
                #expect(
                    models.first?["expires_at"] is String && (models.first?["size"] as? Int ?? 0) > 0
                        && models.first?["size_vram"] as? Int == 0)
                #expect((models.first?["details"] as? [String: Any])?["format"] as? String == "gguf")
            }
            try await client.execute(uri: "/api/models/loaded", method: .get) { response in
                let models = try #require(try Routes.json(response.body)["models"] as? [[String: Any]])
                #expect(
                    models.first?["modelId"] as? String == "scripted", "RunAnywhere's own list, in its own shape, moved off ollama's path")
            }
            // Kept for ever, as ollama shows keep_alive -1: an expiry centuries away, not none.
            try await client.execute(
                uri: "/api/generate", method: .post, headers: .json,
                body: Routes.body(#"{"model": "scripted", "keep_alive": -1, "stream": false}"#)
            ) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/ps", method: .get) { response in
                let models = try #require(try Routes.json(response.body)["models"] as? [[String: Any]])
                let expiry = try #require(models.first?["expires_at"] as? String)
                #expect(expiry > "2300", "\(expiry)")
            }
            try await client.execute(
                uri: "/api/generate", method: .post, headers: .json,
                body: Routes.body(#"{"model": "scripted", "keep_alive": 0, "stream": false}"#)
            ) { response in
                let body = try Routes.json(response.body)
                #expect(body["done_reason"] as? String == "unload")
            }
            try await client.execute(uri: "/api/ps", method: .get) { response in
                let body = try Routes.json(response.body)
                #expect((body["models"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test func aModelWhoseLoadFailedIsNotListedAsRunning() async throws {
        // A budget of one byte: no model fits, and its load fails before the engine is asked.
        let app = Routes.server(try scriptedRuntime(budget: 1)).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(
                uri: "/api/generate", method: .post, headers: .json,
                body: Routes.body(#"{"model": "scripted", "prompt": "Hi", "stream": false}"#)
            ) { response in
                #expect(response.status == .serviceUnavailable)
            }
            try await client.execute(uri: "/api/models/loaded", method: .get) { response in
                let models = try #require(try Routes.json(response.body)["models"] as? [[String: Any]])
                #expect(models.first?["state"] as? String == "failed", "RunAnywhere's own list shows the failure")
            }
            try await client.execute(uri: "/api/ps", method: .get) { response in
                let models = try Routes.json(response.body)["models"] as? [Any]
                #expect(models?.isEmpty == true, "ollama's lists only what runs")
            }
        }
    }

    @Test func aModelInUseIsAConflictToDelete() async throws {
        let runtime = try scriptedRuntime()
        let handle = try await runtime.hold("scripted")
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/delete", method: .delete, headers: .json, body: Routes.body(#"{"model": "scripted"}"#)) {
                response in
                let message = try Self.error(response.body)
                #expect(response.status == .conflict && message.contains("in use"))
            }
            try await client.execute(uri: "/api/models/scripted", method: .delete) { response in
                let error = try #require(try Routes.json(response.body)["error"] as? [String: Any])
                #expect(response.status == .conflict && error["code"] as? String == "model_in_use")
            }
            #expect((try? runtime.model(id: "scripted")) != nil, "still installed")
            await handle.release()
            try await client.execute(uri: "/api/delete", method: .delete, headers: .json, body: Routes.body(#"{"model": "scripted"}"#)) {
                #expect($0.status == .ok)
            }
            #expect((try? runtime.model(id: "scripted")) == nil, "deleted once released")
        }
    }

    @Test func modelsListedShownAndDeleted() async throws {
        let runtime = try scriptedRuntime(ids: ["scripted", "other"])
        // An installed speech model: not one ollama's routes run, so neither listed nor shown.
        let voice = runtime.configuration.modelsDirectory.appendingPathComponent("voice.bin")
        try Data("not a model".utf8).write(to: voice)
        try runtime.registerModel(id: "voice", name: "Voice", url: voice, framework: .whisperCpp, modality: .speechRecognition)
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/version", method: .get) { response in
                let body = try Routes.json(response.body)
                // ollama's version, which its clients compare with their minimum, not the SDK's.
                let version = try #require(body["version"] as? String).split(separator: ".").compactMap { Int($0) }
                #expect(version.count == 3 && version.lexicographicallyPrecedes([0, 12, 11]) == false)
                #expect(body["version"] as? String != RunAnywhere.version)
            }
            try await client.execute(uri: "/api/tags", method: .get) { response in
                let models = try #require(try Routes.json(response.body)["models"] as? [[String: Any]])
                #expect(Set(models.compactMap { $0["name"] as? String }) == ["scripted:latest", "other:latest"])
                let entry = try #require(models.first { $0["name"] as? String == "scripted:latest" })
                #expect((entry["digest"] as? String)?.count == 64 && (entry["size"] as? Int ?? 0) > 0 && entry["modified_at"] is String)
                let details = try #require(entry["details"] as? [String: Any])
                #expect(
                    details["family"] as? String == "llama" && details["families"] as? [String] == ["llama"]
                        && details["format"] as? String == "gguf")
            }
            try await client.execute(uri: "/api/show", method: .post, headers: .json, body: Routes.body(#"{"model": "scripted:latest"}"#)) {
                response in
                let body = try Routes.json(response.body)
                #expect(body["capabilities"] as? [String] == ["completion", "tools"])
                #expect((body["model_info"] as? [String: Any])?["general.architecture"] as? String == "llama")
                #expect(
                    (body["modelfile"] as? String)?.contains("FROM ") == true
                        && (body["parameters"] as? String)?.contains("num_ctx") == true)
            }
            for model in ["nope", "voice", "nope:7b"] {
                try await client.execute(uri: "/api/show", method: .post, headers: .json, body: Routes.body(#"{"model": "\#(model)"}"#)) {
                    response in
                    let message = try Self.error(response.body)
                    #expect(response.status == .notFound && message == "model '\(model)' not found")
                }
            }
            try await client.execute(uri: "/api/delete", method: .delete, headers: .json, body: Routes.body(#"{"model": "other"}"#)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/delete", method: .delete, headers: .json, body: Routes.body(#"{"model": "other"}"#)) {
                response in
                let message = try Self.error(response.body)
                #expect(response.status == .notFound && message.contains("not found"))
            }
            try await client.execute(uri: "/api/tags", method: .get) { response in
                let models = try #require(try Routes.json(response.body)["models"] as? [[String: Any]])
                #expect(models.compactMap { $0["name"] as? String } == ["scripted:latest"], "the deleted model is gone")
            }
            try await client.execute(uri: "/api/pull", method: .post, headers: .json, body: Routes.body(#"{"model": "scripted"}"#)) {
                response in
                let lines = try Self.lines(response.body)
                #expect(
                    lines.first?["status"] as? String == "pulling manifest" && lines.last?["status"] as? String == "success",
                    "installed: nothing to download")
            }
            try await client.execute(
                uri: "/api/pull", method: .post, headers: .json, body: Routes.body(#"{"model": "nope", "stream": false}"#)
            ) { response in
                let message = try Self.error(response.body)
                #expect(
                    response.status == .notFound && message.contains("nope") && message.contains("hf.co/OWNER/REPO:QUANT"), "\(message)")
            }
            try await client.execute(
                uri: "/api/pull", method: .post, headers: .json, body: Routes.body(#"{"model": "library/llama3.2:3b", "stream": false}"#)
            ) { response in
                let message = try Self.error(response.body)
                #expect(response.status == .notFound && message.contains("not the names of ollama's library"), "\(message)")
            }
        }
    }

    @Test(arguments: [
        (#"{"model": "nope", "messages": [{"role": "user", "content": "x"}]}"#, 404, "nope"),
        (#"{"model": "scripted", "messages": [{"role": "user", "content": "x"}], "options": {"num_predict": 0}}"#, 400, "num_predict"),
        (
            #"{"model": "scripted", "messages": [{"role": "user", "content": "x"}], "options": {"temperature": "hot"}}"#, 400,
            "options.temperature"
        ),
        (#"{"model": "scripted", "messages": [{"role": "user", "content": "x"}], "think": true}"#, 400, "does not support thinking"),
        (#"{"model": "scripted", "messages": [{"role": "user", "content": "x"}], "think": "max"}"#, 400, "think"),
        (#"{"model": "scripted", "messages": [{"role": "user", "content": "x"}], "format": "xml"}"#, 400, "format"),
        (#"{"model": "scripted", "messages": [{"role": "user", "content": "x"}], "keep_alive": "soon"}"#, 400, "keep_alive"),
        (#"{"model": "scripted", "messages": [{"role": "critic", "content": "x"}]}"#, 400, "critic"),
        (
            #"{"model": "scripted", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]}"#, 400,
            "last message"
        ),
        (#"{"messages": [{"role": "user", "content": "x"}]}"#, 400, "model"),
    ])
    func badRequestsGetOllamasErrors(body: String, status: Int, mention: String) async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: Routes.body(body)) { response in
                #expect(response.status.code == status)
                let message = try Self.error(response.body)
                #expect(message.contains(mention), "\(message)")
            }
        }
    }

    @Test(arguments: [#"[1, 2, 3]"#, #"[[1, 2]]"#, "7", #"{"text": "x"}"#])
    func embedTakesTextsOnlyAndSaysSoInItsOwnTerms(input: String) async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(
                uri: "/api/embed", method: .post, headers: .json, body: Routes.body(#"{"model": "scripted", "input": \#(input)}"#)
            ) { response in
                let message = try Self.error(response.body)
                #expect(response.status == .badRequest && message.contains("input must be a string or an array of strings"), "\(message)")
                #expect(!message.contains("OpenAI"), "ollama's route speaks of nobody else's tokenizer: \(message)")
            }
        }
    }

    @Test func theKeyAndTheOriginGuardCoverOllamasRoutes() async throws {
        let app = Routes.server(try scriptedRuntime(), apiKey: "k-1").checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/tags", method: .get) { response in
                let message = try Self.error(response.body)
                #expect(response.status == .unauthorized && !message.isEmpty)
            }
            try await client.execute(uri: "/api/tags", method: .get, headers: [.authorization: "Bearer k-1"]) { #expect($0.status == .ok) }
            let page: HTTPFields = [
                .authorization: "Bearer k-1", .origin: "https://evil.example", .contentType: "application/x-www-form-urlencoded",
            ]
            try await client.execute(
                uri: "/api/generate", method: .post, headers: page, body: Routes.body(#"{"model": "scripted", "prompt": "x"}"#)
            ) { response in
                #expect(response.status == .forbidden, "a form from another site's page is refused before it is read")
            }
        }
    }
}
