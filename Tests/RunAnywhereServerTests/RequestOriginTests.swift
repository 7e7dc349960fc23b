import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// A web page on another site can neither drive the server nor read it (issue 38): a foreign
/// `Origin` or `Host` is refused with a 403 before any work, bodies that are not JSON with a 415;
/// the web app's own requests, curl's and the official clients' (no `Origin`) pass.
@Suite struct RequestOriginTests {
    static let policy = RequestOriginPolicy(boundHost: "127.0.0.1", allowedOrigins: ["http://localhost:3000"])

    @Test func hostsThatNameTheServerPassAndOthersAreRefused() {
        for host in [
            "127.0.0.1:8080", "127.0.0.1", "localhost:8080", "LOCALHOST", "localhost.", "app.localhost:8080", "[::1]:8080", "127.1.2.3:80",
        ] {
            #expect(Self.policy.refusal(host: host, origin: nil) == nil, "\(host)")
        }
        for host in [
            "evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example", "192.168.1.5:8080",
            "[2001:db8::1]:8080", "",
        ] {
            #expect(Self.policy.refusal(host: host, origin: nil) == .host(host), "\(host)")
        }
        #expect(Self.policy.refusal(host: nil, origin: nil) == nil, "HTTP/1.0 tools send no Host; no browser does that")
        let everywhere = RequestOriginPolicy(boundHost: "0.0.0.0", allowedHosts: ["ai.lan"])
        #expect(everywhere.refusal(host: "192.168.1.5:8080", origin: nil) == nil, "bound to every interface: any address")
        #expect(everywhere.refusal(host: "ai.lan:8080", origin: nil) == nil, "--allowed-host")
        #expect(everywhere.refusal(host: "evil.example", origin: nil) == .host("evil.example"), "a name still has to be allowed")
        #expect(RequestOriginPolicy(boundHost: "127.0.0.1", allowedHosts: ["*"]).refusal(host: "evil.example", origin: nil) == nil)
    }

    @Test func onlyTheServersOwnPageAndListedOriginsPass() {
        #expect(Self.policy.refusal(host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080") == nil, "the web app itself")
        #expect(Self.policy.refusal(host: "localhost", origin: "http://localhost:80") == nil, "the default port is the same origin")
        #expect(Self.policy.refusal(host: "127.0.0.1:8080", origin: "http://localhost:3000") == nil, "--cors")
        for origin in ["http://evil.example", "http://127.0.0.1:9999", "https://127.0.0.1:8080", "null", "http://localhost:3001"] {
            #expect(Self.policy.refusal(host: "127.0.0.1:8080", origin: origin) == .origin(origin), "\(origin)")
        }
        #expect(
            Self.policy.refusal(host: "127.0.0.1:8080", origin: nil, fetchSite: "cross-site", fetchMode: "no-cors") == .crossSite,
            "an <img> or <script> tag")
        #expect(
            Self.policy.refusal(host: "127.0.0.1:8080", origin: nil, fetchSite: "cross-site", fetchMode: "navigate") == nil,
            "a link to the web app")
        #expect(Self.policy.refusal(host: "127.0.0.1:8080", origin: nil, fetchSite: "same-origin", fetchMode: "cors") == nil)
    }

    /// The request the issue found: a chat completion sent as `text/plain` from a foreign page.
    @Test func aForeignPageIsRefusedBeforeAnyWork() async throws {
        let runtime = try scriptedRuntime()
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        let chat = ByteBuffer(string: #"{"model": "scripted", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}"#)
        try await app.test(.router) { client in
            let foreign: HTTPFields = [.origin: "http://evil.example", .contentType: "text/plain"]
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: foreign, body: chat) { response in
                #expect(response.status == .forbidden)
                let error = try OpenAIRouteTests.error(response.body)
                #expect(error["code"] as? String == "origin_not_allowed" && error["type"] as? String == "permission_error")
            }
            for (method, uri) in [
                (HTTPRequest.Method.get, "/api/settings"), (.get, "/api/conversations"), (.options, "/v1/chat/completions"), (.get, "/"),
            ] {
                try await client.execute(uri: uri, method: method, headers: [.origin: "http://evil.example"]) {
                    #expect($0.status == .forbidden, "\(method) \(uri)")
                }
            }
            try await client.execute(
                uri: "/v1/chat/completions", method: .post, headers: [.origin: "http://localhost", .contentType: "application/json"],
                body: chat
            ) {
                #expect($0.status == .ok, "the web app's own origin")
            }
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: chat) {
                #expect($0.status == .ok, "curl and the official clients")
            }
        }
    }

    @Test func routesThatTakeJSONRefuseOtherBodies() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        let chat = ByteBuffer(string: #"{"model": "scripted", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}"#)
        try await app.test(.router) { client in
            for type in [
                "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                "application/jsonx",
            ] {
                try await client.execute(uri: "/v1/chat/completions", method: .post, headers: [.contentType: type], body: chat) {
                    response in
                    #expect(response.status == .unsupportedMediaType, "\(type)")
                    let error = try OpenAIRouteTests.error(response.body)
                    #expect(error["code"] as? String == "unsupported_media_type")
                }
            }
            try await client.execute(uri: "/v1/chat/completions", method: .post, body: chat) {
                #expect($0.status == .unsupportedMediaType, "no type at all")
            }
            try await client.execute(
                uri: "/api/settings", method: .patch, headers: [.contentType: "text/plain"], body: ByteBuffer(string: #"{"threads": 1}"#)
            ) {
                #expect($0.status == .unsupportedMediaType)
            }
            try await client.execute(
                uri: "/api/models/scripted/load", method: .post, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "{}")
            ) {
                #expect($0.status == .unsupportedMediaType, "an optional body, when sent, is JSON too")
            }
            for type in ["application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json"] {
                try await client.execute(uri: "/v1/chat/completions", method: .post, headers: [.contentType: type], body: chat) {
                    #expect($0.status == .ok, "\(type)")
                }
            }
        }
    }

    /// DNS rebinding: a page whose own name was made to resolve to 127.0.0.1 sends its name as
    /// `Host`; the server must not answer it, whatever the route.
    @Test func aRequestNamingAnotherHostIsRefused() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await TestClient.withClient(host: "127.0.0.1", port: port) { raw in
                for uri in ["/api/settings", "/v1/models", "/", "/openapi.json"] {
                    let refused = try await raw.execute(.init(uri, method: .get, authority: "evil.example:\(port)"))
                    #expect(refused.status == .forbidden, "\(uri)")
                    #expect(refused.body.map { String(buffer: $0) }?.contains("host_not_allowed") == true, "\(uri)")
                }
                let own = try await raw.execute(.init("/api/settings", method: .get, authority: "127.0.0.1:\(port)"))
                #expect(own.status == .ok)
                let health = try await raw.execute(.init("/health", method: .get, authority: "localhost:\(port)"))
                #expect(health.status == .ok)
            }
        }
    }
}
