import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTelemetry
import RunAnywhereTestSupport
import Testing

/// The settings and environment API in process: values checked and saved in the same files the
/// CLI uses, partial changes, resets, and API keys that only ever come back masked.
@Suite struct SettingsRouteTests {
    @Test func settingsAreCheckedSavedAndReset() async throws {
        let runtime = try scriptedRuntime()
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        let store = SettingsStore(dataDirectory: runtime.configuration.dataDirectory)
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/settings", method: .get) { response in
                let settings = try OpenAIRouteTests.json(response.body)
                #expect(abs((settings["temperature"] as? Double ?? -1) - Double(GenerationSettings().temperature)) < 1e-6)
            }
            try await client.execute(
                uri: "/api/settings", method: .patch, headers: .json,
                body: ByteBuffer(string: #"{"temperature": 0.2, "maxTokens": 64, "systemPrompt": "Be terse.", "streaming": false}"#)
            ) { response in
                #expect(response.status == .ok)
                let settings = try OpenAIRouteTests.json(response.body)
                #expect(settings["maxTokens"] as? Int == 64 && settings["systemPrompt"] as? String == "Be terse.")
            }
            #expect(try store.load().temperature == 0.2 && store.load().streaming == false, "saved where the CLI reads them")
            try await client.execute(
                uri: "/api/settings", method: .patch, headers: .json, body: ByteBuffer(string: #"{"threads": 2, "speculate": 4}"#)
            ) {
                #expect($0.status == .ok)
            }
            #expect(
                try store.load().maxTokens == 64 && store.load().threads == 2 && store.load().speculate == 4,
                "a partial change keeps the other settings")
            try await client.execute(
                uri: "/api/settings", method: .patch, headers: .json,
                body: ByteBuffer(string: #"{"systemPrompt": null, "threads": null, "speculate": null}"#)
            ) { #expect($0.status == .ok) }
            #expect(try store.load().systemPrompt == nil && store.load().threads == nil && store.load().speculate == nil)
            for (body, param) in [
                (#"{"temperature": 9}"#, "temperature"), (#"{"colour": "blue"}"#, "colour"), (#"{"maxTokens": "many"}"#, "maxTokens"),
                (#"{"speculate": 99}"#, "speculate"), (#"{"draftModel": "no-such-model"}"#, "draftModel"),
                (#"{"draftModel": "/no/such/draft.gguf"}"#, "draftModel"),
            ] {
                try await client.execute(uri: "/api/settings", method: .patch, headers: .json, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(body)")
                    let error = try OpenAIRouteTests.error(response.body)
                    #expect(error["param"] as? String == param, "\(error)")
                }
            }
            #expect(try store.load().maxTokens == 64 && store.load().draftModel == nil, "a refused change saves nothing")
            // null puts a setting back to its default, as it clears the optional ones.
            try await client.execute(
                uri: "/api/settings", method: .patch, headers: .json, body: ByteBuffer(string: #"{"temperature": null, "streaming": null}"#)
            ) { #expect($0.status == .ok) }
            #expect(
                try store.load().temperature == GenerationSettings().temperature && store.load().streaming == GenerationSettings().streaming
            )
            #expect(try store.load().maxTokens == 64, "the other settings stay")
            // A language model that is not downloaded yet may be the draft: it will be when it is.
            try await client.execute(
                uri: "/api/settings", method: .patch, headers: .json,
                body: ByteBuffer(string: #"{"draftModel": "\#(RunAnywhere.defaultModelID)"}"#)
            ) { #expect($0.status == .ok) }
            #expect(try store.load().draftModel == RunAnywhere.defaultModelID)
            try await client.execute(uri: "/api/settings", method: .patch, headers: .json, body: ByteBuffer(string: "[1, 2]")) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/api/settings", method: .delete) { response in
                let settings = try OpenAIRouteTests.json(response.body)
                #expect(settings["maxTokens"] as? Int == GenerationSettings().maxTokens)
            }
            #expect(try store.load() == GenerationSettings())
        }
    }

    @Test func environmentKeysComeBackMasked() async throws {
        let runtime = try scriptedRuntime()
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let change = #"{"environment": "staging", "baseURL": "https://staging.example.com", "apiKey": "sk-secret-key-1234"}"#
            try await client.execute(uri: "/api/environment", method: .put, headers: .json, body: ByteBuffer(string: change)) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(!text.contains("sk-secret"), "the key is never sent back")
                let environments = try #require(try OpenAIRouteTests.json(response.body)["environments"] as? [[String: Any]])
                let staging = try #require(environments.first { $0["environment"] as? String == "staging" })
                #expect(staging["isSelected"] as? Bool == true && staging["maskedAPIKey"] as? String == "••••1234")
            }
            try await client.execute(uri: "/api/environment", method: .get) { response in
                #expect(!String(buffer: response.body).contains("sk-secret"))
            }
            try await client.execute(
                uri: "/api/environment", method: .put, headers: .json, body: ByteBuffer(string: #"{"environment": "production"}"#)
            ) { response in
                #expect(response.status == .badRequest, "production needs a key")
                let error = try OpenAIRouteTests.error(response.body)
                #expect(error["param"] as? String == "apiKey")
            }
            try await client.execute(
                uri: "/api/environment", method: .put, headers: .json,
                body: ByteBuffer(string: #"{"environment": "staging", "baseURL": "ftp://x"}"#)
            ) { response in
                let error = try OpenAIRouteTests.error(response.body)
                #expect(response.status == .badRequest && error["param"] as? String == "baseURL", "a stored key, a bad base URL")
            }
            try await client.execute(
                uri: "/api/environment", method: .put, headers: .json, body: ByteBuffer(string: #"{"environment": "moon"}"#)
            ) { #expect($0.status == .badRequest) }
            let credentials = runtime.configuration.dataDirectory.appendingPathComponent(SDKConstants.Files.credentials).path
            let permissions = try FileManager.default.attributesOfItem(atPath: credentials)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
        }
    }
}

/// `/openapi.json` describes exactly the routes the server has.
@Suite struct OpenAPIDocumentTests {
    @Test func theDocumentListsEveryRouteAndNoOther() async throws {
        // With a telemetry store, so that the /telemetry routes `serve --telemetry-store` mounts are served too.
        let folder = try TestEnvironment.temporaryDirectory("openapi-telemetry")
        let store = try await SQLiteTelemetryStore.open(at: folder.appendingPathComponent("runs.sqlite"), logger: Logger(label: "test"))
        var configuration = OpenAIRouteTests.server(try scriptedRuntime()).configuration
        configuration.telemetryStore = store
        let server = RunAnywhereServer(runtime: try scriptedRuntime(), configuration: configuration)
        let served = Set(
            server.router().routes.map {
                "\($0.method.rawValue.lowercased()) \($0.path.description.replacing(/:(\w+)/) { "{\($0.output.1)}" })"
            })
        let app = server.checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                let document = try OpenAIRouteTests.json(response.body)
                #expect(document["openapi"] as? String == "3.1.0")
                let paths = try #require(document["paths"] as? [String: [String: Any]])
                let described = Set(paths.flatMap { path, operations in operations.keys.map { "\($0) \(path)" } })
                #expect(
                    described == served,
                    "described only: \(described.subtracting(served).sorted()); served only: \(served.subtracting(described).sorted())")
            }
        }
        try await store.close()
    }

    @Test func theDocumentIsServedAsItsFileHoldsIt() async throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/RunAnywhereServer/openapi.json")
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.headers[.contentType] == "application/json")
                let source = try Data(contentsOf: file)
                #expect(Data(buffer: response.body) == source, "openapi.json is the one source, served byte for byte")
            }
        }
    }
}
