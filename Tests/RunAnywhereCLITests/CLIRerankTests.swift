import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere rerank` on the generated reranker fixture (``GGUFWriter/rerankerFixture(seed:context:pooling:classifier:)``:
/// a tiny BERT cross-encoder with seeded random weights, since no reranker weights can be installed
/// here), added with `models add` to a private models folder: the real code path, noise for scores.
@Suite(.processLane, .serialized, .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp: run scripts/setup --tests --build tests"))
struct CLIRerankTests {
    static let fixtureID = "reranker-fixture"
    static let query = "where is the cat"
    static let documents = ["the cat sat on the mat", "paris is the capital of france", "rain on the river"]

    /// A runner whose private models folder holds the fixture, added as the reranker ``fixtureID``.
    static func withFixture<T>(_ body: (CLIRunner) async throws -> T) async throws -> T {
        let (runner, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("reranker-fixture.gguf")
        try GGUFWriter.rerankerFixture().write(to: file)
        let added = try runner.run(["models", "add", file.absoluteString, "--category", "reranking", "--id", fixtureID])
        #expect(added.status == 0, "\(added.stderr)")
        return try await body(runner)
    }

    func expectError(_ output: CLIRunner.Output, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        CLIBadInputTests().expectError(output, fragment, sourceLocation: sourceLocation)
    }

    @Test func rankedBestFirstAsTextAndJSON() async throws {
        try await Self.withFixture { cli in
            let output = try cli.run(["rerank", "--json", "--threads", "1", Self.query] + Self.documents)
            #expect(output.status == 0, "\(output.stderr)")
            let json = try output.json()
            #expect(json["model"] as? String == Self.fixtureID)
            let results = try #require(json["results"] as? [[String: Any]])
            let scores = results.compactMap { $0["relevance_score"] as? Double }
            #expect(results.compactMap { $0["index"] as? Int }.sorted() == [0, 1, 2] && scores.count == 3)
            #expect(scores == scores.sorted(by: >), "best first: \(scores)")
            #expect(results.allSatisfy { item in (item["index"] as? Int).map { Self.documents[$0] } == item["document"] as? String })
            #expect(results.first { $0["index"] as? Int == 0 }?["tokens"] as? Int == 13)

            // Text: one line per document, best first; --top-n keeps the best; '-' reads standard input.
            let text = try cli.run(
                ["rerank", "--top-n", "2", "--threads", "1", Self.query, "-"], input: Self.documents.joined(separator: "\n") + "\n\n")
            #expect(text.status == 0, "\(text.stderr)")
            let lines = text.stdout.split(separator: "\n")
            let best = results.prefix(2).map { "[\($0["index"] as? Int ?? -1)] \($0["document"] as? String ?? "")" }
            #expect(lines.count == 2 && lines[0].hasPrefix("1. ") && lines[1].hasPrefix("2. "), "\(text.stdout)")
            #expect(zip(lines, best).allSatisfy { $0.hasSuffix($1) }, "\(text.stdout) vs \(best)")
        }
    }

    /// `probe-model` (run before a new file loads) checks a rank-pooled GGUF by scoring a pair.
    @Test func theModelProbeScoresAPairWithAReranker() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (good, headless) = (folder.appendingPathComponent("reranker.gguf"), folder.appendingPathComponent("headless.gguf"))
        try GGUFWriter.rerankerFixture().write(to: good)
        try GGUFWriter.rerankerFixture(classifier: false).write(to: headless)
        let probed = try CLIRunner().run(["probe-model", "--framework", "LlamaCpp", good.path])
        #expect(probed.status == 0, "\(probed.stderr)")
        expectError(try CLIRunner().run(["probe-model", "--framework", "LlamaCpp", headless.path]), "has no classifier head")
    }

    @Test func badInputIsAClearErrorWithStatusOne() async throws {
        try await Self.withFixture { cli in
            expectError(try cli.run(["rerank", Self.query]), "No documents given")
            expectError(try cli.run(["rerank", Self.query, "-"], input: "\n \n"), "Standard input has no lines of text")
            expectError(try cli.run(["rerank", "", "the mat"]), "The query is empty")
            expectError(try cli.run(["rerank", Self.query, "the mat", ""]), "Document 1 is empty")
            expectError(try cli.run(["rerank", Self.query, "the mat", "  "]), "Document 1 is blank")
            expectError(try cli.run(["rerank", "--top-n", "0", Self.query, "the mat"]), "--top-n must be at least 1")
            let long = String(repeating: "cat ", count: 200)
            expectError(try cli.run(["rerank", "--threads", "1", Self.query, long]), "Document 0 makes a pair of 207 tokens")
            let truncated = try cli.run(["rerank", "--json", "--truncate", "--threads", "1", Self.query, long])
            #expect(truncated.status == 0, "\(truncated.stderr)")
            #expect((try truncated.json()["results"] as? [[String: Any]])?.first?["tokens"] as? Int == 128)
            expectError(
                try cli.run(["rerank", "--model", SDKConstants.Models.defaultEmbeddingModelID, Self.query, "the mat"]),
                "is an embedding model, not a reranker")
            expectError(try cli.run(["rerank", "--model", "no-such-model", Self.query, "the mat"]), "not found")
        }
    }
}
