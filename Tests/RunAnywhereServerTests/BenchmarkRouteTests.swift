import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// The benchmarks API in process: the real runner and LLM provider on the scripted engine (whose
/// tokens take a known time), progress as server-sent events replayed to a late subscriber, the
/// saved run, its exports, cancellation, one run at a time, and bad requests.
@Suite struct BenchmarkRouteTests {
    static func start(_ client: some TestClientProtocol, _ body: String) async throws -> HTTPResponse.Status {
        try await client.execute(uri: "/api/benchmarks", method: .post, headers: .json, body: ByteBuffer(string: body)) { $0.status }
    }

    @Test func aRunStreamsItsProgressAndIsSavedAndExported() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/benchmarks/current", method: .get) { #expect($0.status == .notFound) }
            #expect(
                try await Self.start(client, #"{"categories": ["llm", "stt"], "scenarios": ["Short generation"], "repetitions": 1}"#)
                    == .accepted)
            let events = try await client.execute(uri: "/api/benchmarks/current", method: .get) {
                try ModelCatalogRouteTests.events($0.body)
            }
            #expect(events.map(\.name) == ["skipped", "progress", "result", "done"], "\(events.map(\.name))")
            #expect((events.first?.data["reason"] as? String)?.contains("download one first") == true, "no speech model in this catalog")
            #expect(events[1].data["currentScenario"] as? String == "LLM: Short generation (scripted)")
            #expect(events[2].data["scenarioName"] as? String == "Short generation")
            let run = events[3].data
            #expect(run["status"] as? String == "completed")
            let id = try #require(run["id"] as? String)
            // A subscriber after the end gets the whole run again.
            let replay = try await client.execute(uri: "/api/benchmarks/current", method: .get) {
                try ModelCatalogRouteTests.events($0.body)
            }
            #expect(replay.map(\.name) == events.map(\.name))
            try await client.execute(uri: "/api/benchmarks", method: .get) { response in
                let body = try OpenAIRouteTests.json(response.body)
                #expect((body["runs"] as? [[String: Any]])?.first?["id"] as? String == id && body["running"] as? Bool == false)
                let categories = try #require(body["categories"] as? [[String: Any]])
                #expect(categories.map { $0["category"] as? String } == ["llm", "stt", "tts", "vlm", "diffusion", "embedding"])
                #expect(categories.first?["models"] as? [String] == ["scripted"] && (categories[1]["models"] as? [String])?.isEmpty == true)
            }
            // Save to Files: written in the exports folder, its name and path given back.
            let saved = try await client.execute(uri: "/api/benchmarks/\(id)/export?format=json", method: .post) { response in
                #expect(response.status == .created)
                return try OpenAIRouteTests.json(response.body)
            }
            #expect(saved["fileName"] as? String == "benchmark_\(id).json")
            let path = try #require(saved["path"] as? String)
            #expect(path.hasSuffix("/exports/benchmark_\(id).json"))
            let file = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
            #expect((file?["run"] as? [String: Any])?["id"] as? String == id)
            try await client.execute(uri: "/api/benchmarks/\(id)/export?format=md", method: .post) {
                #expect($0.status == .badRequest, "Markdown is for the clipboard")
            }
            try await client.execute(uri: "/api/benchmarks/\(id)", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/benchmarks/\(id)/export?format=csv", method: .get) { response in
                #expect(response.headers[.contentType] == "text/csv; charset=utf-8")
                #expect(response.headers[.contentDisposition]?.contains("benchmark-\(id.prefix(8).lowercased()).csv") == true)
                #expect(String(buffer: response.body).hasPrefix("run_id,timestamp,category"))
            }
            try await client.execute(uri: "/api/benchmarks/\(id)/export?format=md", method: .get) {
                #expect(String(buffer: $0.body).contains("Short generation"))
            }
            try await client.execute(uri: "/api/benchmarks/\(id)/export?format=pdf", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/api/benchmarks/\(id.prefix(6))", method: .get) {
                #expect($0.status == .notFound, "no prefixes over HTTP")
            }
            try await client.execute(uri: "/api/benchmarks", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/benchmarks", method: .get) { response in
                let body = try OpenAIRouteTests.json(response.body)
                #expect((body["runs"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test func aRunCanBeStoppedAndOnlyOneRunsAtATime() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime(adapter: ScriptedAdapter(tokenDelay: .milliseconds(50)))).checkedApplication()
        try await app.test(.router) { client in
            #expect(try await Self.start(client, #"{"categories": ["llm"], "repetitions": 3}"#) == .accepted)
            #expect(try await Self.start(client, #"{"categories": ["llm"]}"#) == .conflict)
            try await client.execute(uri: "/api/benchmarks", method: .delete) {
                #expect($0.status == .conflict, "no clearing while a run goes")
            }
            try await Task.sleep(for: .milliseconds(300))
            try await client.execute(uri: "/api/benchmarks/current", method: .delete) { #expect($0.status == .accepted) }
            let events = try await client.execute(uri: "/api/benchmarks/current", method: .get) {
                try ModelCatalogRouteTests.events($0.body)
            }
            #expect(events.last?.name == "done" && events.last?.data["status"] as? String == "cancelled", "\(events.map(\.name))")
            try await client.execute(uri: "/api/benchmarks/current", method: .delete) {
                #expect($0.status == .notFound, "nothing left to stop")
            }
            #expect(
                try await Self.start(client, #"{"categories": ["llm"], "scenarios": ["Short generation"], "repetitions": 1}"#) == .accepted,
                "free again")
            _ = try await client.execute(uri: "/api/benchmarks/current", method: .get) { $0.status }
            for body in [
                #"{"repetitions": 0}"#, #"{"categories": ["quantum"]}"#, #"{"threads": -2}"#, "nope",
                #"{"categories": ["llm"], "scenarios": ["Short generation", "Shrot generation"]}"#,
            ] {
                #expect(try await Self.start(client, body) == .badRequest, "\(body)")
            }
            let answer = try await client.execute(
                uri: "/api/benchmarks", method: .post, headers: .json, body: ByteBuffer(string: #"{"scenarios": ["Shrot generation"]}"#)
            ) { String(buffer: $0.body) }
            #expect(answer.contains("Unknown scenario 'Shrot generation'") && answer.contains(#"\"Short generation\""#), "\(answer)")
        }
    }
}
