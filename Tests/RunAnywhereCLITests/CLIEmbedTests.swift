import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere embed` with the default embedding model.
@Suite(
    .processLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.embeddingModelFile != nil,
        "needs llama.cpp and the default embedding model: run scripts/setup --tests --build tests"))
struct CLIEmbedTests {
    func expectError(_ output: CLIRunner.Output, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        CLIBadInputTests().expectError(output, fragment, sourceLocation: sourceLocation)
    }

    /// The `data` of `embed --json`, checked to have the model and dimensions the object names.
    func data(_ output: CLIRunner.Output, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        #expect(output.status == 0, "\(output.stderr)", sourceLocation: sourceLocation)
        let json = try output.json()
        #expect(json["model"] as? String == SDKConstants.Models.defaultEmbeddingModelID, sourceLocation: sourceLocation)
        #expect(json["dimensions"] as? Int == 384, sourceLocation: sourceLocation)
        return try #require(json["data"] as? [[String: Any]], sourceLocation: sourceLocation)
    }

    @Test func jsonHasAVectorPerTextInOrder() throws {
        try CLIRunner.withData { cli, _ in
            let texts = ["A man is eating food.", "A man is eating a piece of bread.", "The girl is carrying a baby."]
            let items = try data(try cli.run(["embed", "--json", "--threads", "1"] + texts))
            #expect(items.map { $0["index"] as? Int } == [0, 1, 2])
            #expect(items.map { $0["tokens"] as? Int } == [8, 11, 9], "[CLS] and [SEP] counted")
            let vectors = items.map { ($0["embedding"] as? [Double] ?? []).map(Float.init) }
            #expect(vectors.allSatisfy { $0.count == 384 && abs(EmbeddingMath.norm($0) - 1) < 1e-4 })
            let close = try EmbeddingMath.cosineSimilarity(vectors[0], vectors[1])
            #expect(close > (try EmbeddingMath.cosineSimilarity(vectors[0], vectors[2])))

            // Standard input, one text per line (blank lines skipped), in place of '-'.
            let piped = try data(
                try cli.run(["embed", "--json", "--threads", "1", "-", texts[2]], input: "\(texts[0])\n\n\(texts[1])\r\n"))
            #expect(piped.map { $0["tokens"] as? Int } == [8, 11, 9])
            let again = piped.map { ($0["embedding"] as? [Double] ?? []).map(Float.init) }
            #expect(try zip(vectors, again).allSatisfy { try EmbeddingMath.cosineSimilarity($0, $1) > 0.9999 })
        }
    }

    @Test func textOutputIsOneLinePerText() throws {
        try CLIRunner.withData { cli, _ in
            let output = try cli.run(["embed", "--threads", "1", "Hello there.", "Bye."])
            #expect(output.status == 0, "\(output.stderr)")
            let lines = output.stdout.split(separator: "\n")
            #expect(lines.count == 2, "\(output.stdout)")
            #expect(
                lines.first?.hasPrefix("[0] 5 tokens, 384 dimensions: ") == true
                    && lines.last?.hasPrefix("[1] 4 tokens, 384 dimensions: ") == true, "\(output.stdout)")
            #expect(lines.allSatisfy { $0.hasSuffix(" …") && $0.split(separator: " ").count == 11 }, "five values shown: \(output.stdout)")
        }
    }

    @Test func badInputIsAClearErrorWithStatusOne() throws {
        try CLIRunner.withData { cli, _ in
            let long = String(repeating: "word ", count: 600)
            expectError(try cli.run(["embed", "--threads", "1", "Short.", long]), "Text 1 has 602 tokens; the model reads at most 512")
            let truncated = try data(try cli.run(["embed", "--json", "--truncate", "--threads", "1", long]))
            #expect(truncated.first?["tokens"] as? Int == 512)
            expectError(try cli.run(["embed"]), "No texts given")
            expectError(try cli.run(["embed", "-"], input: "\n  \n"), "Standard input has no lines of text")
            expectError(try cli.run(["embed", "Fine.", ""]), "Text 1 is empty")
            expectError(try cli.run(["embed", "--model", RunAnywhere.defaultModelID, "Hi"]), "is a language model, not an embedding model")
            expectError(try cli.run(["embed", "--model", "no-such-model", "Hi"]), "not found")
            expectError(try cli.run(["embed", "--threads", "0", "Hi"]), "threads must be 1 to")
        }
    }
}
