import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywherePoppler
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// The document collections API through the server's router with the real default models
/// (all-MiniLM-L6-v2 embeds, the default language model answers in a few tokens on 1 thread):
/// uploads, listings, passages, streamed and whole answers with numbered sources, removal, and
/// every refused upload leaving the collection as it was. Not on a socket: Hummingbird's live
/// test client gives up after 20 silent seconds, and an upload that embeds on a busy 2-core
/// machine can take longer (the official clients test the socket against `runanywhere serve`).
@Suite(
    .inProcessLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.embeddingModelFile != nil,
        "needs llama.cpp and the default models: run scripts/setup --tests"))
struct RAGRouteTests {
    static let boundary = "----runanywhere-rag-boundary"
    static let upload: HTTPFields = [.contentType: "multipart/form-data; boundary=\(boundary)"]

    /// A multipart body of `files` (name, bytes) as `files[]`, and `fields`.
    static func form(_ files: [(String, Data)], fields: [String: String] = [:]) -> ByteBuffer {
        var body = Data()
        for (name, value) in fields {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        for (name, bytes) in files {
            body.append(
                Data(
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"files[]\"; filename=\"\(name)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                        .utf8))
            body.append(bytes)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return ByteBuffer(data: body)
    }

    static let cats = Data("# Cats\n\nA group of cats is called a clowder. Cats sleep for twelve to sixteen hours a day.".utf8)
    static let volcano = Data(
        "<!doctype html><html><body><h1>Volcanoes</h1><p>Mount Etna in Sicily is the most active volcano in Europe.</p></body></html>".utf8)
    /// A two-page PDF (generated: ``PDFFixture``), read with Poppler.
    static let kilauea = PDFFixture.document(pages: [
        ["Kilauea", "Kilauea in Hawaii erupted without a break from 1983 to 2018."], ["Its lava reached the sea."],
    ])

    /// A server over the models in `models` (by default the installed ones), 1 thread, its
    /// data in a new folder; `setUp` prepares its runtime first.
    static func withServer(
        models: URL = TestEnvironment.installedModelsDirectory, setUp: (RunAnywhereRuntime) throws -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: models, dataDirectory: try TestEnvironment.temporaryDirectory("rag-routes").appendingPathComponent("data")
            ))
        runtime.frameworks.register(LlamaCppAdapter())
        runtime.frameworks.register(pdfReader: PopplerPDFReader())
        try setUp(runtime)
        let server = RunAnywhereServer(
            runtime: runtime,
            configuration: ServerConfiguration(
                port: 0, threads: 1, loadOptions: ModelLoadOptions(contextLength: 1024, threads: 1, flashAttention: .disabled),
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            ))
        try await server.checkedApplication().test(.router) { client in try await body(client) }
        await runtime.unloadAllModels()
    }

    static func get(_ client: some TestClientProtocol, _ uri: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: uri, method: .get) { ($0.status, try OpenAIRouteTests.json($0.body)) }
    }

    static func documents(_ client: some TestClientProtocol, _ name: String) async throws -> [[String: Any]] {
        let (status, body) = try await get(client, "/api/rag/collections/\(name)/documents")
        #expect(status == .ok)
        return try #require(body["documents"] as? [[String: Any]])
    }

    @Test func uploadsAreListedAskedWithNumberedSourcesOpenedAndRemoved() async throws {
        try await Self.withServer { client in
            try await client.execute(
                uri: "/api/rag/collections/notes/documents", method: .post, headers: Self.upload,
                body: Self.form([("cats.md", Self.cats), ("../etna.html", Self.volcano), ("kilauea.pdf", Self.kilauea)])
            ) { response in
                #expect(response.status == .created)
                let report = try OpenAIRouteTests.json(response.body)
                #expect(report["embeddingModelId"] as? String == SDKConstants.Models.defaultEmbeddingModelID)
                let documents = try #require(report["documents"] as? [[String: Any]])
                #expect(
                    documents.map { $0["path"] as? String } == ["cats.md", "etna.html", "kilauea.pdf"],
                    "stored by file name, without folders")
                #expect(documents.map { $0["format"] as? String } == ["markdown", "html", "pdf"])
            }
            let (status, listing) = try await Self.get(client, "/api/rag/collections")
            let collection = try #require((listing["collections"] as? [[String: Any]])?.first)
            #expect(status == .ok && collection["name"] as? String == "notes" && collection["documentCount"] as? Int == 3)
            #expect(
                collection["chunkCount"] as? Int == 3
                    && collection["embeddingModelId"] as? String == SDKConstants.Models.defaultEmbeddingModelID)
            #expect(try await Self.documents(client, "notes").map { $0["path"] as? String } == ["cats.md", "etna.html", "kilauea.pdf"])

            // Streamed: deltas, then `done` with the numbered sources, best first.
            let question = ByteBuffer(
                string: #"{"question": "Which volcano is the most active in Europe?", "topK": 2, "maxTokens": 6, "temperature": 0}"#)
            let sources = try await client.execute(
                uri: "/api/rag/collections/notes/questions", method: .post, headers: .json, body: question
            ) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "text/event-stream")
                let events = try ModelCatalogRouteTests.events(response.body)
                #expect(events.dropLast().allSatisfy { $0.name == "delta" } && events.last?.name == "done", "\(events.map(\.name))")
                let done = try #require(events.last?.data)
                let deltas = events.dropLast().compactMap { $0.data["content"] as? String }.joined()
                #expect(done["answer"] as? String == deltas && !deltas.isEmpty)
                #expect(done["model"] as? String == RunAnywhere.defaultModelID && done["collection"] as? String == "notes")
                return try #require(done["sources"] as? [[String: Any]])
            }
            #expect(sources.map { $0["number"] as? Int } == [1, 2])
            #expect(sources.first?["document"] as? String == "etna.html" && (sources.first?["text"] as? String)?.contains("Etna") == true)

