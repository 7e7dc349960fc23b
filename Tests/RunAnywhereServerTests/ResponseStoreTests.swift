import Foundation
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereServer

/// Stored responses are kept for ``ResponseStore/retention`` (30 days, as OpenAI keeps them): past
/// it one is no longer found, and saving the next removes it from the file.
@Suite struct ResponseStoreTests {
    @Test func responsesExpireAfterTheRetention() async throws {
        let runtime = try scriptedRuntime()
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        let id = try await app.test(.router) { client in
            let response = try await client.execute(
                uri: "/v1/responses", method: .post, headers: .json,
                body: OpenAIRouteTests.body(#"{"model": "scripted", "input": "one two"}"#))
            return try #require(try OpenAIRouteTests.json(response.body)["id"] as? String)
        }
        let store = ResponseStore(dataDirectory: runtime.configuration.dataDirectory, logger: Logger(label: "test"))
        let stored = try #require(try await store.find(id), "kept now")
        let later = Date().addingTimeInterval(ResponseStore.retention + 60)
        #expect(try await store.find(id, now: later) == nil, "not found past the retention")
        #expect(try await store.find(id) != nil, "not removed by looking")
        try await store.save(stored.response, input: stored.input, now: later)
        #expect(try await store.find(id) == nil, "saving past the retention removed it from the file")
    }
}
