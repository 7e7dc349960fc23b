import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// The model-management API with Hugging Face references (`hf.co/OWNER/REPO:QUANT`) against
/// ``LoopbackHub``, a loopback server answering as the Hub API documents (the real hub cannot be
/// reached from the test machines): checked and added by reference, pulled by a reference not
/// yet registered, and addressed by its id percent-encoded in paths. No model is loaded.
struct ModelReferenceRouteTests {
    @Test func aReferenceIsAddedPulledAndDeleted() async throws {
        let hub = try await LoopbackHub.start()
        defer { Task { try? await hub.shutdown() } }
        let runtime = try scriptedRuntime()
        runtime.providers.register(HuggingFaceProvider(endpoint: hub.endpoint, token: LoopbackHub.token))
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let check = #"{"url": "hf.co/TestOrg/Tiny-GGUF:q8_0", "category": "language"}"#
            try await client.execute(uri: "/api/models/check", method: .post, headers: .json, body: ByteBuffer(string: check)) { response in
                let result = try OpenAIRouteTests.json(response.body)
                #expect((result["problems"] as? [Any])?.isEmpty == true && result["detectedFormat"] as? String == "gguf")
                #expect((result["model"] as? [String: Any])?["id"] as? String == "hf.co/TestOrg/Tiny-GGUF:Q8_0")
            }
            let id = try await client.execute(uri: "/api/models", method: .post, headers: .json, body: ByteBuffer(string: check)) {
                response in
                #expect(response.status == .created)
                return try #require((try OpenAIRouteTests.json(response.body)["model"] as? [String: Any])?["id"] as? String)
            }
            try await client.execute(uri: "/api/models", method: .post, headers: .json, body: ByteBuffer(string: check)) {
                #expect($0.status == .conflict)
            }
            let path = try #require(id.addingPercentEncoding(withAllowedCharacters: .alphanumerics))  // as encodeURIComponent writes it
            try await client.execute(uri: "/api/models/\(path)/pull", method: .post) { response in
                let events = try ModelCatalogRouteTests.events(response.body)
                #expect(events.last?.name == "done" && events.last?.data["installed"] as? Bool == true, "\(events.map(\.data))")
            }
            try await client.execute(uri: "/api/models/\(path)/gguf", method: .get) { response in
                let metadata = try OpenAIRouteTests.json(response.body)
                #expect(response.status == .ok && metadata["name"] as? String == "Tiny Test Llama")
            }
            try await client.execute(uri: "/api/models/\(path)", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/models/\(path)", method: .get) { #expect($0.status == .notFound) }

            // Pulling a reference not registered yet registers it first.
            let fresh = try #require("hf.co/TestOrg/Private-GGUF:Q4_K_M".addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            try await client.execute(uri: "/api/models/\(fresh)/pull", method: .post) { response in
                let events = try ModelCatalogRouteTests.events(response.body)
                #expect(events.last?.name == "done", "\(events.map(\.data))")
                #expect((events.last?.data["model"] as? [String: Any])?["sha256"] as? String == LoopbackHub.sha256(LoopbackHub.q4))
            }
        }
        #expect(hub.cdn.requests.allSatisfy { $0.authorization == nil }, "the token never reaches the CDN")
    }

    @Test func aReferenceThatCannotBeAddedNamesItsField() async throws {
        let hub = try await LoopbackHub.start()
        defer { Task { try? await hub.shutdown() } }
        let runtime = try scriptedRuntime()
        runtime.providers.register(HuggingFaceProvider(endpoint: hub.endpoint))
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            for (body, param, fragment) in [
                (#"{"url": "hf.co/TestOrg/Private-GGUF", "category": "language"}"#, "url", "token is needed"),
                (#"{"url": "hf.co/TestOrg/Tiny-GGUF:Q2_K", "category": "language"}"#, "url", "not supported"),
                (#"{"url": "hf.co/TestOrg", "category": "language"}"#, "url", "hf.co/OWNER/REPO:QUANT"),
                (
                    #"{"url": "hf.co/TestOrg/Tiny-GGUF", "category": "language", "sha256": "\#(String(repeating: "a", count: 64))"}"#,
                    "sha256", "does not apply"
                ),
            ] {
                try await client.execute(uri: "/api/models", method: .post, headers: .json, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(body)")
                    let error = try OpenAIRouteTests.error(response.body)
                    #expect(error["param"] as? String == param && (error["message"] as? String)?.contains(fragment) == true, "\(error)")
                }
            }
            // A pull's provider errors are the stream's `error` event.
            let gated = try #require("hf.co/TestOrg/Gated-GGUF".addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            try await client.execute(uri: "/api/models/\(gated)/pull", method: .post) { response in
                let events = try ModelCatalogRouteTests.events(response.body)
                let message = (events.last?.data["error"] as? [String: Any])?["message"] as? String
                #expect(events.last?.name == "error" && message?.contains("HF_TOKEN") == true, "\(events.map(\.data))")
            }
        }
    }
}
