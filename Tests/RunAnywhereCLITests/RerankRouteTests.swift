import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `POST /v1/rerank` and `POST /rerank` of `runanywhere serve`, in the shape llama.cpp's server
/// and Jina use, through a plain HTTP client on loopback, with the generated reranker fixture
/// (random weights: its scores are noise) added to a private models folder; every bad request a
/// 400 in the OpenAI error shape, the server still running.
@Suite(.serverLane, .serialized, .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp: run scripts/setup --tests --build tests"))
struct RerankRouteTests {
    static func post(_ url: String, _ body: [String: Any]) async throws -> (status: Int, json: [String: Any]) {
        try await TokenizeRouteTests.post(url, String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
    }

    @Test(.hangLimit(.seconds(900))) func ranksInLlamaServersShapeAndRefusesBadRequests() async throws {
        try await OpenAPIAnswers.checking {
            try await CLIRerankTests.withFixture { runner in
                let server = try ServeProcess(runner, arguments: ["--threads", "1"])
                defer { _ = server.stop() }
                let root = "http://127.0.0.1:\(server.port)"
                let (query, documents) = (CLIRerankTests.query, CLIRerankTests.documents)
                let ranked = try await Self.post(
                    "\(root)/v1/rerank", ["model": CLIRerankTests.fixtureID, "query": query, "documents": documents])
                #expect(ranked.status == 200, "\(ranked.json)")
                #expect(ranked.json["model"] as? String == CLIRerankTests.fixtureID && ranked.json["object"] as? String == "list")
                let results = try #require(ranked.json["results"] as? [[String: Any]])
                let scores = results.compactMap { $0["relevance_score"] as? Double }
                #expect(results.compactMap { $0["index"] as? Int }.sorted() == [0, 1, 2] && scores == scores.sorted(by: >), "\(results)")
                #expect(results.allSatisfy { $0["document"] == nil }, "no documents unless asked")
                let usage = try #require(ranked.json["usage"] as? [String: Any])
                #expect(usage["prompt_tokens"] as? Int == 13 + 13 + 11 && usage["total_tokens"] as? Int == 37, "\(usage)")

                // /rerank, no model named (the downloaded reranker), top_n, documents returned, Jina's {text} objects.
                let top = try await Self.post(
                    "\(root)/rerank",
                    [
                        "query": query, "documents": [["text": documents[0]], documents[1], ["text": documents[2]]], "top_n": 2,
                        "return_documents": true,
                    ])
                #expect(top.status == 200, "\(top.json)")
                let best = try #require(top.json["results"] as? [[String: Any]])
                #expect(best.compactMap { $0["index"] as? Int } == results.prefix(2).compactMap { $0["index"] as? Int })
                #expect(
                    best.allSatisfy { item in
                        ((item["document"] as? [String: Any])?["text"] as? String) == (item["index"] as? Int).map { documents[$0] }
                    })
                let alone = try await Self.post("\(root)/v1/rerank", ["query": query, "documents": [documents[1]]])
                let together = try #require(results.first { $0["index"] as? Int == 1 }?["relevance_score"] as? Double)
                let single = try #require((alone.json["results"] as? [[String: Any]])?.first?["relevance_score"] as? Double)
                #expect(abs(single - together) <= 2e-3, "the same pair alone and in a batch: \(single) vs \(together)")

                let long = String(repeating: "cat ", count: 200)
                let refusals: [([String: Any], String, String?, String?)] = [
                    (["documents": documents], "query", nil, nil),
                    (["query": "", "documents": documents], "query is empty", "query", nil),
                    (["query": query, "documents": [String]()], "documents is an empty array", "documents", nil),
                    (["query": query, "documents": Array(repeating: "d", count: 1025)], "at most 1024", "documents", nil),
                    (["query": query, "documents": ["the mat", ""]], "documents 1 is empty", "documents", nil),
                    (["query": query, "documents": [1, 2]], "documents must be an array of strings", "documents", nil),
                    (["query": query, "documents": documents, "top_n": 0], "top_n must be at least 1", "top_n", nil),
                    (
                        ["query": query, "documents": [long]], "Document 0 makes a pair of 207 tokens", "documents",
                        "context_length_exceeded"
                    ),
                    (
                        ["query": query, "documents": documents, "model": SDKConstants.Models.defaultEmbeddingModelID], "not a reranker",
                        nil,
                        "model_incompatible"
                    ),
                ]
                for (body, fragment, param, code) in refusals {
                    let refused = try await Self.post("\(root)/v1/rerank", body)
                    let error = try #require(refused.json["error"] as? [String: Any], "\(refused.json)")
                    #expect(
                        refused.status == 400 && (error["message"] as? String)?.contains(fragment) == true,
                        "\(fragment): \(refused.status) \(error)")
                    #expect(error["type"] as? String == "invalid_request_error")
                    if let param { #expect(error["param"] as? String == param, "\(fragment): \(error)") }
                    if let code { #expect(error["code"] as? String == code, "\(fragment): \(error)") }
                }
                let truncated = try await Self.post("\(root)/v1/rerank", ["query": query, "documents": [long], "truncate": true])
                #expect(
                    truncated.status == 200 && (truncated.json["usage"] as? [String: Any])?["prompt_tokens"] as? Int == 128,
                    "\(truncated.json)")
                let unknown = try await Self.post("\(root)/v1/rerank", ["query": query, "documents": documents, "model": "no-such-model"])
                #expect(unknown.status == 404, "\(unknown.json)")
                #expect(server.process.isRunning, "every refusal left the server running")
                #expect(
                    server.standardError.contains("POST /v1/rerank") && server.standardError.contains("POST /rerank"),
                    "requests are in the access log")
            }
        }
    }
}
