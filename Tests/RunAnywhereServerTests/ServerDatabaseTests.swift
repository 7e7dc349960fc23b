import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereBenchmarks
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereServer

/// The replicas' PostgreSQL database, below the routes, on a throwaway cluster: opened by several
/// replicas at once it is migrated once; the benchmark history keeps the newest runs, reports a
/// running run whose replica stopped saving it as interrupted, and clears; settings changed
/// through two replicas at once both keep their change (the row lock).
@Suite(.processLane, .serialized, .enabled(if: TestPostgres.isInstalled, "scripts/setup --tests installs PostgreSQL"), .postgresCluster)
struct ServerDatabaseTests {
    let logger = Logger(label: "server-database-tests")

    static let device = BenchmarkDeviceInfo(
        modelName: "Test Machine", chipName: "Test CPU", totalMemoryBytes: 8 << 30, availableMemoryBytes: 4 << 30, osVersion: "Debian 12",
        appVersion: "0.1.0", sdkVersion: "0.1.0")

    /// A new conversation in `database` and a chat in it whose model answers until it is stopped.
    func chatAnsweringUntilStopped(on database: ServerDatabase, name: String = #function) async throws -> (Conversation, ChatService) {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1), name: name)
        try await runtime.loadModel("scripted")
        var configuration = ServerConfiguration(logger: logger)
        configuration.database = database
        let conversations = ServerConversations(runtime: runtime, configuration: configuration)
        let conversation = Conversation()
        try await conversations.save(conversation)
        return (
            conversation,
            ChatService(runtime: runtime, store: conversations.chatStore, settings: GenerationSettings(), conversation: conversation)
        )
    }

    /// Two replicas' connections to one new database, closed once `body` is done.
    func withTwoReplicas(_ body: (ServerDatabase, ServerDatabase) async throws -> Void) async throws {
        let url = try PostgresCluster.newDatabase()
        let (first, second) = (
            try await ServerDatabase.open(url: url, logger: logger), try await ServerDatabase.open(url: url, logger: logger)
        )
        do {
            try await body(first, second)
        } catch {
            await first.close()
            await second.close()
            throw error
        }
        await first.close()
        await second.close()
    }

