import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywherePostgres

/// The RAG store in PostgreSQL: the behaviours every store keeps (``RAGStoreBehaviours``), each on
/// a new database of one throwaway cluster, and what is PostgreSQL's own: one table set made once
/// by stores opened together, writers into one new collection ordered by the lock, a session
/// opened from a URL, unreachable and malformed URLs, collections kept per account, reads and
/// writes the database does not answer failing within their limits.
@Suite(.processLane, .serialized, .enabled(if: TestPostgres.isInstalled, "scripts/setup --tests installs PostgreSQL"), .postgresCluster)
struct PostgresRAGStoreTests {
    let logger = Logger(label: "rag-postgres-tests")

    func withStore(_ body: (PostgresRAGStore) async throws -> Void) async throws {
        let store = try await PostgresRAGStore.open(url: try PostgresCluster.newDatabase(), logger: logger)
        do {
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test func storesAndRanksByCosineBestFirst() async throws {
        try await withStore { try await RAGStoreBehaviours.storesAndRanksByCosineBestFirst($0) }
    }

    @Test func ingestingAgainReplacesTheDocumentsChunks() async throws {
        try await withStore { try await RAGStoreBehaviours.ingestingAgainReplacesTheDocumentsChunks($0) }
    }

    @Test func removingADocumentOrACollectionRemovesItsVectors() async throws {
        try await withStore { try await RAGStoreBehaviours.removingADocumentOrACollectionRemovesItsVectors($0) }
    }

    @Test func aFailedWriteLeavesTheCollectionAsItWas() async throws {
        try await withStore { try await RAGStoreBehaviours.aFailedWriteLeavesTheCollectionAsItWas($0) }
    }

    @Test func aCollectionRefusesAnotherEmbeddingModel() async throws {
        try await withStore { try await RAGStoreBehaviours.aCollectionRefusesAnotherEmbeddingModel($0) }
    }

    @Test func opensAPassageAndNamesWhatIsMissing() async throws {
        try await withStore { try await RAGStoreBehaviours.opensAPassageAndNamesWhatIsMissing($0) }
    }

    @Test func storesOpenedTogetherShareOneSetOfTablesAndWritersAreOrdered() async throws {
        let url = try PostgresCluster.newDatabase()
        async let first = PostgresRAGStore.open(url: url, logger: logger)
        async let second = PostgresRAGStore.open(url: url, logger: logger)
        let stores = try await [first, second]
        // Eight writers at once into one new collection: it is made once, and every document is kept.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    _ = try await stores[index % 2].write(
                        [RAGStoreBehaviours.document("/doc\(index).md", ["text \(index)"], [[Float(index), 1]])], collection: "shared",
                        embeddingModel: "m", dimensions: 2
                    )
                }
            }
            try await group.waitForAll()
        }
        let collections = try await stores[1].collections()
        #expect(collections.map(\.name) == ["shared"] && collections.first?.documentCount == 8 && collections.first?.chunkCount == 8)
        #expect(try await stores[0].documents(in: "shared").map(\.path) == (0..<8).map { "/doc\($0).md" })
        for store in stores { await store.close() }
    }

    /// A shared server's accounts each see only their collections, even of one name; a store
    /// whose table was made before collections had accounts is brought up to date, its
    /// collections the server's own.
    @Test func eachAccountSeesOnlyItsCollections() async throws {
        let url = try PostgresCluster.newDatabase()
        // The table as the store made it before accounts, with one collection in it.
        let older = try await PostgresServer.open(url: url, logger: logger, timeout: .seconds(10)) { server in
            try await server.client.withConnection { connection in
                try await connection.query(
                    """
                    CREATE TABLE rag_collections (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name TEXT NOT NULL UNIQUE,
                        embedding_model TEXT NOT NULL, dimensions BIGINT NOT NULL, created_at DOUBLE PRECISION NOT NULL)
                    """, logger: logger)
                try await connection.query(
                    "INSERT INTO rag_collections (name, embedding_model, dimensions, created_at) VALUES ('old', 'm', 2, 0)", logger: logger)
            }
        }
        await older.close()
        let store = try await PostgresRAGStore.open(url: url, logger: logger)
        let (alice, bob) = (store.scoped(to: "alice"), store.scoped(to: "bob"))
        #expect(try await store.collections().map(\.name) == ["old"], "the older collection is the server's own")
        for (owner, text) in [(alice, "alice's"), (bob, "bob's"), (store, "the server's")] {
            _ = try await owner.write(
                [RAGStoreBehaviours.document("/notes.md", [text], [[1, 0]])], collection: "notes", embeddingModel: "m", dimensions: 2)
        }
        #expect(try await alice.collections().map(\.name) == ["notes"])
        #expect(try await bob.collections().map(\.name) == ["notes"])
        #expect(try await store.collections().map(\.name) == ["notes", "old"])
        #expect(try await alice.search([1, 0], collection: "notes", topK: 5).map(\.text) == ["alice's"])
        #expect(try await alice.collection(named: "old") == nil, "another account's collection is not there")
        await expectSDKError(.fileNotFound, ["'old'"]) { try await alice.removeCollection("old") }
        try await bob.removeCollection("notes")
        #expect(try await alice.documents(in: "notes").count == 1, "only bob's was removed")
        #expect(try await store.documents(in: "notes").count == 1)
        await alice.close()  // a scoped store leaves the connections to the store that opened them
        #expect(try await store.collections().count == 2)
        await store.close()
    }

    @Test func aSessionOpensFromAURLAndNamesItWithoutThePassword() async throws {
        let url = try PostgresCluster.newDatabase()
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data")
            ))
        let withPassword = url.replacingOccurrences(of: "postgres://runanywhere@", with: "postgres://runanywhere:secret@")
        let session = try await RAGDatabases.session(withPassword, runtime: runtime)
        #expect(session.database.hasPrefix("postgres://runanywhere@127.0.0.1:") && !session.database.contains("secret"))
        #expect(try await session.listCollections().isEmpty)
        await expectSDKError(.fileNotFound, ["'docs'"]) { _ = try await session.listDocuments(collection: "docs") }
        await session.close()
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/rag.sqlite").path),
            "nothing was written to the SQLite default")

        let file = try await RAGDatabases.session(folder.appendingPathComponent("other.sqlite").path, runtime: runtime)
        #expect(file.database == folder.appendingPathComponent("other.sqlite").path)
        #expect(try await RAGDatabases.session(nil, runtime: runtime).database == folder.appendingPathComponent("data/rag.sqlite").path)
    }

    @Test func unreachableOrMalformedDatabasesAreClearErrors() async throws {
        await expectSDKError(.invalidInput, ["postgres://user"]) { _ = try await PostgresRAGStore.open(url: "postgres://", logger: logger) }
        await expectSDKError(.invalidInput, ["sslmode"]) {
            _ = try await PostgresRAGStore.open(url: "postgres://u@127.0.0.1/db?sslmode=odd", logger: logger)
        }
        // A password with an unencoded slash (or an at sign before one) would name another host or
        // make no URL: refused as such, the refusal hiding it. Other characters are taken as written.
        for password in ["pw/zq", "pw@zq/x", "pw?zq", "pw#zq"] {
            let url = "postgres://u:\(password)@127.0.0.1:1/db"
            await expectSDKError(.invalidInput, ["percent-encode it", "postgres://u@"]) {
                _ = try await PostgresRAGStore.open(url: url, logger: logger, timeout: .seconds(2))
            }
            #expect(throws: SDKError.self) { try PostgresServer.Endpoint(url) }
        }
        for (password, meant) in [("p ss", "p ss"), ("50%off", "50%off"), ("pw@zq", "pw@zq"), ("p%2Fss", "p/ss"), ("pässword", "pässword")]
        {
            let endpoint = try PostgresServer.Endpoint("postgres://u:\(password)@127.0.0.1:1/db?sslmode=disable")
            #expect(endpoint.client.password == meant && endpoint.client.host == "127.0.0.1", "\(password)")
            #expect(!endpoint.location.contains(password))
        }
        #expect(try PostgresServer.Endpoint("postgres://u@[::1]:5433/db?sslmode=disable").client.host == "::1")
        // The password is read to the last `@` before the query, so a database's name holding one is
        // said to encode it, and, encoded, is the name.
        await expectSDKError(.invalidInput, ["an @ in the database's name (%40)"]) {
            _ = try await PostgresRAGStore.open(url: "postgres://u:pw@127.0.0.1:1/d@b", logger: logger, timeout: .seconds(2))
        }
        #expect(try PostgresServer.Endpoint("postgres://u:pw@127.0.0.1:1/d%40b?sslmode=disable").client.database == "d@b")
        // An `@` in the query is not the password's: the host and database still show.
        let queried = await #expect(throws: SDKError.self) {
            _ = try await PostgresRAGStore.open(
                url: "postgres://u:pw@127.0.0.1:1/db?sslmode=disable&application_name=a@b", logger: logger, timeout: .seconds(2))
        }
        #expect(
            queried.map { !$0.message.contains("pw") && $0.message.contains("postgres://u@127.0.0.1:1/db") } == true,
            "\(String(describing: queried))")
        // Nothing listens on port 1, no host is named .invalid, the cluster has no such database: each
        // is said at once, not as a server that did not answer within the (here long) limit.
        await expectSDKError(.networkError, ["cannot be reached", "Connection refused"]) {
            _ = try await PostgresRAGStore.open(url: "postgres://nobody@127.0.0.1:1/db", logger: logger, timeout: .seconds(120))
        }
        await expectSDKError(.networkError, ["cannot be reached", "no-such-host.invalid"]) {
            _ = try await PostgresRAGStore.open(url: "postgres://nobody@no-such-host.invalid/db", logger: logger, timeout: .seconds(120))
        }
        // A server that takes the connection and never answers: the open gives up at its limit.
        let silent = try SilentListener()
        defer { silent.close() }
        await expectSDKError(.networkError, ["did not answer within 2"]) {
            _ = try await PostgresRAGStore.open(
                url: "postgres://u@127.0.0.1:\(silent.port)/db?sslmode=disable", logger: logger, timeout: .seconds(2))
        }
        let missing = try PostgresCluster.newDatabase().replacingOccurrences(
            of: #"/t_[0-9a-f]+\?"#, with: "/nothing_here?", options: .regularExpression)
        await expectSDKError(.fileWriteFailed, [#"database "nothing_here" does not exist"#]) {
            _ = try await PostgresRAGStore.open(url: missing, logger: logger, timeout: .seconds(120))
        }
    }

    /// A read or a write that the database does not answer (here: a table another session holds
    /// locked) fails within the store's limit, naming the database; once the lock is released,
    /// the store reads again.
    @Test func readsAndWritesTheDatabaseDoesNotAnswerFailWithinTheirLimits() async throws {
        let url = try PostgresCluster.newDatabase()
        let store = try await PostgresRAGStore.open(url: url, logger: logger, readLimit: .seconds(1), writeLimit: .seconds(1))
        let holder = try await PostgresRAGStore.open(url: url, logger: logger)
        defer {
            Task {
                await store.close()
                await holder.close()
            }
        }
        try await holder.server.whileLocked("rag_collections", logger: logger) {
            for write in [false, true] {
                let error = await #expect(throws: SDKError.self) {
                    if write { try await store.removeCollection("notes") } else { _ = try await store.collections() }
                }
                #expect(error?.message.contains("did not answer within 1.0 seconds") == true, "\(String(describing: error))")
            }
        }
        // Its limit stays 1 s: on a loaded machine a read can miss it, so the store has a minute
        // of tries to show it reads again (it did not break).
        let deadline = ContinuousClock.now + .seconds(60)
        var collections = try? await store.collections()
        while collections == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            collections = try? await store.collections()
        }
        #expect(collections?.isEmpty == true, "the store reads again once the lock is gone")
    }
}

/// A TCP port on the loopback address that takes connections (the kernel's backlog) and never
/// answers them.
struct SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