            // The retrieval alone: the same passages, and no answer.
            let search = ByteBuffer(string: #"{"query": "Which volcano is the most active in Europe?", "topK": 2}"#)
            try await client.execute(uri: "/api/rag/collections/notes/search", method: .post, headers: .json, body: search) { response in
                #expect(response.status == .ok)
                let found = try OpenAIRouteTests.json(response.body)
                let listed = try #require(found["sources"] as? [[String: Any]])
                #expect(found["collection"] as? String == "notes" && found["answer"] == nil)
                #expect(listed.map { $0["number"] as? Int } == [1, 2])
                #expect(listed.map { $0["document"] as? String } == sources.map { $0["document"] as? String })
                #expect(listed.map { $0["ordinal"] as? Int } == sources.map { $0["ordinal"] as? Int })
            }
            // A query longer than the embedding model reads is cut to fit for the search.
            let long = ByteBuffer(string: #"{"query": "\#(String(repeating: "volcano ", count: 2000))", "topK": 1}"#)
            try await client.execute(uri: "/api/rag/collections/notes/search", method: .post, headers: .json, body: long) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }

            // A source opens its passage.
            let ordinal = try #require(sources.first?["ordinal"] as? Int)
            let (found, passage) = try await Self.get(client, "/api/rag/collections/notes/passages?document=etna.html&ordinal=\(ordinal)")
            #expect(
                found == .ok && passage["text"] as? String == sources.first?["text"] as? String
                    && passage["documentPath"] as? String == "etna.html")
            #expect(passage["start"] as? Int == sources.first?["start"] as? Int && passage["end"] as? Int == sources.first?["end"] as? Int)
            // A name spelled with percent-encoding is the same collection, as it is at every route.
            #expect(try await Self.get(client, "/api/rag/collections/n%6Ftes/passages?document=etna.html&ordinal=\(ordinal)").0 == .ok)
            #expect(try await Self.get(client, "/api/rag/collections/notes/passages?document=etna.html&ordinal=9").0 == .notFound)
            #expect(try await Self.get(client, "/api/rag/collections/notes/passages?document=nope.md&ordinal=0").0 == .notFound)
            #expect(try await Self.get(client, "/api/rag/collections/notes/passages?document=etna.html&ordinal=-1").0 == .badRequest)

