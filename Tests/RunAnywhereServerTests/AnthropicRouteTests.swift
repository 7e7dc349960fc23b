import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// Anthropic's Messages API, in process, against the scripted engine (which echoes the user's
/// message, one token a word): the answer's shape, the stream's events in order, tool calls,
/// count_tokens, and Anthropic's error shapes on these routes only.
@Suite struct AnthropicRouteTests {
    typealias Routes = OpenAIRouteTests

    /// The events of a stream: each one's name and its data as JSON.
    static func events(in text: String) throws -> [(name: String, data: [String: Any])] {
        try text.components(separatedBy: "\n\n").compactMap { event in
            let lines = event.split(separator: "\n")
            guard let name = lines.first(where: { $0.hasPrefix("event:") })?.dropFirst(6).trimmingCharacters(in: .whitespaces),
                let data = lines.first(where: { $0.hasPrefix("data:") })?.dropFirst(5)
            else { return nil }
            return (name, try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]))
        }
    }

    /// The `error` of an Anthropic error body, after checking its envelope.
    static func error(_ buffer: ByteBuffer) throws -> [String: Any] {
        let body = try Routes.json(buffer)
        #expect(body["type"] as? String == "error")
        return try #require(body["error"] as? [String: Any])
    }

    @Test func aWholeAnswer() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let request =
                #"{"model": "scripted", "max_tokens": 10, "system": [{"type": "text", "text": "Be brief."}], "messages": [{"role": "user", "content": [{"type": "text", "text": "one two three"}]}]}"#
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(request)) { response in
                #expect(response.status == .ok)
                let body = try Routes.json(response.body)
                #expect(
                    body["type"] as? String == "message" && body["role"] as? String == "assistant" && body["model"] as? String == "scripted"
                )
                #expect((body["id"] as? String)?.hasPrefix("msg_") == true)
                let content = try #require(body["content"] as? [[String: Any]])
                #expect(
                    content.count == 1 && content.first?["type"] as? String == "text"
                        && content.first?["text"] as? String == "one two three")
                #expect(body["stop_reason"] as? String == "end_turn" && body["stop_sequence"] is NSNull)
                let usage = try #require(body["usage"] as? [String: Any])
                #expect(usage["output_tokens"] as? Int == 3 && (usage["input_tokens"] as? Int ?? 0) > 3)
                let count = #"{"model": "scripted", "system": "Be brief.", "messages": [{"role": "user", "content": "one two three"}]}"#
                try await client.execute(uri: "/v1/messages/count_tokens", method: .post, headers: .json, body: Routes.body(count)) {
                    counted in
                    #expect(counted.status == .ok)
                    let counts = try Routes.json(counted.body)
                    #expect(
                        counts["input_tokens"] as? Int == usage["input_tokens"] as? Int, "count_tokens counts the prompt the answer read")
                }
            }
            // A prompt longer than the context is counted, as clients ask to learn whether it fits;
            // answering it is refused.
            let long = String(repeating: "word ", count: 3000)
            let longCount = #"{"model": "scripted", "messages": [{"role": "user", "content": "\#(long)"}]}"#
            try await client.execute(uri: "/v1/messages/count_tokens", method: .post, headers: .json, body: Routes.body(longCount)) {
                counted in
                let counts = try Routes.json(counted.body)
                #expect(counted.status == .ok && counts["input_tokens"] as? Int ?? 0 > 3000, "\(counts)")
            }
            let longAnswer = #"{"model": "scripted", "max_tokens": 5, "messages": [{"role": "user", "content": "\#(long)"}]}"#
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(longAnswer)) {
                #expect($0.status == .badRequest)
            }
            let cut = #"{"model": "scripted", "max_tokens": 2, "messages": [{"role": "user", "content": "one two three"}]}"#
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(cut)) { response in
                let body = try Routes.json(response.body)
                #expect(body["stop_reason"] as? String == "max_tokens")
            }
            let stopped =
                #"{"model": "scripted", "max_tokens": 10, "stop_sequences": [" two"], "messages": [{"role": "user", "content": "one two three"}]}"#
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(stopped)) { response in
                let body = try Routes.json(response.body)
                #expect(body["stop_reason"] as? String == "stop_sequence" && body["stop_sequence"] as? String == " two")
                #expect((body["content"] as? [[String: Any]])?.first?["text"] as? String == "one")
            }
        }
    }

    @Test func aStreamIsAnthropicsEventsInOrder() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let request =
                #"{"model": "scripted", "max_tokens": 10, "stream": true, "messages": [{"role": "user", "content": "alpha beta"}]}"#
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(request)) { response in
                #expect(response.headers[.contentType] == "text/event-stream")
                let events = try Self.events(in: String(buffer: response.body))
                #expect(
                    events.map(\.name) == [
                        "message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
                        "message_delta", "message_stop",
                    ])
                #expect(events.allSatisfy { $0.data["type"] as? String == $0.name }, "each event's type is its name")
                let deltas = events.compactMap { $0.data["delta"] as? [String: Any] }.filter { $0["type"] as? String == "text_delta" }
                #expect(deltas.compactMap { $0["text"] as? String }.joined() == "alpha beta")
                let end = try #require(events.first { $0.name == "message_delta" }?.data)
                #expect((end["delta"] as? [String: Any])?["stop_reason"] as? String == "end_turn")
                #expect((end["usage"] as? [String: Any])?["output_tokens"] as? Int == 2)
                let start = try #require((events.first?.data["message"] as? [String: Any])?["usage"] as? [String: Any])
                let planned = try #require(start["input_tokens"] as? Int)
                #expect(
                    planned > 2 && planned == (end["usage"] as? [String: Any])?["input_tokens"] as? Int,
                    "message_start counts the prompt already")
            }
        }
    }

    /// A message holding `<think>…</think>` comes back as a thinking model's answer: its reasoning
    /// as a `thinking` block, whole and streamed, and none with thinking disabled.
    @Test func reasoningAsThinkingBlocks() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        let request =
            #"{"model": "scripted", "max_tokens": 20, "messages": [{"role": "user", "content": "<think> weighing options </think> Go north"}]"#
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(request + "}")) { response in
                let content = try #require(try Routes.json(response.body)["content"] as? [[String: Any]])
                #expect(content.map { $0["type"] as? String } == ["thinking", "text"])
                #expect((content.first?["thinking"] as? String)?.trimmingCharacters(in: .whitespaces) == "weighing options")
                #expect(content.first?["signature"] as? String == "")
                #expect((content.last?["text"] as? String)?.trimmingCharacters(in: .whitespaces) == "Go north")
            }
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(request + #", "stream": true}"#))
            { response in
                let events = try Self.events(in: String(buffer: response.body))
                let starts = events.filter { $0.name == "content_block_start" }.map {
                    ($0.data["content_block"] as? [String: Any])?["type"] as? String
                }
                #expect(starts == ["thinking", "text"])
                let deltas = events.compactMap { $0.data["delta"] as? [String: Any] }
                #expect(deltas.compactMap { $0["thinking"] as? String }.joined().trimmingCharacters(in: .whitespaces) == "weighing options")
                #expect(events.filter { $0.name == "content_block_stop" }.map { $0.data["index"] as? Int } == [0, 1])
            }
            let disabled = request + #", "thinking": {"type": "disabled"}}"#
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(disabled)) { response in
                let content = try #require(try Routes.json(response.body)["content"] as? [[String: Any]])
                #expect(content.map { $0["type"] as? String } == ["text"])
            }
        }
    }

    /// The scripted engine echoes a call in the built-in format, so the model "calls" the tool.
    @Test func toolUseWholeStreamedAndAnswered() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        let tools = #""tools": [{"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]"#
        let call = #"{\"tool_calls\":[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}]}"#
        let request = #"{"model": "scripted", "max_tokens": 50, \#(tools), "messages": [{"role": "user", "content": "\#(call)"}]"#
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(request + "}")) { response in
                let body = try Routes.json(response.body)
                #expect(body["stop_reason"] as? String == "tool_use")
                let content = try #require(body["content"] as? [[String: Any]])
                #expect(
                    content.count == 1 && content.first?["type"] as? String == "tool_use"
                        && content.first?["name"] as? String == "get_weather")
                #expect((content.first?["input"] as? [String: Any])?["city"] as? String == "Oslo")
            }
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(request + #", "stream": true}"#))
            { response in
                let events = try Self.events(in: String(buffer: response.body))
                #expect(
                    events.map(\.name) == [
                        "message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta",
                        "message_stop",
                    ])
                #expect((events[2].data["content_block"] as? [String: Any])?["type"] as? String == "tool_use")
                #expect((events[3].data["delta"] as? [String: Any])?["partial_json"] as? String == #"{"city":"Oslo"}"#)
            }
            let answered =
                #"{"model": "scripted", "max_tokens": 50, \#(tools), "messages": [{"role": "user", "content": "Weather?"}, "#
                + #"{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}]}, "#
                + #"{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18 C"}]}]}"#
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: Routes.body(answered)) { response in
                let body = try Routes.json(response.body)
                #expect((body["content"] as? [[String: Any]])?.first?["text"] as? String == "Result of the tool get_weather: 18 C")
                #expect(body["stop_reason"] as? String == "end_turn")
            }
        }
    }

    @Test func errorsTakeAnthropicsShapeOnTheseRoutesOnly() async throws {
        let app = Routes.server(try scriptedRuntime(), apiKey: "k-1", maxBody: 1 << 12).checkedApplication()
        let key: HTTPFields = [.contentType: "application/json", .authorization: "Bearer k-1"]
        let cases: [(body: String, status: HTTPResponse.Status, type: String)] = [
            (#"{"model": "nope", "max_tokens": 4, "messages": [{"role": "user", "content": "hi"}]}"#, .notFound, "not_found_error"),
            (#"{"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}"#, .badRequest, "invalid_request_error"),
            (
                #"{"model": "scripted", "max_tokens": 4, "messages": [{"role": "assistant", "content": "hi"}]}"#, .badRequest,
                "invalid_request_error"
            ),
            (
                #"{"model": "scripted", "max_tokens": 4, "messages": [{"role": "user", "content": [{"type": "document"}]}]}"#, .badRequest,
                "invalid_request_error"
            ),
            (String(repeating: " ", count: 1 << 13), .contentTooLarge, "request_too_large"),
        ]
        try await app.test(.router) { client in
            for (body, status, type) in cases {
                try await client.execute(uri: "/v1/messages", method: .post, headers: key, body: Routes.body(body)) { response in
                    #expect(response.status == status, "\(body.prefix(80))")
                    let error = try Self.error(response.body)
                    #expect(error["type"] as? String == type && error["message"] is String, "\(body.prefix(80)): \(error)")
                }
            }
            let none = Routes.body(#"{"model": "scripted", "max_tokens": 4, "messages": []}"#)
            try await client.execute(uri: "/v1/messages", method: .post, headers: key, body: none) { response in
                let error = try Self.error(response.body)
                #expect(response.status == .badRequest && (error["message"] as? String)?.hasPrefix("messages is empty") == true, "\(error)")
            }
            // A field out of range, or a choice of a tool not offered, is named as the request spells it.
            let named = [
                (#""top_k": -1"#, "top_k must"), (#""top_p": 2"#, "top_p must"),

                (
                    #""tools": [{"name": "a", "input_schema": {"type": "object"}}], "tool_choice": {"type": "tool", "name": "zz"}"#,
                    "tool_choice names 'zz'"
                ),
            ]
            let unanswered = #"[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_nope", "content": "1"}]}]"#
            for (fields, message) in named + [(#""messages": \#(unanswered)"#, "tool_use_id 'toolu_nope' answers no tool_use")] {
                let messages = fields.hasPrefix(#""messages""#) ? "" : #""messages": [{"role": "user", "content": "hi"}], "#
                let body = Routes.body(#"{"model": "scripted", "max_tokens": 4, \#(messages)\#(fields)}"#)
                try await client.execute(uri: "/v1/messages", method: .post, headers: key, body: body) { response in
                    let error = try Self.error(response.body)
                    #expect(response.status == .badRequest && (error["message"] as? String)?.contains(message) == true, "\(error)")
                }
            }
            let hi = Routes.body(#"{"model": "scripted", "max_tokens": 4, "messages": [{"role": "user", "content": "hi"}]}"#)
            try await client.execute(uri: "/v1/messages", method: .post, headers: .json, body: hi) { response in
                #expect(response.status == .unauthorized)
                let error = try Self.error(response.body)
                #expect(error["type"] as? String == "authentication_error")
            }
            let apiKey = try #require(HTTPFields.Element.Name("x-api-key"))
            try await client.execute(
                uri: "/v1/messages", method: .post, headers: [.contentType: "application/json", apiKey: "k-1"], body: hi
            ) { response in
                #expect(response.status == .ok, "the key is taken as x-api-key")
            }
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: hi) { response in
                #expect(response.status == .unauthorized)
                let error = try Routes.error(response.body)
                #expect(error["code"] as? String == "invalid_api_key", "other routes keep OpenAI's shape")
            }
        }
    }
}
