import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// HEAD answered as GET would be, without the body, where no route answers HEAD itself.
@Suite struct HeadRequestTests {
    @Test func headIsAnsweredAsGetWithoutTheBody() async throws {
        let server = OpenAIRouteTests.server(try scriptedRuntime())
        let app = Application(router: server.router(), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            for path in ["/api/version", "/api/tags", "/health", "/v1/models"] {
                let get = try await client.execute(uri: path, method: .get) { ($0.status, $0.headers[.contentType]) }
                try await client.execute(uri: path, method: .head) { answer in
                    #expect(answer.status == get.0 && get.0 == .ok && answer.headers[.contentType] == get.1, "\(path)")
                    #expect(answer.body.readableBytes == 0, "\(path)")
                }
            }
            // Unknown paths stay unknown, and a route's own HEAD answers itself (an unknown blob: 404).
            try await client.execute(uri: "/nowhere", method: .head) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/blobs/sha256:\(String(repeating: "0", count: 64))", method: .head) {
                #expect($0.status == .notFound)
            }
            // Only HEAD is answered as GET: a POST route's path asked with another method is not.
            try await client.execute(uri: "/api/chat", method: .put) { #expect($0.status != .ok) }
        }
    }
}
