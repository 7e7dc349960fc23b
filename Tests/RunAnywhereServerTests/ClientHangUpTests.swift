import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereServer

/// A client that hangs up on a request, streamed or not: its generation is cancelled, not made to
/// the end for nobody while it holds its model's slot.
@Suite struct ClientHangUpTests {
    @Test(arguments: ["/v1/chat/completions", "/v1/messages", "/api/generate"])
    func aGenerationWhoseClientHangsUpIsCancelled(path: String) async throws {
        // The scripted engine answers with the prompt's words, one each 200 ms: two minutes here.
        let words = (1...600).map { "w\($0)" }.joined(separator: " ")
        let body =
            path == "/api/generate"
            ? #"{"model": "scripted", "prompt": "\#(words)", "stream": false}"#
            : #"{"model": "scripted", "max_tokens": 1000, "messages": [{"role": "user", "content": "\#(words)"}]}"#
        try await Self.expectCancelledOnHangUp(
            ScriptedAdapter(tokenDelay: .milliseconds(200)), posting: body, to: path,
            "the generation ended once its client hung up, long before its two minutes")
    }

    /// A streamed answer whose client hangs up before anything is written to it (here the engine
    /// writes no token until it is cancelled, as a long prompt being read does): it is cancelled
    /// then, not at a next write that may never come.
    @Test(arguments: ["/v1/chat/completions", "/v1/messages", "/api/generate"])
    func aStreamWhoseClientHangsUpBeforeItsFirstTokenIsCancelled(path: String) async throws {
        let body =
            path == "/api/generate"
            ? #"{"model": "scripted", "prompt": "one two three"}"#
            : #"{"model": "scripted", "max_tokens": 10, "stream": true, "messages": [{"role": "user", "content": "one two three"}]}"#
        try await Self.expectCancelledOnHangUp(
            ScriptedAdapter(stallAfter: 0), posting: body, to: path, "the stream ended once its client hung up, with no token ever written")
    }

    /// Posts `body` to `path` of a live server on the scripted engine `adapter` (the server as
    /// `serve` runs it: the connections' own handling is what sees a client leave), hangs up once
    /// the generation has started, and expects it to end.
    static func expectCancelledOnHangUp(_ adapter: ScriptedAdapter, posting body: String, to path: String, _ why: Comment) async throws {
        let runtime = try scriptedRuntime(adapter: adapter)
        let app = OpenAIRouteTests.server(runtime).application()
        try await app.test(.live) { client in
            try await hangUp(on: try #require(client.port), posting: body, to: path) {
                let started = try await activeRequests(runtime, becomes: 1)
                #expect(started, "the generation started")
            }
            let ended = try await activeRequests(runtime, becomes: 0)
            #expect(ended, why)
        }
    }

    /// Sends a request posting `body` to `path` of the server at `port`, and closes the connection
    /// once `ready` returns.
    static func hangUp(on port: Int, posting body: String, to path: String, once ready: () async throws -> Void) async throws {
        let request =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
            + "anthropic-version: 2023-06-01\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        try await RawConnection.hangUp(after: Array(request.utf8), port: port, once: ready)
    }

    /// A conversation's answer whose client hangs up mid-stream (the web app's page reloaded): it
    /// is stopped then and saved as interrupted, not made to the end for nobody and saved as
    /// complete.
    @Test func aConversationsAnswerWhoseClientHangsUpIsSavedAsInterrupted() async throws {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1))
        let app = OpenAIRouteTests.server(runtime).application()
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let id = try await ConversationRouteTests.create(client)
            try await Self.hangUp(
                on: port, posting: #"{"model": "scripted", "content": "one two three"}"#, to: "/api/conversations/\(id)/messages"
            ) {
                try await ConversationRouteTests.untilAnswering(runtime)
            }
            var status: String?
            let deadline = ContinuousClock.now + .seconds(60)
            while status == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                let conversation = try await client.execute(uri: "/api/conversations/\(id)", method: .get) {
                    try OpenAIRouteTests.json($0.body)
                }
                let messages = conversation["messages"] as? [[String: Any]] ?? []
                status = (messages.last?["analytics"] as? [String: Any])?["completionStatus"] as? String
            }
            #expect(status == "interrupted", "the answer was saved as \(status ?? "nothing within a minute")")
        }
    }

    /// Whether the scripted model's running requests become `count` within a minute (else they
    /// never will: a stalled answer runs until cancelled).
    static func activeRequests(_ runtime: RunAnywhereRuntime, becomes count: Int) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if await runtime.loadedModels().first(where: { $0.modelId == "scripted" })?.activeRequests == count { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