            // Whole, as JSON.
            let whole = ByteBuffer(string: #"{"question": "What is a group of cats called?", "topK": 1, "maxTokens": 4, "stream": false}"#)
            try await client.execute(uri: "/api/rag/collections/notes/questions", method: .post, headers: .json, body: whole) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "application/json")
                let answer = try OpenAIRouteTests.json(response.body)
                let only = try #require((answer["sources"] as? [[String: Any]])?.first)
                #expect(only["number"] as? Int == 1 && only["document"] as? String == "cats.md")
            }
            // The PDF's passage: its two pages' text, a blank line between them.
            let fromPDF = ByteBuffer(
                string: #"{"question": "Which volcano in Hawaii erupted from 1983 to 2018?", "topK": 1, "maxTokens": 4, "stream": false}"#)
            try await client.execute(uri: "/api/rag/collections/notes/questions", method: .post, headers: .json, body: fromPDF) {
                response in
                let only = try #require((try OpenAIRouteTests.json(response.body)["sources"] as? [[String: Any]])?.first)
                #expect(only["document"] as? String == "kilauea.pdf", "\(only)")
                let text = only["text"] as? String ?? ""
                #expect(text.contains("erupted without a break from 1983 to 2018.\n\nIts lava reached the sea."), "\(text)")
            }

            try await client.execute(uri: "/api/rag/collections/notes/documents?path=cats.md", method: .delete) {
                #expect($0.status == .noContent)
            }
            #expect(try await Self.documents(client, "notes").map { $0["path"] as? String } == ["etna.html", "kilauea.pdf"])
            try await client.execute(uri: "/api/rag/collections/notes/documents?path=cats.md", method: .delete) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/api/rag/collections/notes", method: .delete) { #expect($0.status == .noContent) }
            #expect((try await Self.get(client, "/api/rag/collections").1["collections"] as? [Any])?.isEmpty == true)
            #expect(try await Self.get(client, "/api/rag/collections/notes/documents").0 == .notFound)
        }
    }

    /// A conversation's message answered from a collection: the question saved as asked, the
    /// answer saved with its passages (its `grounding`), kept by a retry and in the export.
    /// A key's account has collections of its own: another account neither lists nor reads nor
    /// asks nor deletes them, and its collection of the same name is another.
    @Test func collectionsBelongToTheirAccount() async throws {
        @Sendable func merging(_ a: HTTPFields, _ b: HTTPFields) -> HTTPFields { a + b }
        try await Self.withServer { client in
            func key(_ name: String, as admin: HTTPFields = [:]) async throws -> HTTPFields {
                let made = try await client.execute(
                    uri: "/api/keys", method: .post, headers: merging(admin, [.contentType: "application/json"]),
                    body: ByteBuffer(string: #"{"name": "\#(name)", "scopes": ["admin"]}"#))
                let key = try #require(try OpenAIRouteTests.json(made.body)["key"] as? String)
                return [.authorization: "Bearer \(key)"]
            }
            let alice = try await key("alice")
            let bob = try await key("bob", as: alice)
            try await client.execute(
                uri: "/api/rag/collections/notes/documents", method: .post, headers: merging(Self.upload, alice),
                body: Self.form([("cats.md", Self.cats)])
            ) { #expect($0.status == .created) }
            let listed = try await client.execute(uri: "/api/rag/collections", method: .get, headers: bob)
            #expect(try #require(try OpenAIRouteTests.json(listed.body)["collections"] as? [Any]).isEmpty, "bob lists alice's")
            let attempts: [(String, HTTPRequest.Method, String)] = [
                ("/api/rag/collections/notes/documents", .get, ""),
                ("/api/rag/collections/notes/passages?document=cats.md&ordinal=0", .get, ""),
                ("/api/rag/collections/notes/questions", .post, #"{"question": "What is a group of cats called?", "stream": false}"#),
                ("/api/rag/collections/notes/search", .post, #"{"query": "cats"}"#),
                ("/api/rag/collections/notes/documents?path=cats.md", .delete, ""), ("/api/rag/collections/notes", .delete, ""),
            ]
            for (uri, method, body) in attempts {
                try await client.execute(
                    uri: uri, method: method, headers: merging(bob, [.contentType: "application/json"]), body: ByteBuffer(string: body)
                ) {
                    #expect($0.status == .notFound, "bob's \(method) \(uri): \($0.status)")
                }
            }
            let own = try await client.execute(uri: "/api/rag/collections/notes/documents", method: .get, headers: alice)
            #expect(
                try #require(try OpenAIRouteTests.json(own.body)["documents"] as? [[String: Any]]).map { $0["path"] as? String } == [
                    "cats.md"
                ])
        }
    }

    @Test func aConversationAnswerFromDocumentsIsSavedWithItsSources() async throws {
        try await Self.withServer { client in
            try await client.execute(
                uri: "/api/rag/collections/notes/documents", method: .post, headers: Self.upload,
                body: Self.form([("cats.md", Self.cats), ("etna.html", Self.volcano)])
            ) { #expect($0.status == .created) }
            let id = try await client.execute(uri: "/api/conversations", method: .post, headers: .json, body: ByteBuffer(string: "{}")) {
                response in
                try #require(try OpenAIRouteTests.json(response.body)["id"] as? String)
            }
            let ask =
                #"{"content": "Which volcano is the most active in Europe?", "model": "\#(RunAnywhere.defaultModelID)", "maxTokens": 6, "temperature": 0, "collection": "notes", "passages": 1, "reranker": "none"}"#
            let streamed = try await client.execute(
                uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: ByteBuffer(string: ask)
            ) { response in
                #expect(response.status == .ok)
                let events = try ModelCatalogRouteTests.events(response.body)
                #expect(events.last?.name == "message", "\(events.map(\.name))")
                return try #require(events.last?.data)
            }
            let grounding = try #require(streamed["grounding"] as? [String: Any])
            let sources = try #require(grounding["sources"] as? [[String: Any]])
            #expect(grounding["collection"] as? String == "notes" && sources.count == 1)
            #expect(
                sources.first?["documentPath"] as? String == "etna.html" && (sources.first?["text"] as? String)?.contains("Etna") == true)
            let (_, conversation) = try await Self.get(client, "/api/conversations/\(id)")
            let messages = try #require(conversation["messages"] as? [[String: Any]])
            #expect(
                messages.first?["content"] as? String == "Which volcano is the most active in Europe?",
                "the question is saved as asked, not the prompt")
            #expect((messages.last?["grounding"] as? [String: Any])?["collection"] as? String == "notes")
            // A retry answers from the same passages.
            let retry = #"{"model": "\#(RunAnywhere.defaultModelID)", "maxTokens": 6, "temperature": 0}"#
            let retried = try await client.execute(
                uri: "/api/conversations/\(id)/retry", method: .post, headers: .json, body: ByteBuffer(string: retry)
            ) { response in
                try #require(try ModelCatalogRouteTests.events(response.body).last?.data)
            }
            #expect(
                ((retried["grounding"] as? [String: Any])?["sources"] as? [[String: Any]])?.first?["documentPath"] as? String == "etna.html"
            )
            let markdown = try await client.execute(uri: "/api/conversations/\(id)/export?format=md", method: .get) {
                String(buffer: $0.body)
            }
            #expect(markdown.contains("Sources (notes):\n1. etna.html, passage 1"), "\(markdown)")
            // A plain message is not grounded; an unknown collection is a 404 and saves nothing.
            let plain = #"{"content": "Thanks", "model": "\#(RunAnywhere.defaultModelID)", "maxTokens": 3}"#
            let answered = try await client.execute(
                uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: ByteBuffer(string: plain)
            ) { response in
                try #require(try ModelCatalogRouteTests.events(response.body).last?.data)
            }
            #expect(answered["grounding"] == nil)
            let unknown = #"{"content": "Hi", "model": "\#(RunAnywhere.defaultModelID)", "collection": "nope"}"#
            try await client.execute(
                uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: ByteBuffer(string: unknown)
            ) { response in
                #expect(response.status == .notFound)
            }
            let tooMany = #"{"content": "Hi", "model": "\#(RunAnywhere.defaultModelID)", "collection": "notes", "passages": 0}"#
            try await client.execute(
                uri: "/api/conversations/\(id)/messages", method: .post, headers: .json, body: ByteBuffer(string: tooMany)
            ) { response in
                let error = try OpenAIRouteTests.error(response.body)
                #expect(response.status == .badRequest && error["param"] as? String == "passages")
            }
            let (_, after) = try await Self.get(client, "/api/conversations/\(id)")
            #expect((after["messages"] as? [Any])?.count == 4, "the refused messages saved nothing")
        }
    }

    @Test func badInputIsRefusedClearlyAndLeavesTheCollectionAsItWas() async throws {
        try await Self.withServer { client in
            try await client.execute(
                uri: "/api/rag/collections/kept/documents", method: .post, headers: Self.upload, body: Self.form([("cats.md", Self.cats)])
            ) {
                #expect($0.status == .created)
            }
            let before = try await Self.documents(client, "kept")
            let refused: [(String, [(String, Data)], String)] = [
                (
                    "a damaged PDF", [("etna.html", Self.volcano), ("paper.pdf", Data("%PDF-1.7 stuff".utf8))],
                    "paper.pdf could not be read as PDF"
                ),
                (
                    "an encrypted PDF", [("locked.pdf", PDFFixture.encrypted(pages: [["Secret."]]))],
                    "locked.pdf is encrypted with a password"
                ),
                ("a PDF without text", [("scan.pdf", PDFFixture.document(pages: [[], []]))], "its 2 page(s) hold no text"),
                ("a Word file", [("report.docx", Data("PK".utf8))], "Word documents are not supported"),
                ("a binary", [("etna.html", Self.volcano), ("blob.txt", Data([0x41, 0x00, 0x42]))], "NUL byte"),
                ("damaged UTF-8", [("broken.md", Data([0x23, 0x20, 0xC3, 0x28]))], "not UTF-8"),
                ("an empty file", [("empty.txt", Data("  \n".utf8))], "no text"),
                ("a nameless file", [("", Self.cats)], "file name"),
                ("one file twice", [("etna.html", Self.volcano), ("etna.html", Self.volcano)], "given twice"),
            ]
            for (what, files, message) in refused {
                try await client.execute(
                    uri: "/api/rag/collections/kept/documents", method: .post, headers: Self.upload, body: Self.form(files)
                ) { response in
                    #expect(response.status == .badRequest, "\(what)")
                    let text = try OpenAIRouteTests.error(response.body)["message"] as? String ?? ""
                    #expect(text.contains(message), "\(what): \(text)")
                }
                let after = try await Self.documents(client, "kept")
                #expect(after.map { $0["path"] as? String } == before.map { $0["path"] as? String }, "\(what) stored nothing")
                #expect(after.map { $0["sha256"] as? String } == before.map { $0["sha256"] as? String }, "\(what) changed nothing")
            }
            // A refused upload into a new collection makes no collection.
            try await client.execute(
                uri: "/api/rag/collections/fresh/documents", method: .post, headers: Self.upload,
                body: Self.form([("x.pdf", Data("%PDF".utf8))])
            ) {
                #expect($0.status == .badRequest)
            }
            let names = (try await Self.get(client, "/api/rag/collections").1["collections"] as? [[String: Any]])?.map {
                $0["name"] as? String
            }
            #expect(names == ["kept"])

            let other: [(String, ByteBuffer, HTTPFields, HTTPResponse.Status)] = [
                ("/api/rag/collections/kept/documents", ByteBuffer(string: "{}"), .json, .badRequest),  // not a form
                ("/api/rag/collections/kept/documents", Self.form([], fields: ["embeddingModel": ""]), Self.upload, .badRequest),  // no files
                (
                    "/api/rag/collections/kept/documents", Self.form([("a.md", Self.cats)], fields: ["embeddingModel": "nope"]),
                    Self.upload, .notFound
                ),
                ("/api/rag/collections/-bad/documents", Self.form([("a.md", Self.cats)]), Self.upload, .badRequest),
                ("/api/rag/collections/kept/questions", ByteBuffer(string: #"{"question": "  "}"#), .json, .badRequest),
                ("/api/rag/collections/kept/questions", ByteBuffer(string: #"{"question": "cats?", "topK": 0}"#), .json, .badRequest),
                ("/api/rag/collections/kept/questions", ByteBuffer(string: #"{"question": "cats?", "maxTokens": 0}"#), .json, .badRequest),
                (
                    "/api/rag/collections/kept/questions", ByteBuffer(string: #"{"question": "cats?", "temperature": 3}"#), .json,
                    .badRequest
                ),
                ("/api/rag/collections/kept/questions", ByteBuffer(string: #"{"question": "cats?", "model": "nope"}"#), .json, .notFound),
                (
                    "/api/rag/collections/kept/questions", ByteBuffer(string: #"{"question": "cats?", "reranker": "nope"}"#), .json,
                    .notFound
                ),
                ("/api/rag/collections/kept/questions", ByteBuffer(string: #"{"question": "cats?", "reranker": ""}"#), .json, .badRequest),
                ("/api/rag/collections/none/questions", ByteBuffer(string: #"{"question": "cats?"}"#), .json, .notFound),
                ("/api/rag/collections/kept/search", ByteBuffer(string: #"{"query": "  "}"#), .json, .badRequest),
                ("/api/rag/collections/kept/search", ByteBuffer(string: #"{"query": "cats?", "topK": 101}"#), .json, .badRequest),
                ("/api/rag/collections/kept/search", ByteBuffer(string: #"{"query": "cats?", "reranker": "nope"}"#), .json, .notFound),
                ("/api/rag/collections/none/search", ByteBuffer(string: #"{"query": "cats?"}"#), .json, .notFound),
            ]
            for (uri, body, headers, status) in other {
                try await client.execute(uri: uri, method: .post, headers: headers, body: body) { response in
                    #expect(response.status == status, "\(uri) \(String(buffer: body).prefix(80))")
                    let error = try OpenAIRouteTests.error(response.body)
                    #expect((error["message"] as? String)?.isEmpty == false, "the usual error envelope")
                    // A number out of its range is named.
                    for field in ["topK", "maxTokens", "temperature"] where String(buffer: body).contains(#""\#(field)""#) {
                        #expect(error["param"] as? String == field, "\(uri) \(String(buffer: body))")
                    }
                }
            }
            #expect(try await Self.documents(client, "kept").map { $0["sha256"] as? String } == before.map { $0["sha256"] as? String })
            try await client.execute(uri: "/api/rag/collections/none", method: .delete) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/rag/collections/kept/documents", method: .delete) {
                #expect($0.status == .badRequest, "no path")
            }
        }
    }

    /// A question reranked by the reranker it names (the generated fixture, whose scores are
    /// noise): each source has its rerank score beside its cosine score and the answer names the
    /// reranker; `none` turns reranking off, and a model that is not a reranker is refused.
    @Test func aQuestionIsRerankedByTheRerankerItNamesOrNone() async throws {
        let models = try TestEnvironment.temporaryDirectory("rag-reranker-models")
        defer { try? FileManager.default.removeItem(at: models) }
        for id in [SDKConstants.Models.defaultEmbeddingModelID, RunAnywhere.defaultModelID] {
            try FileManager.default.createSymbolicLink(
                at: models.appendingPathComponent(id),
                withDestinationURL: TestEnvironment.installedModelsDirectory.appendingPathComponent(id)
            )
        }
        let reranker = "reranker-fixture"
        try await Self.withServer(
            models: models,
            setUp: { runtime in
                let file = models.appendingPathComponent("\(reranker).gguf")
                try GGUFWriter.rerankerFixture().write(to: file)
                try runtime.registerModel(id: reranker, name: reranker, url: file, framework: .llamaCpp, modality: .reranking)
            }
        ) { client in
            try await client.execute(
                uri: "/api/rag/collections/notes/documents", method: .post, headers: Self.upload,
                body: Self.form([("cats.md", Self.cats), ("etna.html", Self.volcano)])
            ) { #expect($0.status == .created) }
            func ask(_ field: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                let body = ByteBuffer(
                    string: #"{"question": "Which volcano is the most active?", "topK": 2, "maxTokens": 2, "stream": false\#(field)}"#)
                return try await client.execute(uri: "/api/rag/collections/notes/questions", method: .post, headers: .json, body: body) {
                    ($0.status, try OpenAIRouteTests.json($0.body))
                }
            }
            for field in [#", "reranker": "\#(reranker)""#, ""] {  // named, and by default the only reranker downloaded
                let (status, answer) = try await ask(field)
                let sources = try #require(answer["sources"] as? [[String: Any]])
                let scores = sources.compactMap { $0["rerankScore"] as? Double }
                #expect(status == .ok && answer["reranker"] as? String == reranker, "\(field)")
                #expect(
                    sources.count == 2 && scores.count == 2 && scores == scores.sorted(by: >)
                        && sources.allSatisfy { $0["score"] is Double })
            }
            let (status, plain) = try await ask(#", "reranker": "none""#)
            let sources = try #require(plain["sources"] as? [[String: Any]])
            #expect(status == .ok && plain["reranker"] == nil && sources.count == 2 && sources.allSatisfy { $0["rerankScore"] == nil })

            let (refused, body) = try await ask(#", "reranker": "\#(SDKConstants.Models.defaultEmbeddingModelID)""#)
            let error = try #require(body["error"] as? [String: Any])
            #expect(refused == .badRequest && error["param"] as? String == "reranker" && error["code"] as? String == "model_incompatible")
            #expect((error["message"] as? String)?.contains("not a reranker") == true, "\(error)")
        }
    }
}
