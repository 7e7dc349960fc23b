import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereServer

/// The Responses API's background mode in process, on the scripted engine: a response queued at
/// once and polled to its end, cancelled while it is made (and cancelled again), its events
/// streamed and read again after the last one a client had, and the responses a stopped server
/// left unfinished found failed.
@Suite(.inProcessLane) struct ResponseBackgroundTests {
    typealias Client = any TestClientProtocol

    static func post(_ client: Client, _ fields: String) async throws -> (status: HTTPResponse.Status, body: ByteBuffer) {
        let response = try await client.execute(
            uri: "/v1/responses", method: .post, headers: .json, body: OpenAIRouteTests.body(#"{"model": "scripted", \#(fields)}"#))
        return (response.status, response.body)
    }

    static func get(_ client: Client, _ uri: String, method: HTTPRequest.Method = .get) async throws -> [String: Any] {
        let response = try await client.execute(uri: uri, method: method)
        #expect(response.status == .ok, "\(uri): \(String(buffer: response.body))")
        return try OpenAIRouteTests.json(response.body)
    }

    /// Polls the response `id` until its status is not one of `waiting`.
    static func poll(_ client: Client, _ id: String, while waiting: Set<String> = ["queued", "in_progress"]) async throws -> [String: Any] {
        while true {
            let response = try await get(client, "/v1/responses/\(id)")
            guard let status = response["status"] as? String, waiting.contains(status) else { return response }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func text(_ response: [String: Any]) -> String? {
        let message = (response["output"] as? [[String: Any]])?.first { $0["type"] as? String == "message" }
        return ((message?["content"] as? [[String: Any]])?.first)?["text"] as? String
    }

    @Test func aBackgroundResponseIsQueuedAtOnceAndPolledToItsEnd() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime(adapter: ScriptedAdapter(tokenDelay: .milliseconds(20)))).checkedApplication()
        try await app.test(.router) { client in
            let (status, body) = try await Self.post(client, #""input": "one two three four", "background": true"#)
            #expect(status == .ok, "\(String(buffer: body))")
            let queued = try OpenAIRouteTests.json(body)
            #expect(queued["status"] as? String == "queued" && queued["background"] as? Bool == true, "\(queued)")
            #expect((queued["output"] as? [Any])?.isEmpty == true)
            let id = try #require(queued["id"] as? String)
            let done = try await Self.poll(client, id)
            #expect(done["status"] as? String == "completed" && done["background"] as? Bool == true, "\(done)")
            #expect(Self.text(done) == "one two three four")
            #expect((done["usage"] as? [String: Any])?["output_tokens"] as? Int == 4)
            // Cancelling one that ended answers it as it is.
            let cancelled = try await Self.get(client, "/v1/responses/\(id)/cancel", method: .post)
            #expect(cancelled["status"] as? String == "completed")
            // A response made in the foreground is not cancelled, and an unknown one is a 404.
            let foreground = try OpenAIRouteTests.json(try await Self.post(client, #""input": "hi""#).body)
            let refused = try await client.execute(uri: "/v1/responses/\(foreground["id"] as? String ?? "")/cancel", method: .post)
            #expect(refused.status == .badRequest && foreground["background"] as? Bool == false)
            #expect(try await client.execute(uri: "/v1/responses/resp_nope/cancel", method: .post).status == .notFound)
            let unknown = try await client.execute(
                uri: "/v1/responses", method: .post, headers: .json,
                body: OpenAIRouteTests.body(#"{"model": "nope", "input": "hi", "background": true}"#))
            #expect(unknown.status == .notFound, "an unknown model is the request's error: \(String(buffer: unknown.body))")
        }
    }

    @Test func aBackgroundResponseIsCancelledWhileItIsMadeKeepingWhatItWrote() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 2))).checkedApplication()
        try await app.test(.router) { client in
            let queued = try OpenAIRouteTests.json(try await Self.post(client, #""input": "one two three four", "background": true"#).body)
            let id = try #require(queued["id"] as? String)
            let started = try await Self.poll(client, id, while: ["queued"])
            #expect(started["status"] as? String == "in_progress")
            let cancelled = try await Self.get(client, "/v1/responses/\(id)/cancel", method: .post)
            #expect(cancelled["status"] as? String == "cancelled", "\(cancelled)")
            #expect(Self.text(cancelled) == "one two", "what it wrote before the cancel is kept: \(cancelled)")
            #expect(try await Self.get(client, "/v1/responses/\(id)")["status"] as? String == "cancelled")
            #expect(try await Self.get(client, "/v1/responses/\(id)/cancel", method: .post)["status"] as? String == "cancelled")
        }
    }

    @Test func aBackgroundResponseDeletedWhileItIsMadeStopsAndStaysDeleted() async throws {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 2))
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let queued = try OpenAIRouteTests.json(try await Self.post(client, #""input": "one two three four", "background": true"#).body)
            let id = try #require(queued["id"] as? String)
            #expect(try await Self.poll(client, id, while: ["queued"])["status"] as? String == "in_progress")
            let deleted = try await Self.get(client, "/v1/responses/\(id)", method: .delete)
            #expect(deleted["deleted"] as? Bool == true)
            // Its generation was stopped (the stalled engine would hold it for minutes), and its end stored nothing again.
            #expect(await runtime.loadedModels().allSatisfy { $0.activeRequests == 0 })
            #expect(try await client.execute(uri: "/v1/responses/\(id)", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/v1/responses/\(id)/cancel", method: .post).status == .notFound)
        }
    }

    @Test func aBackgroundStreamIsReadAgainAfterTheLastEventAClientHad() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime(adapter: ScriptedAdapter(tokenDelay: .milliseconds(10)))).checkedApplication()
        try await app.test(.router) { client in
            let (status, body) = try await Self.post(client, #""input": "one two three", "background": true, "stream": true"#)
            #expect(status == .ok)
            let events = try ModelCatalogRouteTests.events(body)
            #expect(
                events.map { $0.name ?? "" }.filter { !$0.hasSuffix(".delta") } == [
                    "response.created", "response.queued", "response.in_progress", "response.output_item.added",
                    "response.content_part.added", "response.output_text.done", "response.content_part.done", "response.output_item.done",
                    "response.completed",
                ])
            #expect(events.map { $0.data["sequence_number"] as? Int } == Array(0..<events.count))
            let id = try #require((events.first?.data["response"] as? [String: Any])?["id"] as? String)
            #expect((events.first?.data["response"] as? [String: Any])?["status"] as? String == "queued")

            // Read again after the fourth event: the same events from the fifth on.
            let again = try await client.execute(uri: "/v1/responses/\(id)?stream=true&starting_after=3", method: .get)
            #expect(again.status == .ok && again.headers[.contentType] == "text/event-stream")
            let rest = try ModelCatalogRouteTests.events(again.body)
            #expect(rest.map { $0.data["sequence_number"] as? Int } == Array(4..<events.count))
            #expect(rest.map(\.name) == events.dropFirst(4).map(\.name))
            let all = try ModelCatalogRouteTests.events(try await client.execute(uri: "/v1/responses/\(id)?stream=true", method: .get).body)
            #expect(all.count == events.count)
            #expect(try await Self.get(client, "/v1/responses/\(id)")["status"] as? String == "completed")

            // Only a background response's events are kept.
            let foreground = try OpenAIRouteTests.json(try await Self.post(client, #""input": "hi""#).body)
            let refused = try await client.execute(uri: "/v1/responses/\(foreground["id"] as? String ?? "")?stream=true", method: .get)
            #expect(refused.status == .badRequest)
            #expect(try OpenAIRouteTests.error(refused.body)["param"] as? String == "stream")
            for bad in ["stream=maybe", "stream=true&starting_after=x"] {
                #expect(try await client.execute(uri: "/v1/responses/\(id)?\(bad)", method: .get).status == .badRequest, "\(bad)")
            }
        }
    }

    /// A stopping server ends what it makes as failed and stored so; a response another server
    /// left queued or in progress (it stopped without ending it) is found failed the same way.
    @Test func responsesAStoppedServerLeftUnfinishedAreFoundFailed() async throws {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1))
        let server = OpenAIRouteTests.server(runtime)
        let app = server.checkedApplication()
        try await app.test(.router) { client in
            let queued = try OpenAIRouteTests.json(try await Self.post(client, #""input": "one two", "background": true"#).body)
            let id = try #require(queued["id"] as? String)
            _ = try await Self.poll(client, id, while: ["queued"])
            await server.background.stopAll()
            let stopped = try await Self.get(client, "/v1/responses/\(id)")
            #expect(stopped["status"] as? String == "failed", "\(stopped)")
            #expect((stopped["error"] as? [String: Any])?["code"] as? String == "server_stopped")
            #expect(Self.text(stopped) == "one")
            let refused = try await Self.post(client, #""input": "one two", "background": true"#)
            #expect(refused.status == .serviceUnavailable, "a stopping server starts no more: \(String(buffer: refused.body))")

            // Left in progress by a server that is gone: stored so, with no claim on it.
            let request = try JSONDecoder().decode(
                ResponseRequest.self, from: Data(#"{"model": "scripted", "input": "hi", "background": true}"#.utf8))
            var orphan = ResponseObject(id: ResponseItem.newID("resp"), request: request, ordered: nil)
            orphan.status = "in_progress"
            let store = ResponseStore(dataDirectory: runtime.configuration.dataDirectory, logger: Logger(label: "test"))
            try await store.save(orphan, input: request.input)
            let found = try await Self.get(client, "/v1/responses/\(orphan.id)")
            #expect(found["status"] as? String == "failed" && (found["error"] as? [String: Any])?["code"] as? String == "server_stopped")
            #expect(try await store.find(orphan.id)?.response.status == "failed", "and stored so")
        }
    }
}
