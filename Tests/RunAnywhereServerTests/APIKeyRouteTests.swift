import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereServer

/// Keys of the data folder's key store (`runanywhere keys`), in process against the scripted
/// engine: none lets everyone in on loopback; once one exists every route but `/health` needs one,
/// in every API family's error shape; scopes are enforced; a key revoked or created by another
/// process counts from the next request; the store never holds a key.
@Suite struct APIKeyRouteTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func keysGuardEveryFamilyOnceOneExists() async throws {
        let runtime = try scriptedRuntime()
        let store = APIKeyStore(dataDirectory: runtime.configuration.dataDirectory, logger: Self.logger)
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/models", method: .get) { #expect($0.status == .ok, "no key yet: open on loopback") }
            // The first key, made over HTTP while the server is open, as an admin would.
            let made = try await client.execute(
                uri: "/api/keys", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"name": "ops", "scopes": ["admin"]}"#))
            #expect(made.status == .created)
            let admin = try #require((try OpenAIRouteTests.json(made.body))["key"] as? String)
            for (body, param) in [
                (#"{"name": "k1", "requestsPerMinute": 1.5}"#, "requestsPerMinute"),
                (#"{"name": "k2", "requestsPerMinute": 1e20}"#, "requestsPerMinute"),
                (#"{"name": "k3", "account": "\#(String(repeating: "a", count: 65))"}"#, "account"),
            ] {
                try await client.execute(
                    uri: "/api/keys", method: .post, headers: [.contentType: "application/json", .authorization: "Bearer \(admin)"],
                    body: ByteBuffer(string: body)
                ) { response in
                    let error = try OpenAIRouteTests.error(response.body)
                    #expect(response.status == .badRequest && error["param"] as? String == param, "\(body): \(error)")
                }
            }
            let (reader, key) = try await store.create(name: "alice", account: "alice", scopes: [.inference])
            #expect(reader.account == "alice" && key.hasPrefix("ra_\(reader.id)_"))

            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
            for (uri, method) in [
                ("/v1/models", HTTPRequest.Method.get), ("/v1/messages", .post), ("/api/tags", .get), ("/api/settings", .get),
            ] {
                try await client.execute(
                    uri: uri, method: method, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}")
                ) {
                    #expect($0.status == .unauthorized, "\(method) \(uri) without a key: \($0.status)")
                }
            }
            try await client.execute(uri: "/v1/models", method: .get, headers: [.authorization: "Bearer \(key)"]) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/tags", method: .get, headers: [HTTPField.Name("x-api-key")!: key]) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/v1/models", method: .get, headers: [.authorization: "Bearer \(key)x"]) {
                #expect($0.status == .unauthorized, "a key one character off")
            }
            // Scopes: an inference key may not manage models nor keys; the admin key may.
            try await client.execute(uri: "/api/models/some-model", method: .delete, headers: [.authorization: "Bearer \(key)"]) {
                response in
                let error = try OpenAIRouteTests.error(response.body)
                #expect(response.status == .forbidden && error["code"] as? String == "insufficient_scope")
            }
            try await client.execute(uri: "/api/keys", method: .get, headers: [.authorization: "Bearer \(key)"]) {
                #expect($0.status == .forbidden)
            }
            // The same routes spelled otherwise need the same scope.
            for (uri, method) in [
                ("//api/keys", HTTPRequest.Method.get), ("/api//keys", .get), ("/api/keys/", .post), ("/api/settings/", .patch),
                ("/api/delete/", .delete), ("/api/copy", .post), ("/api/models/", .post),
            ] {
                try await client.execute(
                    uri: uri, method: method, headers: [.authorization: "Bearer \(key)", .contentType: "application/json"],
                    body: ByteBuffer(string: #"{"name": "escalated", "scopes": ["admin"], "source": "scripted", "destination": "copy"}"#)
                ) { response in
                    #expect(
                        response.status == .forbidden || response.status == .notFound,
                        "\(method) \(uri) with an inference key: \(response.status) \(String(buffer: response.body))")
                }
            }
            try await client.execute(uri: "/api/keys", method: .get, headers: [.authorization: "Bearer \(admin)"]) { response in
                #expect(response.status == .ok)
                let listed = try #require(try OpenAIRouteTests.json(response.body)["keys"] as? [[String: Any]])
                #expect(listed.compactMap { $0["name"] as? String } == ["ops", "alice"])
            }
            // Revoked by another process (the CLI's store): refused from the next request.
            #expect(try await store.revoke("alice"))
            try await client.execute(uri: "/v1/models", method: .get, headers: [.authorization: "Bearer \(key)"]) {
                #expect($0.status == .unauthorized, "a revoked key")
            }
            try await client.execute(uri: "/api/keys/ops", method: .delete, headers: [.authorization: "Bearer \(admin)"]) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: "/v1/models", method: .get) { #expect($0.status == .ok, "every key revoked: open again") }
        }
        let file = try Data(contentsOf: try #require(store.file))
        #expect(!file.isEmpty)
        for record in try await store.list() { #expect(record.revokedAt != nil) }
    }

    @Test func theStoreKeepsOnlyHashesAndRefusesBadKeys() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = APIKeyStore(dataDirectory: folder, logger: Self.logger)
        let (_, key) = try await store.create(name: "bob", account: "team", scopes: [.inference, .modelsManage])
        let bytes = try Data(contentsOf: try #require(store.file))
        let secret = try #require(key.split(separator: "_", maxSplits: 2).last)  // ra_ID_SECRET; the secret is base64url, "_" and all
        #expect(bytes.range(of: Data(secret.utf8)) == nil, "the file holds the key")
        let attributes = try FileManager.default.attributesOfItem(atPath: try #require(store.file).path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        await expectSDKError(.modelAlreadyExists, ["A key named 'bob' exists"]) {
            _ = try await store.create(name: "bob", account: "x", scopes: [.inference])
        }
        for name in [" ", "a\u{1B}[31mb"] {
            await expectSDKError(.invalidInput, ["1 to 64 printable characters"]) {
                _ = try await store.create(name: name, account: "x", scopes: [.inference])
            }
        }
        await expectSDKError(.invalidInput, ["account is 1 to 64 printable characters"]) {
            _ = try await store.create(name: "dave", account: String(repeating: "a", count: 65), scopes: [.inference])
        }
        await expectSDKError(.invalidInput, ["at least one scope"]) { _ = try await store.create(name: "carol", account: "x", scopes: []) }
        await expectSDKError(.invalidInput, ["names the server's own key"]) {
            _ = try await store.create(name: "server", account: "x", scopes: [.inference])
        }
        #expect(try await !store.revoke("nobody"))
        let ring = KeyRing(store: store, serverKey: "single")
        #expect(try await ring.holder(of: key) == .key(try #require(try await store.list().first)))
        #expect(try await ring.holder(of: "single") == .serverKey)
        #expect(try await ring.holder(of: "ra_0123456789abcdef_nope") == nil)
    }

    @Test func aKeyPastItsRateLimitIsAnswered429() async throws {
        let runtime = try scriptedRuntime()
        let store = APIKeyStore(dataDirectory: runtime.configuration.dataDirectory, logger: Self.logger)
        let (record, key) = try await store.create(name: "slow", account: "slow", scopes: [.inference], requestsPerMinute: 2)
        let listed = try await store.list().first
        #expect(listed?.id == record.id && listed?.requestsPerMinute == 2 && record.requestsPerMinute == 2)
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            for _ in 0..<2 {
                try await client.execute(uri: "/v1/models", method: .get, headers: [.authorization: "Bearer \(key)"]) {
                    #expect($0.status == .ok)
                }
            }
            let refused = try await client.execute(uri: "/v1/models", method: .get, headers: [.authorization: "Bearer \(key)"])
            let error = try OpenAIRouteTests.error(refused.body)
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] != nil)
            #expect(error["code"] as? String == "rate_limited" && (error["message"] as? String)?.contains("2 requests a minute") == true)
        }
        await expectSDKError(.invalidInput, ["1 to 1000000 requests a minute"]) {
            _ = try await store.create(name: "fast", account: "x", scopes: [.inference], requestsPerMinute: 0)
        }
    }

    /// A key's bucket holds a minute's requests and refills at its rate; the server's key has no limit.
    @Test func aBucketRefillsAtItsRate() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ring = KeyRing(store: APIKeyStore(dataDirectory: folder, logger: Self.logger), serverKey: "single")
        let record = APIKeyRecord(
            id: "0123456789abcdef", name: "x", account: "x", scopes: [.inference], requestsPerMinute: 60, createdAt: Date(), revokedAt: nil)
        let start = ContinuousClock.now
        for _ in 0..<60 { #expect(try await ring.admit(.key(record), now: start) == nil) }
        let wait = try #require(try await ring.admit(.key(record), now: start))
        #expect(abs(wait - 1) < 0.01, "\(wait) s")
        #expect(try await ring.admit(.key(record), now: start + .seconds(1)) == nil)
        #expect(try await ring.admit(.key(record), now: start + .seconds(1)) != nil)
        #expect(try await ring.admit(.serverKey, now: start) == nil)
    }

    /// The tokens of each key's requests, whole and streamed, are counted as its usage, in
    /// `/api/keys/usage` and `/metrics`.
    @Test func eachKeysUsageIsCounted() async throws {
        let runtime = try scriptedRuntime()
        let store = APIKeyStore(dataDirectory: runtime.configuration.dataDirectory, logger: Self.logger)
        let (_, alice) = try await store.create(name: "alice", account: "alice", scopes: [.inference])
        let (_, admin) = try await store.create(name: "ops", account: "ops", scopes: [.admin])
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            for stream in [false, true] {
                let response = try await client.execute(
                    uri: "/v1/chat/completions", method: .post,
                    headers: [.authorization: "Bearer \(alice)", .contentType: "application/json"],
                    body: ByteBuffer(
                        string: #"{"model": "scripted", "messages": [{"role": "user", "content": "one two three"}], "stream": \#(stream)}"#)
                )
                #expect(response.status == .ok)
            }
            let usage = try await client.execute(uri: "/api/keys/usage", method: .get, headers: [.authorization: "Bearer \(admin)"])
            let counts = try #require((try OpenAIRouteTests.json(usage.body)["keys"] as? [String: Any])?["alice"] as? [String: Any])
            #expect(counts["requests"] as? Int == 2, "\(counts)")
            #expect((counts["promptTokens"] as? Int ?? 0) > 0 && (counts["completionTokens"] as? Int ?? 0) >= 2, "\(counts)")
            let metrics = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(admin)"])
            #expect(String(buffer: metrics.body).contains(#"runanywhere_api_key_completion_tokens_total{key="alice"}"#))
        }
    }

    @Test func routesNeedTheScopeTheyChange() {
        let cases: [(HTTPRequest.Method, String, KeyScope)] = [
            (.post, "/v1/chat/completions", .inference), (.get, "/api/models", .inference), (.post, "/api/models", .modelsManage),
            (.post, "/api/models/x/pull", .modelsManage), (.delete, "/api/models/x", .modelsManage),
            (.post, "/api/models/x/load", .modelsManage),
            (.post, "/api/models/check", .inference), (.post, "/api/pull", .modelsManage), (.delete, "/api/delete", .modelsManage),
            (.get, "/api/keys", .admin), (.patch, "/api/settings", .admin), (.get, "/api/settings", .inference),
            (.put, "/api/environment", .admin), (.post, "/lora-adapters", .admin), (.post, "/api/benchmarks", .admin),
            (.post, "/api/benchmarks/1/export", .inference), (.post, "/api/conversations", .inference),
            (.post, "/api/copy", .modelsManage), (.post, "/api/create", .modelsManage), (.post, "/api/blobs/sha256:ab", .modelsManage),
            (.head, "/api/blobs/sha256:ab", .inference), (.post, "/api/show", .inference),
            // Spelled as the router still matches them.
            (.get, "//api/keys", .admin), (.get, "/api//keys", .admin), (.patch, "/api/settings/", .admin),
            (.delete, "/api/delete/", .modelsManage), (.post, "/api/%6Beys", .admin), (.post, "/api/models/", .modelsManage),
            // Route templates, as the middleware reads them.
            (.delete, "/api/models/{id}", .modelsManage), (.post, "/api/models/{id}/pull", .modelsManage),
        ]
        for (method, path, scope) in cases {
            #expect(KeyScope.required(method: method, path: path) == scope, "\(method) \(path)")
        }
    }
}
