import Foundation
import RunAnywhereTestSupport
import Testing

/// `bench run --category embedding`, with the caller's texts, on the default embedding model.
@Suite(
    .processLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.embeddingModelFile != nil,
        "needs llama.cpp and the default embedding model: run scripts/setup --tests --build tests"))
struct CLIEmbeddingBenchTests {
    @Test func benchmarksTheLinesOfAFileAsOneBatch() throws {
        try CLIRunner.withData { cli, data in
            let texts = data.appendingPathComponent("texts.txt")
            try "A man is eating food.\n\nA man is eating a piece of bread.\r\nThe girl is carrying a baby.\n".write(
                to: texts, atomically: true, encoding: .utf8)
            let bench = try cli.run([
                "bench", "run", "--category", "embedding", "--embedding-texts", texts.path, "--scenario", "Custom texts (3)",
                "--repetitions", "2", "--threads", "1", "--json",
            ])
            #expect(bench.status == 0, "\(bench.stderr)")
            let run = try #require(try bench.json()["run"] as? [String: Any])
            let results = try #require(run["results"] as? [[String: Any]]).filter {
                ($0["componentModelInfo"] as? [String: Any])?["modelId"] as? String == "all-minilm-l6-v2"
            }
            #expect(
                results.count == 1 && results.first?["category"] as? String == "embedding"
                    && results.first?["scenarioName"] as? String == "Custom texts (3)")
            let metrics = try #require(results.first?["metrics"] as? [String: Any])
            #expect(metrics["error"] == nil, "\(metrics)")
            #expect(metrics["inputTokens"] as? Int == 28, "blank lines skipped; [CLS] and [SEP] counted")
            let speeds = try ["sentencesPerSecondMin", "sentencesPerSecond", "sentencesPerSecondMax"].map {
                try #require(metrics[$0] as? Double)
            }
            #expect(speeds[0] > 0 && speeds == speeds.sorted(), "the median lies between the slowest and the fastest: \(speeds)")
            #expect(try cli.run(["bench", "show", try #require(run["id"] as? String)]).stdout.contains("## Embeddings"))

            let missing = try cli.run([
                "bench", "run", "--category", "embedding", "--embedding-texts", data.appendingPathComponent("none.txt").path,
            ])
            #expect(missing.status == 1 && missing.stderr.contains("Cannot read --embedding-texts"), "\(missing.stderr)")
            let blank = data.appendingPathComponent("blank.txt")
            try "\n  \n".write(to: blank, atomically: true, encoding: .utf8)
            let empty = try cli.run(["bench", "run", "--category", "embedding", "--embedding-texts", blank.path])
            #expect(empty.status == 1 && empty.stderr.contains("has no lines of text"), "\(empty.stderr)")
            let listed = try JSONSerialization.jsonObject(with: Data(cli.run(["bench", "list", "--json"]).stdout.utf8)) as? [[String: Any]]
            #expect(listed?.count == 1, "a refused run saves nothing")
        }
    }
}
