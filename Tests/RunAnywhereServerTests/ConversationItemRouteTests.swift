import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// OpenAI's Conversations API in process, on the scripted engine (which answers with the user's
/// words): a conversation's items, paged, added, read and removed; responses that continue it,
/// whole and streamed, each adding its input and output; and the refusals. Every answer is
/// checked against the OpenAPI document (``ContractCheckedApplication``).
@Suite(.inProcessLane) struct ConversationItemRouteTests {
    /// Sends `body` (JSON) to `uri`; the status and the answer's JSON.
    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        let response = try await client.execute(
            uri: uri, method: method, headers: body == nil ? [:] : .json, body: body.map(OpenAIRouteTests.body))
        return (response.status, (try? OpenAIRouteTests.json(response.body)) ?? [:])
    }

    /// The conversation's items, oldest first: each one's role (a message's) or type.
    static func kinds(_ client: some TestClientProtocol, _ id: String) async throws -> [String] {
        let (status, list) = try await send(client, .get, "/v1/conversations/\(id)/items?order=asc&limit=100")
        #expect(status == .ok, "\(list)")
        return (list["data"] as? [[String: Any]] ?? []).map { ($0["role"] ?? $0["type"]) as? String ?? "?" }
    }

    @Test func aConversationHoldsItsItemsAndEachResponseTakesItsTurn() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (created, conversation) = try await Self.send(
                client, .post, "/v1/conversations",
                #"{"metadata": {"topic": "counting"}, "items": [{"role": "user", "content": "one two three"}, "#
                    + #"{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "one two three"}]}]}"#)
            #expect(created == .ok && conversation["object"] as? String == "conversation", "\(conversation)")
            #expect(conversation["metadata"] as? [String: String] == ["topic": "counting"])
            let id = try #require(conversation["id"] as? String)
            #expect(id.hasPrefix("conv_"))
            let (_, first) = try await Self.send(client, .get, "/v1/conversations/\(id)/items?order=asc")
            let items = try #require(first["data"] as? [[String: Any]])
            #expect(items.map { $0["role"] as? String } == ["user", "assistant"])
            #expect(items.allSatisfy { ($0["id"] as? String)?.hasPrefix("msg_") == true && $0["status"] as? String == "completed" })

            func tokens(_ response: [String: Any]) -> Int? { (response["usage"] as? [String: Any])?["input_tokens"] as? Int }
            let (_, alone) = try await Self.send(client, .post, "/v1/responses", #"{"model": "scripted", "input": "four", "store": false}"#)
            let (answered, turn) = try await Self.send(
                client, .post, "/v1/responses", #"{"model": "scripted", "input": "four", "conversation": "\#(id)"}"#)
            #expect(answered == .ok, "\(turn)")
            // The conversation's two items (three words each, and a line each) come first.
            #expect(tokens(turn) == tokens(alone).map { $0 + 8 }, "\(turn) vs \(alone)")
            #expect((turn["conversation"] as? [String: Any])?["id"] as? String == id)
            #expect(try await Self.kinds(client, id) == ["user", "assistant", "user", "assistant"], "the turn is added")

            // Streamed, naming the conversation as an object: its turn is added once it completes.
            let streamed = try await client.execute(
                uri: "/v1/responses", method: .post, headers: .json,
                body: OpenAIRouteTests.body(#"{"model": "scripted", "input": "five", "conversation": {"id": "\#(id)"}, "stream": true}"#))
            #expect(String(buffer: streamed.body).contains("response.completed"))
            let kinds = try await Self.kinds(client, id)
            #expect(kinds == ["user", "assistant", "user", "assistant", "user", "assistant"], "\(kinds)")

            // Items added by hand; one sent again is refused, and one sent again with a response is read once.
            let (added, list) = try await Self.send(
                client, .post, "/v1/conversations/\(id)/items", #"{"items": [{"id": "msg_mine", "role": "user", "content": "six"}]}"#)
            #expect(added == .ok && (list["data"] as? [[String: Any]])?.first?["id"] as? String == "msg_mine", "\(list)")
            let (again, refusal) = try await Self.send(
                client, .post, "/v1/conversations/\(id)/items", #"{"items": [{"id": "msg_mine", "role": "user", "content": "six"}]}"#)
            #expect(again == .badRequest && (refusal["error"] as? [String: Any])?["param"] as? String == "items", "\(refusal)")
            let (_, item) = try await Self.send(client, .get, "/v1/conversations/\(id)/items/msg_mine")
            #expect(item["id"] as? String == "msg_mine" && item["role"] as? String == "user")
            let (removed, after) = try await Self.send(client, .delete, "/v1/conversations/\(id)/items/msg_mine")
            #expect(removed == .ok && after["id"] as? String == id, "the conversation is the answer: \(after)")
            let (gone, missing) = try await Self.send(client, .get, "/v1/conversations/\(id)/items/msg_mine")
            #expect(gone == .notFound && (missing["error"] as? [String: Any])?["code"] as? String == "item_not_found")

            // Pages, newest first by default.
            let (_, page) = try await Self.send(client, .get, "/v1/conversations/\(id)/items?limit=2")
            #expect((page["data"] as? [[String: Any]])?.map { $0["role"] as? String } == ["assistant", "user"])
            #expect(page["has_more"] as? Bool == true)
            let (_, rest) = try await Self.send(client, .get, "/v1/conversations/\(id)/items?after=\(page["last_id"] as? String ?? "")")
            #expect((rest["data"] as? [Any])?.count == 4 && rest["has_more"] as? Bool == false)
            #expect(try await Self.send(client, .get, "/v1/conversations/\(id)/items?after=msg_nope").0 == .badRequest)

            let (_, updated) = try await Self.send(client, .post, "/v1/conversations/\(id)", #"{"metadata": {"topic": "done"}}"#)
            #expect(updated["metadata"] as? [String: String] == ["topic": "done"])
            #expect(try await Self.send(client, .get, "/v1/conversations/\(id)").1["metadata"] as? [String: String] == ["topic": "done"])
            let (_, cleared) = try await Self.send(client, .post, "/v1/conversations/\(id)", #"{"metadata": null}"#)
            #expect(cleared["metadata"] as? [String: String] == [:], "null clears the metadata")

            let (deleted, receipt) = try await Self.send(client, .delete, "/v1/conversations/\(id)")
            #expect(deleted == .ok && receipt["deleted"] as? Bool == true && receipt["object"] as? String == "conversation.deleted")
            for (method, uri, body) in [
                (HTTPRequest.Method.get, "/v1/conversations/\(id)", nil), (.get, "/v1/conversations/\(id)/items", nil),
                (.get, "/v1/conversations/\(id)/items/msg_mine", nil), (.delete, "/v1/conversations/\(id)", nil),
                (.post, "/v1/responses", #"{"model": "scripted", "input": "seven", "conversation": "\#(id)"}"#),
            ] {
                let (status, answer) = try await Self.send(client, method, uri, body)
                #expect(status == .notFound, "\(method) \(uri)")
                #expect((answer["error"] as? [String: Any])?["code"] as? String == "conversation_not_found", "\(answer)")
            }
        }
    }

    @Test func oneResponseAtATimeIsMadeInAConversation() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 2))).checkedApplication()
        try await app.test(.router) { client in
            let id = try #require(try await Self.send(client, .post, "/v1/conversations", "{}").1["id"] as? String)
            let background = #"{"model": "scripted", "input": "one two three", "conversation": "\#(id)", "background": true}"#
            let (_, first) = try await Self.send(client, .post, "/v1/responses", background)
            let firstID = try #require(first["id"] as? String)
            _ = try await ResponseBackgroundTests.poll(client, firstID, while: ["queued"])
            let (locked, refusal) = try await Self.send(
                client, .post, "/v1/responses", #"{"model": "scripted", "input": "four", "conversation": "\#(id)"}"#)
            let error = refusal["error"] as? [String: Any]
            #expect(locked == .badRequest && error?["code"] as? String == "conversation_locked", "\(refusal)")
            #expect(error?["param"] as? String == "conversation")
            #expect(try await Self.send(client, .post, "/v1/responses/\(firstID)/cancel").1["status"] as? String == "cancelled")
            #expect(try await Self.kinds(client, id).isEmpty, "a cancelled response takes no turn")
            // Its claim let go, the next response is made.
            let (next, second) = try await Self.send(client, .post, "/v1/responses", background)
            #expect(next == .ok, "\(second)")
            _ = try await Self.send(client, .post, "/v1/responses/\(second["id"] as? String ?? "")/cancel")
        }
    }

    @Test func aBackgroundResponseHasTakenItsTurnOnceItReadsAsEnded() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime(adapter: ScriptedAdapter(tokenDelay: .milliseconds(5)))).checkedApplication()
        try await app.test(.router) { client in
            let id = try #require(try await Self.send(client, .post, "/v1/conversations", "{}").1["id"] as? String)
            let (_, made) = try await Self.send(
                client, .post, "/v1/responses", #"{"model": "scripted", "input": "one two", "conversation": "\#(id)", "background": true}"#)
            let ended = try await ResponseBackgroundTests.poll(client, made["id"] as? String ?? "")
            #expect(ended["status"] as? String == "completed")
            #expect(try await Self.kinds(client, id) == ["user", "assistant"], "the turn is there before the response reads as ended")
        }
    }

    @Test func aConversationMayBeMadeWithNoBody() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, conversation) = try await Self.send(client, .post, "/v1/conversations")
            #expect(status == .ok && conversation["metadata"] as? [String: String] == [:], "\(conversation)")
            let (_, list) = try await Self.send(client, .get, "/v1/conversations/\(conversation["id"] as? String ?? "")/items")
            #expect((list["data"] as? [Any])?.isEmpty == true && list["has_more"] as? Bool == false)
        }
    }

    static let twentyOne = "[" + Array(repeating: #"{"role": "user", "content": "x"}"#, count: 21).joined(separator: ", ") + "]"
    static let seventeen = "{" + (0..<17).map { #""k\#($0)": "v""# }.joined(separator: ", ") + "}"

    @Test(arguments: [
        ("/v1/conversations", #"{"items": \#(twentyOne)}"#, "items"),
        ("/v1/conversations", #"{"metadata": \#(seventeen)}"#, "metadata"),
        ("/v1/conversations", #"{"metadata": {"\#(String(repeating: "k", count: 65))": "v"}}"#, "metadata"),
        ("/v1/conversations", #"{"metadata": {"k": "\#(String(repeating: "v", count: 513))"}}"#, "metadata"),
        ("/v1/conversations", #"{"items": [{"role": "robot", "content": "x"}]}"#, "items"),
        (
            "/v1/conversations", #"{"items": [{"id": "a", "role": "user", "content": "x"}, {"id": "a", "role": "user", "content": "y"}]}"#,
            "items"
        ),
        ("/v1/conversations", #"{"items": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "[1]"}]}"#, "items"),
        ("{conversation}/items", #"{"items": []}"#, "items"),
        ("{conversation}", #"{}"#, "metadata"),
        (
            "{conversation}/items",
            #"{"items": [{"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64,!!!"}]}]}"#, "items"
        ),
        (
            "/v1/responses",
            #"{"model": "scripted", "input": [{"id": "a", "role": "user", "content": "x"}, {"id": "a", "role": "user", "content": "y"}]}"#,
            "input"
        ),
        ("/v1/responses", #"{"model": "scripted", "input": [{"role": "user", "content": "x", "status": "failed"}]}"#, "input"),
    ])
    func badRequestsAreRefusedNamingTheField(uri: String, body: String, param: String) async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime(name: "conversation-refused-\(param)")).checkedApplication()
        try await app.test(.router) { client in
            let (_, conversation) = try await Self.send(client, .post, "/v1/conversations", "{}")
            let path = uri.replacingOccurrences(of: "{conversation}", with: "/v1/conversations/\(conversation["id"] as? String ?? "")")
            let (status, answer) = try await Self.send(client, .post, path, body)
            #expect(status == .badRequest, "\(body): \(answer)")
            #expect((answer["error"] as? [String: Any])?["param"] as? String == param, "\(body): \(answer)")
        }
    }
}
