import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereServer

/// Each key's account has its own conversations, stored responses and document collections: one
/// account can neither list nor read nor change nor delete another's, route by route, while its
/// own stay as they were.
@Suite struct AccountIsolationTests {
    /// Keys for the accounts alice and bob, made in `runtime`'s data folder.
    static func keys(_ runtime: RunAnywhereRuntime) async throws -> (alice: HTTPFields, bob: HTTPFields) {
        let store = APIKeyStore(dataDirectory: runtime.configuration.dataDirectory, logger: APIKeyRouteTests.logger)
        let (_, alice) = try await store.create(name: "alice", account: "alice", scopes: [.inference])
        let (_, bob) = try await store.create(name: "bob", account: "bob", scopes: [.inference])
        return (
            [.authorization: "Bearer \(alice)", .contentType: "application/json"],
            [.authorization: "Bearer \(bob)", .contentType: "application/json"]
        )
    }

    @Test func conversationsBelongToTheirAccount() async throws {
        let runtime = try scriptedRuntime()
        let (alice, bob) = try await Self.keys(runtime)
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let made = try await client.execute(
                uri: "/api/conversations", method: .post, headers: alice, body: ByteBuffer(string: #"{"title": "Alice's plans"}"#))
            #expect(made.status == .created)
            let id = try #require(try OpenAIRouteTests.json(made.body)["id"] as? String)
            let listed = try await client.execute(uri: "/api/conversations", method: .get, headers: bob)
            #expect(try #require(try OpenAIRouteTests.json(listed.body)["conversations"] as? [Any]).isEmpty, "bob lists alice's")
            let searched = try await client.execute(uri: "/api/conversations?q=plans", method: .get, headers: bob)
            #expect(try #require(try OpenAIRouteTests.json(searched.body)["conversations"] as? [Any]).isEmpty, "bob finds alice's")
            let attempts: [(String, HTTPRequest.Method, String)] = [
                ("/api/conversations/\(id)", .get, ""), ("/api/conversations/\(id)", .patch, #"{"title": "mine"}"#),
                ("/api/conversations/\(id)/export?format=json", .get, ""),
                ("/api/conversations/\(id)/messages", .post, #"{"content": "hi", "model": "scripted"}"#),
                ("/api/conversations/\(id)/retry", .post, #"{"model": "scripted"}"#), ("/api/conversations/\(id)/answer", .delete, ""),
                ("/api/conversations/\(id)", .delete, ""),
            ]
            for (uri, method, body) in attempts {
                try await client.execute(uri: uri, method: method, headers: bob, body: ByteBuffer(string: body)) {
                    #expect($0.status == .notFound, "bob's \(method) \(uri): \($0.status)")
                }
            }
            let kept = try await client.execute(uri: "/api/conversations/\(id)", method: .get, headers: alice)
            #expect(kept.status == .ok)
            #expect(try OpenAIRouteTests.json(kept.body)["title"] as? String == "Alice's plans", "bob changed alice's")
            let own = try await client.execute(uri: "/api/conversations", method: .get, headers: alice)
            #expect(try #require(try OpenAIRouteTests.json(own.body)["conversations"] as? [Any]).count == 1)
        }
    }

    /// An account of 64 characters of another script, whose folder name would pass 255 bytes
    /// written out, keeps its conversations and collections as any other does.
    @Test func anAccountWithALongNameHasItsData() async throws {
        let runtime = try scriptedRuntime()
        let store = APIKeyStore(dataDirectory: runtime.configuration.dataDirectory, logger: APIKeyRouteTests.logger)
        let (_, key) = try await store.create(name: "long", account: String(repeating: "é", count: 64), scopes: [.inference])
        let headers: HTTPFields = [.authorization: "Bearer \(key)", .contentType: "application/json"]
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let made = try await client.execute(
                uri: "/api/conversations", method: .post, headers: headers, body: ByteBuffer(string: #"{"title": "t"}"#))
            #expect(made.status == .created, "\(String(buffer: made.body))")
            let listed = try await client.execute(uri: "/api/conversations", method: .get, headers: headers)
            #expect(try #require(try OpenAIRouteTests.json(listed.body)["conversations"] as? [Any]).count == 1)
            let collections = try await client.execute(uri: "/api/rag/collections", method: .get, headers: headers)
            #expect(collections.status == .ok, "\(String(buffer: collections.body))")
        }
    }

    @Test func storedResponsesBelongToTheirAccount() async throws {
        let runtime = try scriptedRuntime()
        let (alice, bob) = try await Self.keys(runtime)
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let made = try await client.execute(
                uri: "/v1/responses", method: .post, headers: alice, body: ByteBuffer(string: #"{"model": "scripted", "input": "one two"}"#)
            )
            #expect(made.status == .ok)
            let id = try #require(try OpenAIRouteTests.json(made.body)["id"] as? String)
            for (uri, method) in [
                ("/v1/responses/\(id)", HTTPRequest.Method.get), ("/v1/responses/\(id)/input_items", .get),
                ("/v1/responses/\(id)/cancel", .post), ("/v1/responses/\(id)?stream=true", .get), ("/v1/responses/\(id)", .delete),
            ] {
                try await client.execute(uri: uri, method: method, headers: bob) {
                    #expect($0.status == .notFound, "bob's \(method) \(uri)")
                }
            }
            let continued = try await client.execute(
                uri: "/v1/responses", method: .post, headers: bob,
                body: ByteBuffer(string: #"{"model": "scripted", "input": "three", "previous_response_id": "\#(id)"}"#))
            #expect(continued.status == .notFound, "bob continued alice's response")
            try await client.execute(uri: "/v1/responses/\(id)", method: .get, headers: alice) { #expect($0.status == .ok) }
        }
    }

    @Test func conversationsOfTheConversationsAPIBelongToTheirAccount() async throws {
        let runtime = try scriptedRuntime()
        let (alice, bob) = try await Self.keys(runtime)
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let made = try await client.execute(
                uri: "/v1/conversations", method: .post, headers: alice,
                body: ByteBuffer(string: #"{"items": [{"id": "msg_a", "role": "user", "content": "one two"}]}"#))
            #expect(made.status == .ok)
            let id = try #require(try OpenAIRouteTests.json(made.body)["id"] as? String)
            for (uri, method, body) in [
                ("/v1/conversations/\(id)", HTTPRequest.Method.get, nil), ("/v1/conversations/\(id)", .post, #"{"metadata": {}}"#),
                ("/v1/conversations/\(id)/items", .get, nil),
                ("/v1/conversations/\(id)/items", .post, #"{"items": [{"role": "user", "content": "x"}]}"#),
                ("/v1/conversations/\(id)/items/msg_a", .get, nil), ("/v1/conversations/\(id)/items/msg_a", .delete, nil),
                ("/v1/conversations/\(id)", .delete, nil),
                ("/v1/responses", .post, #"{"model": "scripted", "input": "three", "conversation": "\#(id)"}"#),
            ] {
                try await client.execute(uri: uri, method: method, headers: bob, body: body.map { ByteBuffer(string: $0) }) {
                    #expect($0.status == .notFound, "bob's \(method) \(uri)")
                }
            }
            try await client.execute(uri: "/v1/conversations/\(id)/items/msg_a", method: .get, headers: alice) { #expect($0.status == .ok) }
        }
    }
}
