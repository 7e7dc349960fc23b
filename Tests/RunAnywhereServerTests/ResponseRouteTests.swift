import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// OpenAI's Responses API in process, on the scripted engine (which answers with the user's
/// words, so a message holding `<think>…</think>` gives a reasoning model's events): the output
/// items and stream events a thinking answer maps onto, stored responses and
/// `previous_response_id`, and the refusals.
@Suite(.inProcessLane) struct ResponseRouteTests {
    static let thinking = #""input": "<think> weighing options </think> Go north""#

    @Test func aThinkingAnswerIsAReasoningItemThenAMessageWholeAndStreamed() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let whole = try await client.execute(
                uri: "/v1/responses", method: .post, headers: .json,
                body: OpenAIRouteTests.body(#"{"model": "scripted", \#(Self.thinking)}"#))
            #expect(whole.status == .ok)
            let response = try OpenAIRouteTests.json(whole.body)
            let output = try #require(response["output"] as? [[String: Any]])
            #expect(output.map { $0["type"] as? String } == ["reasoning", "message"])
            let reasoning = try #require((output.first?["content"] as? [[String: Any]])?.first)
            #expect(reasoning["type"] as? String == "reasoning_text")
            #expect((reasoning["text"] as? String)?.trimmingCharacters(in: .whitespaces) == "weighing options")
            let text = try #require(((output.last?["content"] as? [[String: Any]])?.first)?["text"] as? String)
            #expect(text.trimmingCharacters(in: .whitespaces) == "Go north")
            #expect(response["status"] as? String == "completed")

            let streamed = try await client.execute(
                uri: "/v1/responses", method: .post, headers: .json,
                body: OpenAIRouteTests.body(#"{"model": "scripted", "stream": true, \#(Self.thinking)}"#)
            )
            #expect(streamed.headers[.contentType] == "text/event-stream")
            let events = try ModelCatalogRouteTests.events(streamed.body)
            #expect(events.allSatisfy { $0.name == $0.data["type"] as? String }, "each event is named by its type")
            #expect(events.map { $0.data["sequence_number"] as? Int } == Array(0..<events.count))
            let types = events.map { $0.name ?? "" }.filter { !$0.hasSuffix(".delta") }
            #expect(
                types == [
                    "response.created", "response.in_progress",
                    "response.output_item.added", "response.reasoning_text.done", "response.output_item.done",
                    "response.output_item.added", "response.content_part.added", "response.output_text.done", "response.content_part.done",
                    "response.output_item.done", "response.completed",
                ])
            let reasoned = events.filter { $0.name == "response.reasoning_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
            let answered = events.filter { $0.name == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
            #expect(reasoned == reasoning["text"] as? String && answered == text, "the stream builds what the whole response holds")
            #expect(events.filter { $0.name == "response.reasoning_text.delta" }.allSatisfy { $0.data["output_index"] as? Int == 0 })
            #expect(events.filter { $0.name == "response.output_text.delta" }.allSatisfy { $0.data["output_index"] as? Int == 1 })
            let final = try #require(events.last?.data["response"] as? [String: Any])
            #expect((final["output"] as? [[String: Any]])?.map { $0["type"] as? String } == ["reasoning", "message"])
        }
    }

    /// A user message that is a call in the built-in format comes back as one (the scripted
    /// engine echoes it): a function_call item, streamed as its argument events, answered by a
    /// function_call_output through previous_response_id.
    @Test func aFunctionCallIsAnItemWholeStreamedAndAnswered() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        let tools =
            #""tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]"#
        let call = #""input": "{\"tool_calls\":[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}]}""#
        try await app.test(.router) { client in
            let whole = try await client.execute(
                uri: "/v1/responses", method: .post, headers: .json,
                body: OpenAIRouteTests.body(#"{"model": "scripted", \#(tools), \#(call)}"#))
            let response = try OpenAIRouteTests.json(whole.body)
            let items = try #require(response["output"] as? [[String: Any]])
            #expect(
                items.count == 1 && items.first?["type"] as? String == "function_call" && items.first?["name"] as? String == "get_weather")
            #expect(
                items.first?["arguments"] as? String == #"{"city":"Oslo"}"#
                    && (items.first?["call_id"] as? String)?.hasPrefix("call_") == true)

            let streamed = try await client.execute(
                uri: "/v1/responses", method: .post, headers: .json,
                body: OpenAIRouteTests.body(#"{"model": "scripted", "stream": true, \#(tools), \#(call)}"#)
            )
            let events = try ModelCatalogRouteTests.events(streamed.body)
            #expect(
                events.map { $0.name ?? "" } == [
                    "response.created", "response.in_progress", "response.output_item.added", "response.function_call_arguments.delta",
                    "response.function_call_arguments.done", "response.output_item.done", "response.completed",
                ])
            #expect((events[2].data["item"] as? [String: Any])?["arguments"] as? String == "")
            #expect(
                events[3].data["delta"] as? String == #"{"city":"Oslo"}"# && events[4].data["arguments"] as? String == #"{"city":"Oslo"}"#)

            let id = try #require(response["id"] as? String)
            let callID = try #require(items.first?["call_id"] as? String)
            let output =
                #""input": [{"type": "function_call_output", "call_id": "\#(callID)", "output": "18 C"}], "previous_response_id": "\#(id)""#
            let answered = try await client.execute(
                uri: "/v1/responses", method: .post, headers: .json,
                body: OpenAIRouteTests.body(#"{"model": "scripted", \#(tools), \#(output)}"#))
            let answer = try #require((try OpenAIRouteTests.json(answered.body)["output"] as? [[String: Any]])?.first)
            #expect(((answer["content"] as? [[String: Any]])?.first)?["text"] as? String == "Result of the tool get_weather: 18 C")
        }
    }

    /// `truncation`: `disabled` (the default) refuses a chain the context cannot hold whole, `auto`
    /// drops its oldest items; the response says which. The scripted context holds 2,048 tokens.
    @Test func truncationDisabledRefusesWhatTheContextCannotHoldAndAutoDropsTheOldest() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            func create(_ fields: String) async throws -> (status: HTTPResponse.Status, body: [String: Any]) {
                let response = try await client.execute(
                    uri: "/v1/responses", method: .post, headers: .json, body: OpenAIRouteTests.body(#"{"model": "scripted", \#(fields)}"#))
                return (response.status, try OpenAIRouteTests.json(response.body))
            }
            let words = { (count: Int) in String(repeating: "w ", count: count) }
            let first = try await create(#""input": "\#(words(1500))", "max_output_tokens": 4"#)
            #expect(first.status == .ok && first.body["truncation"] as? String == "disabled", "\(first.body)")
            let id = try #require(first.body["id"] as? String)
            let refused = try await create(#""input": "\#(words(1000))", "previous_response_id": "\#(id)", "max_output_tokens": 4"#)
            let error = refused.body["error"] as? [String: Any]
            #expect(refused.status == .badRequest && error?["code"] as? String == "context_length_exceeded", "\(refused.body)")
            let dropped = try await create(
                #""input": "\#(words(1000))", "previous_response_id": "\#(id)", "max_output_tokens": 4, "truncation": "auto""#)
            let usage = dropped.body["usage"] as? [String: Any]
            #expect(dropped.status == .ok && dropped.body["truncation"] as? String == "auto", "\(dropped.body)")
            #expect((usage?["input_tokens"] as? Int ?? 0) < 1500, "the earlier turn was dropped: \(usage ?? [:])")
            let bogus = try await create(#""input": "hi", "truncation": "bogus""#)
            #expect(bogus.status == .badRequest && (bogus.body["error"] as? [String: Any])?["param"] as? String == "truncation")
        }
    }

    @Test func storedResponsesContinueAndAreRetrievedAndDeleted() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            func create(_ fields: String) async throws -> [String: Any] {
                let response = try await client.execute(
                    uri: "/v1/responses", method: .post, headers: .json, body: OpenAIRouteTests.body(#"{"model": "scripted", \#(fields)}"#))
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return try OpenAIRouteTests.json(response.body)
            }
            func tokens(_ response: [String: Any]) -> Int? { (response["usage"] as? [String: Any])?["input_tokens"] as? Int }
            let first = try await create(#""input": "one two three""#)
            let id = try #require(first["id"] as? String)
            let alone = try await create(#""input": "four", "store": false"#)
            let second = try await create(#""input": "four", "previous_response_id": "\#(id)""#)
            // The earlier turn's input and answer (three words each, and a line each) come first.
            #expect(tokens(second) == tokens(alone).map { $0 + 8 }, "\(second) vs \(alone)")
            #expect(second["previous_response_id"] as? String == id)

            let retrieved = try await client.execute(uri: "/v1/responses/\(id)", method: .get)
            let stored = try OpenAIRouteTests.json(retrieved.body)
            #expect(retrieved.status == .ok && stored["id"] as? String == id && stored["output"] as? [[String: Any]] != nil)
            let items = try await client.execute(uri: "/v1/responses/\(second["id"] as? String ?? "")/input_items?order=asc", method: .get)
            let listed = try #require(try OpenAIRouteTests.json(items.body)["data"] as? [[String: Any]])
            #expect(listed.map { $0["role"] as? String } == ["user", "assistant", "user"])
            #expect(listed.allSatisfy { ($0["id"] as? String)?.isEmpty == false }, "stored input items have ids")
            // Pages: two items, then the rest after the second.
            let base = "/v1/responses/\(second["id"] as? String ?? "")/input_items?order=asc"
            let page = try OpenAIRouteTests.json(try await client.execute(uri: base + "&limit=2", method: .get).body)
            #expect((page["data"] as? [Any])?.count == 2 && page["has_more"] as? Bool == true)
            let rest = try OpenAIRouteTests.json(
                try await client.execute(uri: base + "&after=\(page["last_id"] as? String ?? "")", method: .get).body)
            #expect(
                (rest["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [listed.last?["id"] as? String]
                    && rest["has_more"] as? Bool == false)
            for bad in ["&limit=0", "&limit=101", "&after=msg_nope"] {
                #expect(try await client.execute(uri: base + bad, method: .get).status == .badRequest, "\(bad)")
            }
            let deleted = try await client.execute(uri: "/v1/responses/\(id)", method: .delete)
            #expect(try OpenAIRouteTests.json(deleted.body)["deleted"] as? Bool == true)
            for uri in ["/v1/responses/\(id)", "/v1/responses/\(alone["id"] as? String ?? "")"] {
                let missing = try await client.execute(uri: uri, method: .get)
                #expect(missing.status == .notFound)
                #expect(try OpenAIRouteTests.error(missing.body)["code"] as? String == "response_not_found")
            }
            let again = try await client.execute(uri: "/v1/responses/\(id)", method: .delete)
            #expect(again.status == .notFound)
        }
    }

    @Test(arguments: [
        (#""input": [{"role": "assistant", "content": "hi"}]"#, "input"),
        (#""input": []"#, "input"),
        (#""input": [{"type": "web_search_call"}]"#, "input"),
        (#""input": [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]"#, "input"),
        (#""input": [{"role": "user", "content": [{"type": "input_image", "image_url": "https://example.com/a.png"}]}]"#, "input"),
        (#""input": "hi", "max_output_tokens": 0"#, "max_output_tokens"),
        (#""input": "hi", "temperature": 3"#, "temperature"),
        (#""input": "hi", "top_p": 0, "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}]"#, "top_p"),
        (#""input": "hi", "tool_choice": {"type": "function"}"#, "tool_choice"),
        (#""input": "hi", "tools": [{"type": "web_search"}]"#, "tools"),
        (#""input": "hi", "text": {"format": {"type": "json_schema", "name": "x"}}"#, "text.format.schema"),
        (#""input": "hi", "text": {"format": {"type": "yaml"}}"#, "text.format.type"),
        (#""input": "hi", "reasoning": "high""#, "reasoning"),
        (#""input": "hi", "background": true, "store": false"#, "store"),
        (#""input": "hi", "conversation": 5"#, "conversation"), (#""input": "hi", "prompt": {"id": "pmpt_1"}"#, "prompt"),
        (#""input": "hi", "conversation": {"id": "conv_1"}, "previous_response_id": "resp_1""#, "conversation"),
        (
            #""input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "[1]"}, {"type": "function_call_output", "call_id": "c", "output": "x"}]"#,
            "input"
        ),
        // An output that answers no call made before it, and one that is neither text nor parts.
        (
            #""input": [{"role": "user", "content": "x"}, {"type": "function_call_output", "call_id": "call_nope", "output": "Sunny"}]"#,
            "input"
        ),
        (
            #""input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}, {"type": "function_call_output", "call_id": "c", "output": {"a": 1}}]"#,
            "input"
        ),
        (#""input": "hi", "tools": [{"type": "function"}]"#, "tools"),
    ])
    func badRequestsAreRefusedNamingTheField(fields: String, param: String) async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime(name: "refused-\(param)")).checkedApplication()
        try await app.test(.router) { client in
            let response = try await client.execute(
                uri: "/v1/responses", method: .post, headers: .json, body: OpenAIRouteTests.body(#"{"model": "scripted", \#(fields)}"#))
            #expect(response.status == .badRequest, "\(fields): \(String(buffer: response.body))")
            #expect(try OpenAIRouteTests.error(response.body)["param"] as? String == param, "\(fields): \(String(buffer: response.body))")
        }
    }
}
