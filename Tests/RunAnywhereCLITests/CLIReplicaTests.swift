import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Replicas of `runanywhere serve` on one PostgreSQL database (`--database`), as behind a load
/// balancer: two processes started together migrate the database once; a response stored through
/// one is continued, read and deleted through the other, and one made in the background by one is
/// cancelled through the other; settings changed through one are the
/// other's, and so is a conversation made, answered, renamed and deleted through either; a key made through one replica's admin
/// route or `runanywhere keys --database` counts on both, and a revoked one is refused by both
/// once they re-read their keys; a replica killed with SIGKILL loses nothing committed while the other answers
/// on; `/ready` says when the database is gone.
@Suite(
    .serverLane, .serialized, .postgresCluster,
    .enabled(
        if: TestEnvironment.engineInstalled && TestPostgres.isInstalled,
        "needs llama.cpp, the default model and PostgreSQL: run scripts/setup --tests --build tests"))
struct CLIReplicaTests {
    /// A request to a replica.
    static func send(_ method: HTTPMethod, _ url: String, key: String? = nil, body: [String: Any]? = nil) async throws -> (
        status: Int, text: String, json: [String: Any]?
    ) {
        try await ServeProcess.send(method, url, key: key, body: body)
    }

    /// Asks `check` every 50 ms until it holds, at most `limit`; whether it came to hold. The
    /// replicas re-read the keys every half second, but a loaded machine can stretch that by far:
    /// the limits here only keep a change that never spreads from hanging the test.
    static func within(_ limit: Duration, _ check: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        repeat {
            if try await check() { return true }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        return try await check()
    }

    @Test(.hangLimit(.seconds(600))) func replicasShareKeysAndStoredResponsesInPostgreSQL() async throws {
        let database = try PostgresCluster.newDatabase()
        let cluster = try #require(PostgresCluster.current)
        let (cli, home, _) = try CLIRunner.isolatedWithDefaultModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let arguments = ["--threads", "1", "--parallel", "1", "--database", database]
        async let startedA = Task.detached { try ServeProcess(cli, arguments: arguments) }.value
        async let startedB = Task.detached { try ServeProcess(cli, arguments: arguments) }.value
        let (a, b) = try await (startedA, startedB)
        defer {
            a.kill()
            _ = b.stop()
        }
        let migrated = (a.standardError + b.standardError).split(separator: "\n").filter { $0.contains("Database migrated") }
            .compactMap { $0.firstMatch(of: /version=(\d+)/).map { Int($0.1)! } }
        #expect(!migrated.isEmpty && migrated.count == Set(migrated).count, "each migration ran once for two replicas: \(migrated)")
        let (rootA, rootB) = ("http://127.0.0.1:\(a.port)", "http://127.0.0.1:\(b.port)")
        let model = SDKConstants.Models.defaultModelID

        // A response stored through A is continued, read and deleted through B.
        let first = try await Self.send(
            .POST, "\(rootA)/v1/responses", body: ["model": model, "input": "Name a colour.", "max_output_tokens": 4, "temperature": 0])
        #expect(first.status == 200, "\(first.json ?? [:])")
        let id = try #require(first.json?["id"] as? String)
        let next = try await Self.send(
            .POST, "\(rootB)/v1/responses",
            body: ["model": model, "input": "Another.", "previous_response_id": id, "max_output_tokens": 4, "temperature": 0])
        #expect(next.status == 200, "continued through the other replica: \(next.json ?? [:])")
        let nextID = try #require(next.json?["id"] as? String)
        let items = try await Self.send(.GET, "\(rootA)/v1/responses/\(nextID)/input_items")
        #expect((items.json?["data"] as? [Any])?.count == 3, "the earlier turn's items came through B: \(items.json ?? [:])")
        #expect(try await Self.send(.DELETE, "\(rootB)/v1/responses/\(id)").status == 200)
        #expect(try await Self.send(.GET, "\(rootA)/v1/responses/\(id)").status == 404, "deleted through B, gone for A")

        // A background response A makes is polled and cancelled through B: B asks A to stop it.
        let counting = try await Self.send(
            .POST, "\(rootA)/v1/responses",
            body: [
                "model": model, "input": "Count from 1 to 500, separated by commas.", "max_output_tokens": 600, "temperature": 0,
                "background": true,
            ])
        let countingID = try #require(counting.json?["id"] as? String, "\(counting.json ?? [:])")
        let cancel = try await Self.send(.POST, "\(rootB)/v1/responses/\(countingID)/cancel")
        #expect(cancel.status == 200, "\(cancel.json ?? [:])")
        #expect(
            try await Self.within(.seconds(60)) {
                try await Self.send(.GET, "\(rootB)/v1/responses/\(countingID)").json?["status"] as? String == "cancelled"
            }, "cancelled through B: \(cancel.json ?? [:])")

        // Settings changed through one replica are what the other answers with.
        let patched = try await Self.send(.PATCH, "\(rootA)/api/settings", body: ["maxTokens": 12, "temperature": 0.25])
        #expect(patched.status == 200 && patched.json?["maxTokens"] as? Int == 12, "\(patched.json ?? [:])")
        let settings = try await Self.send(.GET, "\(rootB)/api/settings")
        #expect(settings.json?["maxTokens"] as? Int == 12 && settings.json?["temperature"] as? Double == 0.25, "\(settings.json ?? [:])")
        let refused = try await Self.send(.PATCH, "\(rootB)/api/settings", body: ["maxTokens": -3])
        #expect(refused.status == 400, "a bad value is refused and changes nothing: \(refused.json ?? [:])")
        #expect(try await Self.send(.DELETE, "\(rootB)/api/settings").status == 200)
        #expect(try await Self.send(.GET, "\(rootA)/api/settings").json?["maxTokens"] as? Int != 12, "reset through B, for A too")

        // A conversation made through A is answered through B, renamed through A, deleted through B.
        let made = try await Self.send(.POST, "\(rootA)/api/conversations", body: ["title": "Shared"])
        let conversation = try #require(made.json?["id"] as? String, "\(made.json ?? [:])")
        let answered = try await Self.send(
            .POST, "\(rootB)/api/conversations/\(conversation)/messages", body: ["content": "Hi.", "model": model, "maxTokens": 4])
        #expect(answered.status == 200)
        let read = try await Self.send(.GET, "\(rootA)/api/conversations/\(conversation)")
        #expect((read.json?["messages"] as? [Any])?.count == 2, "the question and B's answer, read through A: \(read.json ?? [:])")
        #expect(try await Self.send(.PATCH, "\(rootA)/api/conversations/\(conversation)", body: ["title": "Renamed"]).status == 200)
        let listed = try await Self.send(.GET, "\(rootB)/api/conversations?q=renamed")
        #expect(
            (listed.json?["conversations"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Renamed"], "\(listed.json ?? [:])")
        #expect(try await Self.send(.DELETE, "\(rootB)/api/conversations/\(conversation)").status == 204)
        #expect(try await Self.send(.GET, "\(rootA)/api/conversations/\(conversation)").status == 404)

        // A key made with `keys --database` counts on both replicas from (at most) half a second on.
        let created = try cli.run(["keys", "create", "ops", "--scope", "admin", "--database", database, "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let admin = try #require(try created.json()["key"] as? String)
        let again = try cli.run(["keys", "create", "ops", "--database", database])
        #expect(again.status == 1 && again.stderr.contains("A key named 'ops' exists"), "\(again.stderr)")
        for root in [rootA, rootB] {
            #expect(try await Self.within(.seconds(60)) { try await Self.send(.GET, "\(root)/v1/models").status == 401 }, "\(root)")
            #expect(try await Self.send(.GET, "\(root)/v1/models", key: admin).status == 200)
        }
        // One made through A's admin route works on B; revoked through B, A refuses it within a second.
        let alice = try await Self.send(.POST, "\(rootA)/api/keys", key: admin, body: ["name": "alice", "scopes": ["inference"]])
        #expect(alice.status == 201, "\(alice.json ?? [:])")
        let aliceKey = try #require(alice.json?["key"] as? String)
        let aliceID = try #require((alice.json?["record"] as? [String: Any])?["id"] as? String)
        #expect(try await Self.within(.seconds(60)) { try await Self.send(.GET, "\(rootB)/v1/models", key: aliceKey).status == 200 })
        #expect(try await Self.send(.DELETE, "\(rootB)/api/keys/\(aliceID)", key: admin).status == 204)
        #expect(
            try await Self.within(.seconds(60)) { try await Self.send(.GET, "\(rootA)/v1/models", key: aliceKey).status == 401 },
            "a key revoked through B is refused by A")
        let keys = try cli.run(["keys", "list", "--database", database, "--json"])
        #expect(keys.status == 0 && keys.stdout.contains("\"alice\"") && keys.stdout.contains("\"ops\""), "\(keys.stdout)")

        // A killed replica loses nothing committed: what it stored answers through the other.
        let stored = try await Self.send(
            .POST, "\(rootA)/v1/responses", key: admin, body: ["model": model, "input": "Hi.", "max_output_tokens": 2])
        let storedID = try #require(stored.json?["id"] as? String)
        a.kill()
        #expect(try await Self.send(.GET, "\(rootB)/v1/responses/\(storedID)", key: admin).status == 200)
        // Each store has two seconds to answer a probe; a loaded machine may miss one, so ask again.
        #expect(try await Self.within(.seconds(60)) { try await Self.send(.GET, "\(rootB)/ready").status == 200 })

        // Without its database a replica is not ready (and says why), though alive.
        let name = try #require(database.split(separator: "/").last?.split(separator: "?").first.map(String.init))
        _ = try cluster.psql("DROP DATABASE \(name) WITH (FORCE)")
        let unready = try await Self.send(.GET, "\(rootB)/ready")
        #expect(unready.status == 503 && "\(unready.json ?? [:])".contains("the database cannot be reached"), "\(unready.json ?? [:])")
        #expect(try await Self.send(.GET, "\(rootB)/health").status == 200)
    }

    /// nginx with `deploy/nginx.conf` (its upstreams pointed at two replicas on loopback) spreads
    /// requests over both, passes a stream through whole, and when one replica is killed sends
    /// every request to the other: none fails.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx"), "needs nginx: run scripts/setup --tests"),
        .hangLimit(.seconds(600)))
    func nginxWithTheRecipesConfigurationBalancesTwoReplicas() async throws {
        let database = try PostgresCluster.newDatabase()
        let (cli, home, _) = try CLIRunner.isolatedWithDefaultModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let arguments = ["--threads", "1", "--parallel", "1", "--database", database]
        let a = try ServeProcess(cli, arguments: arguments)
        let b = try ServeProcess(cli, arguments: arguments)
        defer {
            a.kill()
            b.kill()
        }
        let balancer = try Balancer(replicas: [a.port, b.port])
        defer { balancer.stop() }
        let root = "http://127.0.0.1:\(balancer.port)"
        for _ in 0..<6 { #expect(try await Self.send(.GET, "\(root)/v1/models").status == 200) }
        for replica in [a, b] {
            #expect(replica.standardError.components(separatedBy: "/v1/models").count - 1 >= 2, "each replica served some")
        }
        // A page of the balancer's own origin may change things (the Host it passes keeps its port).
        var page = HTTPClientRequest(url: "\(root)/api/settings")
        page.method = .PATCH
        page.headers.add(name: "Origin", value: root)
        page.headers.add(name: "Content-Type", value: "application/json")
        page.body = .bytes(ByteBuffer(string: #"{"maxTokens": 9}"#))
        #expect(try await HTTPClient.shared.execute(page, timeout: .seconds(30)).status.code == 200)
        // A stream through the balancer arrives whole; a stored response is found through it.
        let stream = try await GPUCLITests.request(
            "\(root)/v1/chat/completions", post: true,
            body:
                #"{"model": "\#(SDKConstants.Models.defaultModelID)", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4, "stream": true}"#
        )
        #expect(String(decoding: stream, as: UTF8.self).hasSuffix("data: [DONE]\n\n"))
        let stored = try await Self.send(
            .POST, "\(root)/v1/responses", body: ["model": SDKConstants.Models.defaultModelID, "input": "Hi.", "max_output_tokens": 2])
        let id = try #require(stored.json?["id"] as? String)
        for _ in 0..<2 { #expect(try await Self.send(.GET, "\(root)/v1/responses/\(id)").status == 200, "found whichever replica answers") }

        a.kill()
        for _ in 0..<6 { #expect(try await Self.send(.GET, "\(root)/v1/models").status == 200, "the other replica answers every one") }
        #expect(try await Self.send(.GET, "\(root)/v1/responses/\(id)").status == 200)
    }

    /// nginx on a free loopback port with the recipe's configuration, its replicas' addresses
    /// put in for the compose services' names.
    final class Balancer {
        let process: Process
        let port: Int
        let folder: URL

        init(replicas: [Int]) throws {
            folder = try TestEnvironment.temporaryDirectory("nginx")
            port = try TestEnvironment.freePort()
            let recipe = try String(contentsOf: CLIReplicaTests.nginxRecipe, encoding: .utf8)
                .replacingOccurrences(of: "replica-1:8080", with: "127.0.0.1:\(replicas[0])")
                .replacingOccurrences(of: "replica-2:8080", with: "127.0.0.1:\(replicas[1])")
                .replacingOccurrences(of: "listen 8080;", with: "listen 127.0.0.1:\(port);")
            try recipe.write(to: folder.appendingPathComponent("balancer.conf"), atomically: true, encoding: .utf8)
            let path = folder.path
            let main = """
                worker_processes 1;
                \(getuid() == 0 ? "user root;" : "")
                pid \(path)/nginx.pid;
                error_log \(path)/error.log;
                events {}
                http {
                    access_log off;
                    client_body_temp_path \(path)/body;
                    proxy_temp_path \(path)/proxy;
                    fastcgi_temp_path \(path)/fastcgi;
                    uwsgi_temp_path \(path)/uwsgi;
                    scgi_temp_path \(path)/scgi;
                    include \(path)/balancer.conf;
                }
                """
            try main.write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-p", path, "-c", "\(path)/nginx.conf", "-e", "\(path)/error.log", "-g", "daemon off;"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            guard TestEnvironment.waitUntilListening(port, by: process) else {
                let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                stop()
                throw ServeProcess.ServeError(message: "nginx did not start: \(log)")
            }
        }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static let nginxRecipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("deploy/nginx.conf")
}
