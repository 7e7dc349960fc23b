import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere rag` as a user runs it: ingest a folder, ask with `--json` (the default language
/// model at 1 thread, a few tokens), list, remove, and the clear errors.
@Suite(
    .processLane, .serialized,
    .enabled(if: RAGModels.installed, "needs llama.cpp, the default model and the embedding model: run scripts/setup --tests"))
struct CLIRAGTests {
    func expectError(_ output: CLIRunner.Output, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        CLIBadInputTests().expectError(output, fragment, sourceLocation: sourceLocation)
    }

    /// Three documents on unrelated subjects, in a folder of `data`: a two-page PDF (generated:
    /// ``PDFFixture``), HTML and plain text.
    func writeCorpus(in data: URL) throws -> URL {
        let folder = data.appendingPathComponent("docs")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try PDFFixture.document(pages: [
            ["Volcanoes", "Magma that reaches the surface is called lava."],
            ["Basaltic lava erupts at about 1,100 to 1,250 degrees Celsius."],
        ]).write(to: folder.appendingPathComponent("volcanoes.pdf"))
        let files = [
            "tea.html":
                "<html><body><h1>Green tea</h1><p>Brew green tea with water at 70 to 80 &deg;C for two to three minutes.</p></body></html>",
            "chess.txt": "In chess, castling moves the king two squares towards a rook, and the rook to the square the king crossed.",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    /// `chat --collection`: each message answered from the collection, its numbered sources
    /// printed after it and saved with it in the conversation; an unknown collection is an error.
    @Test func chatAnswersFromACollectionAndKeepsTheSources() throws {
        try CLIRunner.withData { cli, data in
            let folder = try writeCorpus(in: data)
            #expect(try cli.run(["rag", "ingest", folder.path, "--collection", "notes", "--threads", "1"]).status == 0)
            let chat = try cli.run(
                [
                    "chat", "--collection", "notes", "--passages", "1", "--reranker", "none", "--temperature", "0", "--max-tokens", "8",
                    "--threads", "1",
                ],
                input: "How do castling moves work in chess?\n/exit\n")
            #expect(chat.status == 0, "\(chat.stderr)")
            #expect(
                chat.stdout.contains("Sources") && chat.stdout.contains("[1] \(folder.appendingPathComponent("chess.txt").path)"),
                "\(chat.stdout)")
            let listed = try cli.run(["conversations", "list", "--json"])
            let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            let id = try #require(conversations.first?["id"] as? String)
            let saved = try #require(try cli.run(["conversations", "show", id, "--json"]).json()["messages"] as? [[String: Any]])
            #expect(saved.first?["content"] as? String == "How do castling moves work in chess?", "the question is saved as asked")
            let grounding = try #require(saved.last?["grounding"] as? [String: Any])
            #expect(
                grounding["collection"] as? String == "notes"
                    && ((grounding["sources"] as? [[String: Any]])?.first?["documentPath"] as? String)?.hasSuffix("chess.txt") == true)

            expectError(try cli.run(["chat", "--collection", "nope", "--threads", "1"], input: "Hi\n/exit\n"), "nope")
        }
    }

    /// The same commands over PostgreSQL (`--database postgres://…`, or `$RUNANYWHERE_RAG_DATABASE`),
    /// and `serve --rag-database` answering from the collection the commands made.
    @Test(.enabled(if: TestPostgres.isInstalled, "scripts/setup --tests installs PostgreSQL"))
    func theCollectionsLiveInPostgreSQLWhenNamed() async throws {
        let cluster = try TestPostgres.start()
        defer { cluster.stop() }
        try await CLIRunner.withData { cli, data in
            let folder = try writeCorpus(in: data)
            let database = ["--database", cluster.url]
            let ingest = try cli.run(["rag", "ingest", folder.path, "--collection", "notes", "--threads", "1"] + database)
            #expect(ingest.status == 0 && ingest.stdout.contains("Ingested 3 documents"), "\(ingest.stderr)")
            #expect(
                !FileManager.default.fileExists(atPath: data.appendingPathComponent("rag.sqlite").path),
                "nothing went to the SQLite default")
            #expect(try cluster.psql("SELECT COUNT(*) FROM rag_documents").trimmingCharacters(in: .whitespacesAndNewlines) == "3")

            var fromEnvironment = cli
            fromEnvironment.environment["RUNANYWHERE_RAG_DATABASE"] = cluster.url
            let query = try fromEnvironment.run([
                "rag", "query", "How do castling moves work in chess?", "--collection", "notes", "--top-k", "1",
                "--max-tokens", "4", "--threads", "1", "--temperature", "0", "--reranker", "none", "--json",
            ])
            #expect(query.status == 0, "\(query.stderr)")
            let chess = folder.appendingPathComponent("chess.txt").standardizedFileURL.path
            #expect(((try query.json()["sources"] as? [[String: Any]])?.first?["document"] as? String) == chess)

            let server = try ServeProcess(cli, arguments: ["--threads", "1", "--rag-database", cluster.url])
            let root = "http://127.0.0.1:\(server.port)/api/rag/collections"
            let listed = try JSONSerialization.jsonObject(with: try await GPUCLITests.request(root)) as? [String: Any]
            let collection = try #require((listed?["collections"] as? [[String: Any]])?.first)
            #expect(collection["name"] as? String == "notes" && collection["documentCount"] as? Int == 3, "\(collection)")
            let document = chess.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? chess
            let passage =
                try JSONSerialization.jsonObject(
                    with: try await GPUCLITests.request("\(root)/notes/passages?document=\(document)&ordinal=0")) as? [String: Any]
            #expect((passage?["text"] as? String)?.contains("castling") == true, "\(String(describing: passage))")
            #expect(server.stop() == 0)

            #expect(try cli.run(["rag", "rm", "notes", chess] + database).status == 0)
            #expect(try cli.run(["rag", "list", "--collection", "notes"] + database).stdout.contains("chess") == false)
            #expect(try cli.run(["rag", "rm", "notes"] + database).status == 0)
            #expect(
                try cluster.psql("SELECT COUNT(*) FROM rag_chunks").trimmingCharacters(in: .whitespacesAndNewlines) == "0",
                "removing frees the vectors")
            expectError(try cli.run(["rag", "list", "--database", "postgres://"]), "postgres://user")
        }
    }

    @Test func ingestQueryListAndRemove() throws {
        try CLIRunner.withData { cli, data in
            let folder = try writeCorpus(in: data)
            let ingest = try cli.run(["rag", "ingest", folder.path, "--collection", "notes", "--threads", "1"])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            #expect(ingest.stdout.contains("Ingested 3 documents") && ingest.stdout.contains("'notes'"), "\(ingest.stdout)")
            #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("rag.sqlite").path))

            let query = try cli.run([
                "rag", "query", "How do castling moves work in chess?", "--collection", "notes", "--top-k", "2",
                "--max-tokens", "8", "--threads", "1", "--temperature", "0", "--reranker", "none", "--json",
            ])
            #expect(query.status == 0, "\(query.stderr)")
            let json = try query.json()
            #expect(json["answer"] is String)
            let sources = try #require(json["sources"] as? [[String: Any]])
            #expect(sources.count == 2)
            #expect((sources[0]["document"] as? String) == folder.appendingPathComponent("chess.txt").standardizedFileURL.path)
            #expect((sources[0]["text"] as? String)?.contains("castling") == true)
            let scores = sources.compactMap { $0["score"] as? Double }
            #expect(scores.count == 2 && scores[0] >= scores[1], "best first: \(scores)")
            #expect(json["reranker"] == nil && sources.allSatisfy { $0["rerankScore"] == nil }, "--reranker none keeps the cosine order")

            // The retrieval alone: the same passages, no answer.
            let search = try cli.run([
                "rag", "search", "How do castling moves work in chess?", "--collection", "notes", "--top-k", "2", "--threads", "1",
                "--reranker", "none", "--json",
            ])
            #expect(search.status == 0, "\(search.stderr)")
            let found = try search.json()
            #expect(found["answer"] == nil && found["collection"] as? String == "notes")
            let listed = try #require(found["sources"] as? [[String: Any]])
            #expect(listed.map { $0["document"] as? String } == sources.map { $0["document"] as? String })
            #expect(listed.map { $0["ordinal"] as? Int } == sources.map { $0["ordinal"] as? Int })
            let text = try cli.run([
                "rag", "search", "How do castling moves work in chess?", "--collection", "notes", "--top-k", "1", "--threads", "1",
            ])
            #expect(text.status == 0 && text.stdout.contains("[1] ") && text.stdout.contains("chess.txt"), "\(text.stdout)\(text.stderr)")

            let streamed = try cli.run([
                "rag", "query", "What temperature for green tea?", "--collection", "notes", "--top-k", "1", "--max-tokens", "4",
                "--threads", "1",
            ])
            #expect(streamed.status == 0, "\(streamed.stderr)")
            #expect(
                streamed.stdout.contains("Sources\n[1] \(folder.appendingPathComponent("tea.html").standardizedFileURL.path) (score "),
                "\(streamed.stdout)")

            let lava = try cli.run([
                "rag", "query", "At what temperature does basaltic lava erupt?", "--collection", "notes", "--top-k", "1",
                "--max-tokens", "4", "--threads", "1", "--reranker", "none", "--json",
            ])
            let fromPDF = try #require((try lava.json()["sources"] as? [[String: Any]])?.first, "\(lava.stderr)")
            #expect(fromPDF["document"] as? String == folder.appendingPathComponent("volcanoes.pdf").standardizedFileURL.path)
            #expect(
                (fromPDF["text"] as? String)?.contains("called lava.\n\nBasaltic lava erupts") == true,
                "the pages' text, a blank line between: \(fromPDF)")

            let list = try cli.run(["rag", "list", "--json"])
            let collections = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            #expect(collections.count == 1 && collections[0]["name"] as? String == "notes" && collections[0]["documentCount"] as? Int == 3)
            #expect(
                collections[0]["embeddingModelId"] as? String == SDKConstants.Models.defaultEmbeddingModelID
                    && collections[0]["dimensions"] as? Int == 384)
            let documents = try cli.run(["rag", "list", "--collection", "notes"])
            #expect(
                documents.status == 0 && documents.stdout.contains("tea.html") && documents.stdout.contains("html"), "\(documents.stdout)")
            #expect(documents.stdout.contains("volcanoes.pdf"), "\(documents.stdout)")

            let chess = folder.appendingPathComponent("chess.txt").path
            let removed = try cli.run(["rag", "rm", "notes", chess])
            #expect(removed.status == 0 && removed.stdout.contains("Removed"), "\(removed.stderr)")
            expectError(try cli.run(["rag", "rm", "notes", chess]), "has no document")
            #expect(try cli.run(["rag", "rm", "notes"]).status == 0)
            #expect(try cli.run(["rag", "list"]).stdout.contains("No collections"))
        }
    }

    @Test func badInputsAreClearErrorsAndLeaveTheCollection() throws {
        try CLIRunner.withData { cli, data in
            let folder = try writeCorpus(in: data)
            #expect(try cli.run(["rag", "ingest", folder.appendingPathComponent("tea.html").path, "--threads", "1"]).status == 0)
            let pdf = data.appendingPathComponent("paper.pdf")
            try Data("%PDF-1.7\n".utf8).write(to: pdf)
            let binary = data.appendingPathComponent("blob.txt")
            try Data([0x41, 0x00, 0xFF]).write(to: binary)
            let chess = folder.appendingPathComponent("chess.txt").path
            expectError(try cli.run(["rag", "ingest", chess, pdf.path]), "paper.pdf could not be read as PDF")
            let locked = data.appendingPathComponent("locked.pdf")
            try PDFFixture.encrypted(pages: [["Secret notes."]]).write(to: locked)
            expectError(try cli.run(["rag", "ingest", chess, locked.path]), "locked.pdf is encrypted with a password")
            expectError(try cli.run(["rag", "ingest", chess, binary.path]), "NUL byte")
            expectError(try cli.run(["rag", "ingest", chess, "--max-file-size", "0"]), "--max-file-size must be 1 to 4096")
            expectError(
                try cli.run(["rag", "ingest", chess, "--embedding-model", "other-model"]),
                "made with the embedding model '\(SDKConstants.Models.defaultEmbeddingModelID)', not 'other-model'")
            expectError(try cli.run(["rag", "ingest", chess, "--collection", "../up"]), "Invalid collection name")
            expectError(try cli.run(["rag", "query", "Hi", "--collection", "missing"]), "no RAG collection 'missing'")
            expectError(try cli.run(["rag", "query", "Hi", "--top-k", "0"]), "topK must be 1 to 100")
            expectError(
                try cli.run(["rag", "query", "Hi", "--reranker", SDKConstants.Models.defaultEmbeddingModelID]),
                "is an embedding model, not a reranker")
            expectError(try cli.run(["rag", "query", "Hi", "--reranker", ""]), "The reranker is empty")
            expectError(try cli.run(["rag", "rm", "missing"]), "no RAG collection 'missing'")
            let documents = try cli.run(["rag", "list", "--collection", RAGCollection.defaultName, "--json"])
            let paths = try #require(try JSONSerialization.jsonObject(with: Data(documents.stdout.utf8)) as? [[String: Any]]).compactMap {
                $0["path"] as? String
            }
            #expect(paths == [folder.appendingPathComponent("tea.html").standardizedFileURL.path], "the failed ingests added nothing")
        }
    }
}

/// Whether llama.cpp, the default language model and the default embedding model are installed.
enum RAGModels {
    static var installed: Bool {
        let id = SDKConstants.Models.defaultEmbeddingModelID
        return TestEnvironment.engineInstalled
            && FileManager.default.fileExists(
                atPath: TestEnvironment.installedModelsDirectory.appendingPathComponent("\(id)/\(id).gguf").path)
    }
}
