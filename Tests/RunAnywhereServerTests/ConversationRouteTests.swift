import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// The conversations API in process, against the scripted engine (it answers with the words of
/// the last user message): create, list, search, rename, delete; answers streamed as `delta`
/// events then the saved message with its analytics; retries; one answer at a time.
@Suite struct ConversationRouteTests {
    static func create(_ client: some TestClientProtocol, title: String? = nil) async throws -> String {
        let body = title.map { #"{"title": "\#($0)"}"# } ?? "{}"
        return try await client.execute(uri: "/api/conversations", method: .post, headers: .json, body: ByteBuffer(string: body)) {
            response in
            #expect(response.status == .created)
            return try #require(try OpenAIRouteTests.json(response.body)["id"] as? String)
        }
    }

    @Test func conversationsAreKeptSearchedRenamedAndDeleted() async throws {
        let runtime = try scriptedRuntime()
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let first = try await Self.create(client, title: "Trip planning")
            try await Task.sleep(for: .milliseconds(20))
            let second = try await Self.create(client)
            try await client.execute(uri: "/api/conversations", method: .get) { response in
                let list = try #require(try OpenAIRouteTests.json(response.body)["conversations"] as? [[String: Any]])
                #expect(list.map { $0["id"] as? String } == [second, first], "newest first")
                #expect(list.last?["title"] as? String == "Trip planning" && list.first?["title"] as? String == Conversation.defaultTitle)
            }
            try await client.execute(uri: "/api/conversations?q=trip", method: .get) { response in
                let list = try #require(try OpenAIRouteTests.json(response.body)["conversations"] as? [[String: Any]])
                #expect(list.map { $0["id"] as? String } == [first])
            }
            try await client.execute(
                uri: "/api/conversations/\(first)", method: .patch, headers: .json, body: ByteBuffer(string: #"{"title": "Lisbon in May"}"#)
            ) { response in
                #expect(response.status == .ok)
                let renamed = try OpenAIRouteTests.json(response.body)
                #expect(renamed["title"] as? String == "Lisbon in May")
            }
            let saved = try ConversationStore(dataDirectory: runtime.configuration.dataDirectory).load(id: first)
            #expect(saved.title == "Lisbon in May", "in the files `runanywhere conversations` reads")
            try await client.execute(uri: "/api/conversations/\(second)", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/conversations/\(second)", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/conversations/\(first.prefix(4))", method: .get) {
                #expect($0.status == .notFound, "no prefixes over HTTP")
            }
            try await client.execute(uri: "/api/conversations/\(first)", method: .patch, headers: .json, body: ByteBuffer(string: "{}")) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/api/conversations/nope", method: .delete) { #expect($0.status == .notFound) }
        }
    }

    @Test func answersStreamThenAreSavedWithTheirAnalytics() async throws {
        let runtime = try scriptedRuntime()
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let id = try await Self.create(client, title: "Counting")
            let send = #"{"content": "one two three", "model": "scripted", "maxTokens": 16}"#
            try await client.execute(
                uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: ByteBuffer(string: send)
            ) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "text/event-stream")
                let events = try ModelCatalogRouteTests.events(response.body)
                let deltas = events.filter { $0.name == "delta" }.compactMap { $0.data["content"] as? String }
                #expect(deltas.joined() == "one two three")
                let message = try #require(events.last)
                #expect(
                    message.name == "message" && message.data["content"] as? String == "one two three"
                        && message.data["role"] as? String == "assistant")
                let analytics = try #require(message.data["analytics"] as? [String: Any])
                #expect(analytics["outputTokens"] as? Int == 3 && analytics["completionStatus"] as? String == "complete")
            }
            try await client.execute(
                uri: "/api/conversations/\(id)/retry", method: .post, headers: .json, body: ByteBuffer(string: #"{"model": "scripted"}"#)
            ) { response in
                let message = try #require(try ModelCatalogRouteTests.events(response.body).last)
                #expect(message.name == "message" && (message.data["analytics"] as? [String: Any])?["retryCount"] as? Int == 1)
            }
            try await client.execute(uri: "/api/conversations/\(id)", method: .get) { response in
                let conversation = try OpenAIRouteTests.json(response.body)
                let messages = try #require(conversation["messages"] as? [[String: Any]])
                #expect(messages.map { $0["role"] as? String } == ["user", "assistant"], "the retry replaced the answer")
                #expect(conversation["title"] as? String == "Counting", "a title given at creation is kept")
                #expect(conversation["analytics"] is [String: Any] && conversation["performanceSummary"] is [String: Any])
            }
            for (body, status) in [
                (#"{"model": "scripted"}"#, HTTPResponse.Status.badRequest), (#"{"content": "hi"}"#, .badRequest),
                (#"{"content": "hi", "model": "nope"}"#, .notFound), (#"{"content": "   ", "model": "scripted"}"#, .badRequest),
                (#"{"content": "hi", "model": "scripted", "temperature": 7}"#, .badRequest),
            ] {
                try await client.execute(
                    uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: ByteBuffer(string: body)
                ) { response in
                    #expect(response.status == status, "\(body)")
                }
            }
            try await client.execute(uri: "/api/conversations/nope/messages", method: .post, headers: .json, body: ByteBuffer(string: send))
            { #expect($0.status == .notFound) }
        }
    }

    /// Waits until the scripted model is answering a request (its answer has begun, and with
    /// `stallAfter` it goes on until it is stopped), however long a busy machine takes to get there.
    /// A minute at most: a test fails rather than hangs.
    static func untilAnswering(_ runtime: RunAnywhereRuntime) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while await runtime.loadedModels().first?.activeRequests ?? 0 == 0 {
            guard ContinuousClock.now < deadline else {
                Issue.record("the model never answered")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops the answer in conversation `id` once its request has reached the route (until then,
    /// stopping it is a 404), trying for a minute at most.
    static func stopAnswer(_ client: some TestClientProtocol, _ id: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await client.execute(uri: "/api/conversations/\(id)/answer", method: .delete).status == .notFound {
            guard ContinuousClock.now < deadline else {
                Issue.record("the answer in \(id) never streamed")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// A message too long for the model's context fails the answer as the request's fault: the
    /// stream's error is a 400's, `context_length_exceeded`, not a server error.
    @Test func aMessageTooLongForTheContextIsTheRequestsError() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let id = try await Self.create(client, title: "Long")
            let content = String(repeating: "word ", count: 3_000)  // the scripted model's context holds 2,048
            try await client.execute(
                uri: "/api/conversations/\(id)/messages", method: .post, headers: .json,
                body: ByteBuffer(string: #"{"content": "\#(content)", "model": "scripted"}"#)
            ) { response in
                let events = try ModelCatalogRouteTests.events(response.body)
                let error = try #require(events.first { $0.name == "error" }?.data["error"] as? [String: Any], "\(events)")
                #expect(
                    error["code"] as? String == "context_length_exceeded" && error["type"] as? String == "invalid_request_error", "\(error)"
                )
            }
        }
    }

    @Test func oneAnswerAtATimePerConversation() async throws {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1))
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let id = try await Self.create(client)
            let other = try await Self.create(client)
            let words = (1...200).map { "w\($0)" }.joined(separator: " ")
            let send = ByteBuffer(string: #"{"content": "\#(words)", "model": "scripted"}"#)
            async let long: HTTPResponse.Status = client.execute(
                uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: send
            ) { $0.status }
            try await Self.untilAnswering(runtime)
            try await client.execute(uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: send) { response in
                #expect(response.status == .conflict)
                let error = try OpenAIRouteTests.error(response.body)
                #expect(error["code"] as? String == "conversation_busy")
            }
            try await client.execute(
                uri: "/api/conversations/\(other)/messages", method: .post, headers: .json,
                body: ByteBuffer(string: #"{"content": "x", "model": "scripted"}"#)
            ) {
                #expect($0.status == .ok, "another conversation is answered meanwhile")
            }
            try await Self.stopAnswer(client, id)
            #expect(try await long == .ok)
            try await client.execute(
                uri: "/api/conversations/\(id)/messages", method: .post, headers: .json,
                body: ByteBuffer(string: #"{"content": "again", "model": "scripted"}"#)
            ) {
                #expect($0.status == .ok, "free again once the answer ended")
            }
        }
    }

    @Test func anAnswerIsStoppedAndSavedAsInterrupted() async throws {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1))
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let id = try await Self.create(client)
            try await client.execute(uri: "/api/conversations/\(id)/answer", method: .delete) { #expect($0.status == .notFound) }
            let words = (1...200).map { "w\($0)" }.joined(separator: " ")
            let send = ByteBuffer(string: #"{"content": "\#(words)", "model": "scripted"}"#)
            async let long = client.execute(uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: send) {
                String(buffer: $0.body)
            }
            try await Self.stopAnswer(client, id)
            let body = try await long
            let saved = try #require(body.components(separatedBy: "event: message\ndata: ").last?.components(separatedBy: "\n").first)
            let message = try OpenAIRouteTests.json(ByteBuffer(string: saved))
            let analytics = try #require(message["analytics"] as? [String: Any])
            #expect(analytics["wasInterrupted"] as? Bool == true, "\(body)")
            #expect((analytics["outputTokens"] as? Int ?? 999) < 200)
            try await client.execute(uri: "/api/conversations/\(id)", method: .get) { response in
                let messages = try #require(try OpenAIRouteTests.json(response.body)["messages"] as? [[String: Any]])
                #expect(messages.count == 2)
                #expect((messages.last?["analytics"] as? [String: Any])?["wasInterrupted"] as? Bool == true)
            }
            try await client.execute(uri: "/api/conversations/\(id)/export?format=md", method: .get) { response in
                #expect(response.headers[.contentType] == "text/markdown; charset=utf-8")
                #expect(response.headers[.contentDisposition]?.contains("conversation-") == true)
                let markdown = String(buffer: response.body)
                #expect(markdown.contains("## User\n\nw1 w2 w3") && markdown.contains(" • stopped_"), "\(markdown)")
            }
            try await client.execute(uri: "/api/conversations/\(id)/export?format=json", method: .get) { response in
                let exported = try OpenAIRouteTests.json(response.body)
                #expect(exported["id"] as? String == id)
            }
            try await client.execute(uri: "/api/conversations/\(id)/export?format=pdf", method: .get) { #expect($0.status == .badRequest) }
        }
    }

    /// Deleting a conversation stops the answer being written in it, and the answer's end does not
    /// save it again; an answer asked to stop before its first token stops once it starts.
    @Test func aConversationDeletedWhileAnsweredStopsItsAnswerAndStaysDeleted() async throws {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1))
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let id = try await Self.create(client)
            let send = ByteBuffer(string: #"{"content": "one two three", "model": "scripted"}"#)
            async let long = client.execute(uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: send) {
                String(buffer: $0.body)
            }
            try await Self.untilAnswering(runtime)
            try await client.execute(uri: "/api/conversations/\(id)", method: .delete) { #expect($0.status == .noContent) }
            let body = try await long
            #expect(body.contains("event: message") && body.contains(#""wasInterrupted":true"#), "\(body)")
            try await client.execute(uri: "/api/conversations/\(id)", method: .get) {
                #expect($0.status == .notFound, "the answer's end did not save it again")
            }
        }
    }
}