    @Test func replicasOpeningTogetherMigrateOnceAndShareTheBenchmarkHistory() async throws {
        let (url, logger) = (try PostgresCluster.newDatabase(), logger)
        async let first = ServerDatabase.open(url: url, logger: logger)
        async let second = ServerDatabase.open(url: url, logger: logger)
        async let third = ServerDatabase.open(url: url, logger: logger)
        let opened = try await [first, second, third]
        defer { for database in opened { Task { await database.close() } } }
        let versions = try await opened[0].run { connection in
            var versions: [Int] = []
            for try await version in try await connection.query("SELECT version FROM runanywhere_schema ORDER BY version", logger: logger)
                .decode(Int.self)
            {
                versions.append(version)
            }
            return versions
        }
        #expect(versions == Array(1...ServerDatabase.migrations.count), "each migration recorded once: \(versions)")

        let (one, two) = (PostgresBenchmarkHistory(database: opened[0]), PostgresBenchmarkHistory(database: opened[1]))
        for index in 0..<(BenchmarkStore.maxRuns + 2) {
            try await one.save(
                BenchmarkRun(
                    startedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)), results: [], deviceInfo: Self.device,
                    status: .completed))
        }
        let runs = try await two.runs()
        #expect(runs.count == BenchmarkStore.maxRuns, "the oldest beyond the limit are pruned")
        #expect(runs.first?.startedAt == Date(timeIntervalSince1970: 1_700_000_000 + Double(BenchmarkStore.maxRuns + 1)), "newest first")
        // A run its replica stopped saving long ago is interrupted; one saved now still runs.
        let stale = BenchmarkRun(startedAt: Date(), results: [], deviceInfo: Self.device, status: .running)
        let id = stale.id
        try await one.save(stale)
        _ = try await opened[0].run { connection in
            try await connection.query("UPDATE runanywhere_benchmark_runs SET saved_at = 0 WHERE id = \(id)", logger: logger)
        }
        #expect(try await two.runs().first { $0.id == stale.id }?.status == .interrupted)
        try await one.save(stale)
        #expect(try await two.runs().first { $0.id == stale.id }?.status == .running)
        try await two.clear()
        #expect(try await one.runs().isEmpty)
    }

    @Test func settingsChangedThroughTwoReplicasAtOnceKeepBothChanges() async throws {
        try await withTwoReplicas { first, second in
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            func settings(_ database: ServerDatabase) -> ServerSettings {
                var configuration = ServerConfiguration(logger: logger)
                configuration.database = database
                return ServerSettings(dataDirectory: folder, configuration: configuration)
            }
            // Twenty changes of two keys at once, half through each replica: every one is kept.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 1...20 {
                    group.addTask {
                        _ = try await settings(index.isMultiple(of: 2) ? first : second).update { saved in
                            if index.isMultiple(of: 2) { saved.maxTokens += 1 } else { saved.topK += 1 }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let saved = try await settings(first).load()
            let defaults = GenerationSettings()
            #expect(saved.maxTokens == defaults.maxTokens + 10 && saved.topK == defaults.topK + 10, "\(saved)")
            #expect(
                !FileManager.default.fileExists(atPath: folder.appendingPathComponent(SDKConstants.Files.settings).path),
                "nothing in the file")
            try await settings(second).reset()
            #expect(try await settings(first).load() == GenerationSettings())
        }
    }

    /// A replica whose key table another session holds locked cannot read its keys: `/ready`
    /// says so within its limit instead of waiting as long as the lock is held.
    @Test func aStoreThatDoesNotAnswerMakesTheReplicaUnreadyWithinItsLimit() async throws {
        try await withTwoReplicas { database, holder in
            var configuration = ServerConfiguration(port: 0, logger: logger)
            configuration.database = database
            configuration.readinessLimit = .seconds(1)
            let replica = RunAnywhereServer(runtime: try scriptedRuntime(), configuration: configuration)
            try await holder.server.whileLocked("runanywhere_api_keys", logger: logger) {
                try await replica.checkedApplication().test(.router) { client in
                    let unready = try await client.execute(uri: "/ready", method: .get)
                    let problems = try #require(try OpenAIRouteTests.json(unready.body)["problems"] as? [String])
                    #expect(unready.status == .serviceUnavailable)
                    #expect(problems.contains("the key store cannot be read: no answer within 1.0 seconds"), "\(problems)")
                }
            }
        }
    }

    /// An answer stopped on a replica is saved as interrupted; a conversation deleted through one
    /// replica while another is answering in it stays deleted: the answer's end only replaces a
    /// conversation the database still holds.
    @Test func aConversationDeletedThroughOneReplicaIsNotSavedAgainByAnotherReplicasAnswer() async throws {
        try await withTwoReplicas { first, second in
            let (conversation, chat) = try await chatAnsweringUntilStopped(on: first)
            let other = PostgresConversations(database: second, account: "")
            let stopped = try await chat.send("one two three")
            stopped.message.cancel()
            #expect(await stopped.message.value.analytics?.wasInterrupted == true)
            #expect(try await other.load(id: conversation.id)?.messages.count == 2, "a stopped answer is saved as interrupted")

            let reply = try await chat.send("four five six")
            #expect(try await other.load(id: conversation.id)?.messages.count == 3, "saved with its question")
            #expect(try await other.delete(id: conversation.id))
            reply.message.cancel()
            #expect(await reply.message.value.analytics?.wasInterrupted == true)
            #expect(try await other.load(id: conversation.id) == nil, "the answer's end did not save it again")
            await #expect(throws: SDKError.self) { try await chat.send("again") }
        }
    }

    /// A key's name is one active key's over every replica: two replicas making it at once make
    /// one key, the other is told the name is taken; once revoked, the name can be used again.
    @Test func aConversationOfTheConversationsAPIIsSharedByReplicasAndKeptPerAccount() async throws {
        try await withTwoReplicas { first, second in
            let (here, there) = (
                ConversationItemStore(database: first, account: "team"), ConversationItemStore(database: second, account: "team")
            )
            func message(_ text: String, id: String? = nil) throws -> ResponseItem {
                let idField = id.map { #""id": "\#($0)", "# } ?? ""
                return try JSONDecoder().decode(ResponseItem.self, from: Data(#"{\#(idField)"role": "user", "content": "\#(text)"}"#.utf8))
            }
            let made = try await here.create(metadata: ["topic": "a"], items: [try message("one")])
            #expect(try await there.find(made.id)?.metadata == ["topic": "a"], "found through the other replica")
            #expect(try await ConversationItemStore(database: second, account: "other").find(made.id) == nil, "another account's")
            let added = try #require(try await there.append([try message("two", id: "msg_two"), try message("three")], to: made.id))
            #expect(added.first?.id == "msg_two" && added.allSatisfy { $0.id != nil })
            _ = try await here.append([try message("two again", id: "msg_two")], to: made.id)
            let texts = try #require(try await here.items(of: made.id)).compactMap { item -> String? in
                guard case .message(let message) = item else { return nil }
                return message.text
            }
            #expect(texts == ["one", "two", "three"], "in the order added; an id held already is left out")
            #expect(try await there.deleteItem("msg_two", of: made.id))
            #expect(try await here.item("msg_two", of: made.id) == nil)
            #expect(try await there.update(made.id, metadata: ["topic": "b"])?.metadata == ["topic": "b"])
            #expect(try await here.delete(made.id))
            #expect(try await there.items(of: made.id) == nil)
            #expect(try await there.append([try message("four")], to: made.id) == nil)
            let left = try await first.run { connection in
                var count = 0
                for try await rows in try await connection.query(
                    "SELECT COUNT(*) FROM runanywhere_conversation_items", logger: connection.logger
                )
                .decode(Int.self) { count = rows }
                return count
            }
            #expect(left == 0, "the items went with the conversation")
        }
    }

    @Test func aKeyNameIsOneActiveKeysOverEveryReplica() async throws {
        try await withTwoReplicas { first, second in
            /// The error making the key through `database` ends in; nil when it is made.
            @Sendable func refusal(_ database: ServerDatabase) async -> (any Error)? {
                do {
                    _ = try await APIKeyStore(database: database).create(name: "team", account: "team", scopes: [.inference])
                    return nil
                } catch {
                    return error
                }
            }
            async let one = refusal(first)
            async let two = refusal(second)
            let outcomes = await [one, two]
            let refusals = outcomes.compactMap { $0 as? SDKError }
            #expect(outcomes.compactMap { $0 }.count == 1 && refusals.first?.code == .modelAlreadyExists, "\(outcomes)")
            #expect(refusals.first?.message.contains("A key named 'team' exists") == true, "\(refusals)")
            #expect(try await APIKeyStore(database: second).revoke("team"))
            _ = try await APIKeyStore(database: first).create(name: "team", account: "c", scopes: [.inference])
            #expect(try await APIKeyStore(database: second).list().filter { $0.name == "team" }.count == 2, "the revoked and the new")
        }
    }

    /// A key's rate limit counts the requests of every replica: two a minute is two over both,
    /// the next refused on either until the shared bucket refills (one every 30 s).
    @Test func aKeysRateLimitCountsTheRequestsOfEveryReplica() async throws {
        try await withTwoReplicas { first, second in
            let (limited, _) = try await APIKeyStore(database: first).create(
                name: "team", account: "team", scopes: [.inference], requestsPerMinute: 2)
            let (open, _) = try await APIKeyStore(database: first).create(name: "ops", account: "ops", scopes: [.admin])
            let (one, two) = (
                KeyRing(store: APIKeyStore(database: first), serverKey: nil), KeyRing(store: APIKeyStore(database: second), serverKey: nil)
            )
            #expect(try await one.admit(.key(limited)) == nil)
            #expect(try await two.admit(.key(limited)) == nil)
            for ring in [one, two] {
                let wait = try #require(try await ring.admit(.key(limited)), "the third request a minute is refused on either replica")
                #expect(wait > 0 && wait <= 30, "\(wait) s")
            }
            for _ in 0..<5 { #expect(try await two.admit(.key(open)) == nil, "a key with no limit") }
        }
    }

    /// A key's usage is counted over every replica: `/api/keys/usage` through either shows both
    /// replicas' requests and tokens (each replica adds its counts every second, and its own
    /// before it reads).
    @Test func aKeysUsageIsCountedOverEveryReplica() async throws {
        try await withTwoReplicas { first, second in
            let (_, alice) = try await APIKeyStore(database: first).create(name: "alice", account: "alice", scopes: [.inference])
            let (_, admin) = try await APIKeyStore(database: first).create(name: "ops", account: "ops", scopes: [.admin])
            @Sendable func replica(_ database: ServerDatabase) throws -> RunAnywhereServer {
                var configuration = ServerConfiguration(port: 0, logger: logger)
                configuration.database = database
                return RunAnywhereServer(runtime: try scriptedRuntime(), configuration: configuration)
            }
            let chat = ByteBuffer(string: #"{"model": "scripted", "messages": [{"role": "user", "content": "one two three"}]}"#)
            @Sendable func usage(_ client: any TestClientProtocol) async throws -> [String: Any] {
                let response = try await client.execute(uri: "/api/keys/usage", method: .get, headers: [.authorization: "Bearer \(admin)"])
                #expect(response.status == .ok)
                return try #require((try OpenAIRouteTests.json(response.body)["keys"] as? [String: Any])?["alice"] as? [String: Any])
            }
            try await replica(first).checkedApplication().test(.router) { viaA in
                try await replica(second).checkedApplication().test(.router) { viaB in
                    for (client, times) in [(viaA, 2), (viaB, 1)] as [(any TestClientProtocol, Int)] {
                        for _ in 0..<times {
                            let response = try await client.execute(
                                uri: "/v1/chat/completions", method: .post,
                                headers: [.authorization: "Bearer \(alice)", .contentType: "application/json"], body: chat)
                            #expect(response.status == .ok)
                        }
                    }
                    // B's reads add B's request; A's two come from A's sharing every second.
                    let deadline = ContinuousClock.now + .seconds(60)
                    var throughB = try await usage(viaB)
                    while throughB["requests"] as? Int != 3, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(100))
                        throughB = try await usage(viaB)
                    }
                    #expect(throughB["requests"] as? Int == 3 && (throughB["completionTokens"] as? Int ?? 0) >= 3, "\(throughB)")
                    let throughA = try await usage(viaA)
                    #expect(throughA["requests"] as? Int == 3, "the same totals through either replica: \(throughA)")
                }
            }
        }
    }

    /// Two replicas on one database answer a conversation one at a time between them, and either
    /// stops the answer the other gives; a conversation deleted through one while the other
    /// answers in it stops that answer and stays deleted.
    @Test func replicasAnswerAConversationOneAtATimeAndEitherStopsTheAnswer() async throws {
        try await withTwoReplicas { first, second in
            func replica(_ database: ServerDatabase, _ runtime: RunAnywhereRuntime) -> RunAnywhereServer {
                var configuration = ServerConfiguration(port: 0, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
                configuration.database = database
                return RunAnywhereServer(runtime: runtime, configuration: configuration)
            }
            let answering = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1), name: "answering")
            let (a, b) = (replica(first, answering), replica(second, try scriptedRuntime(name: "other")))
            try await a.checkedApplication().test(.router) { viaA in
                try await b.checkedApplication().test(.router) { viaB in
                    let id = try await ConversationRouteTests.create(viaA)
                    let send = ByteBuffer(string: #"{"content": "one two three", "model": "scripted"}"#)
                    let messages = "/api/conversations/\(id)/messages"
                    async let stopped = viaA.execute(uri: messages, method: .post, headers: .json, body: send) { String(buffer: $0.body) }
                    try await ConversationRouteTests.untilAnswering(answering)
                    try await viaB.execute(uri: messages, method: .post, headers: .json, body: send) {
                        #expect($0.status == .conflict, "answered through the other replica")
                    }
                    try await viaB.execute(uri: "/api/conversations/\(id)/answer", method: .delete) { #expect($0.status == .noContent) }
                    #expect(try await stopped.contains(#""wasInterrupted":true"#), "the replica giving the answer stopped it")
                    try await viaB.execute(uri: "/api/conversations/\(id)/answer", method: .delete) {
                        #expect($0.status == .notFound, "no replica answers in it now")
                    }

                    async let deleted = viaA.execute(uri: messages, method: .post, headers: .json, body: send) { String(buffer: $0.body) }
                    try await ConversationRouteTests.untilAnswering(answering)
                    try await viaB.execute(uri: "/api/conversations/\(id)", method: .delete) { #expect($0.status == .noContent) }
                    #expect(try await deleted.contains("event: message"))
                    try await viaA.execute(uri: "/api/conversations/\(id)", method: .get) {
                        #expect($0.status == .notFound, "the answer's end did not save it again")
                    }
                }
            }
        }
    }

    /// A conversation renamed through one replica while another answers in it keeps both: the
    /// rename changes only the title, and the answer's end keeps a title renamed meanwhile.
    @Test func aRenameThroughOneReplicaAndAnAnswerOnAnotherAreBothKept() async throws {
        try await withTwoReplicas { first, second in
            let (conversation, chat) = try await chatAnsweringUntilStopped(on: first)
            let other = PostgresConversations(database: second, account: "")
            let reply = try await chat.send("one two three")
            #expect(try await other.load(id: conversation.id)?.title == "one two three", "titled by its first message")
            let renamed = try #require(try await other.rename(id: conversation.id, to: "  Counting "))
            #expect(renamed.title == "Counting" && renamed.messages.count == 1 && renamed.updatedAt > conversation.updatedAt)
            reply.message.cancel()
            _ = await reply.message.value
            let saved = try #require(try await other.load(id: conversation.id))
            #expect(saved.title == "Counting" && saved.messages.map(\.role) == [.user, .assistant], "\(saved.title)")
            #expect(try await other.rename(id: "nope", to: "x") == nil)
            await #expect(throws: SDKError.self) { try await other.rename(id: conversation.id, to: "  ") }
        }
    }

    /// A replica renews the claims of the answers it gives, and only those: a claim its release
    /// left behind lapses for any replica to take; a claim another replica asked to stop is
    /// reported at the renewal.
    @Test func aReplicaRenewsOnlyTheClaimsOfTheAnswersItGives() async throws {
        try await withTwoReplicas { first, second in
            let (here, there) = (PostgresAnswers(database: first), PostgresAnswers(database: second))
            #expect(try await here.claim(account: "", id: "given"))
            #expect(try await here.claim(account: "", id: "left"))
            #expect(try await !there.claim(account: "", id: "given"), "claimed by the other replica")
            #expect(try await there.askToStop(account: "", id: "given"))
            // Both claims as old as a dead replica's, then the one still given renewed.
            _ = try await first.returnsRows("UPDATE runanywhere_answering SET seen_at = seen_at - 60")
            let asked = try await here.keepAlive([(account: "", id: "given")])
            #expect(asked.map(\.id) == ["given"], "asked to stop")
            #expect(try await !there.claim(account: "", id: "given"), "renewed")
            #expect(try await there.claim(account: "", id: "left"), "the claim left behind lapsed")
        }
    }
}
