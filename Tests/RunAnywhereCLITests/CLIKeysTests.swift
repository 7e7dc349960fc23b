import AsyncHTTPClient
import Foundation
import NIOCore
import RunAnywhereTestSupport
import Testing

/// `runanywhere keys` with `serve`, as a team's admin would use them: a key made on the command
/// line is shown once and works on a running server; listing never shows it; revoking it shuts it
/// out from the next request, and with no key left the loopback server is open again.
@Suite(.serverLane, .serialized) struct CLIKeysTests {
    static func status(_ url: String, key: String? = nil) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(30)).status.code)
    }

    @Test func aKeyMadeOnTheCommandLineGuardsARunningServer() async throws {
        try await CLIRunner.withData { runner, _ in
            let server = try ServeProcess(runner)
            defer { _ = server.stop() }
            let models = "\(server.baseURL)/models"
            #expect(try await Self.status(models) == 200, "no key yet")

            let made = try runner.run(["keys", "create", "alice", "--scope", "inference", "--json"])
            #expect(made.status == 0, "\(made.stderr)")
            let created = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
            let key = try #require(created["key"] as? String)
            #expect(try await Self.status(models) == 401)
            #expect(try await Self.status(models, key: key) == 200)
            #expect(try await Self.status("http://127.0.0.1:\(server.port)/health") == 200)

            let listed = try runner.run(["keys", "list"])
            #expect(listed.status == 0 && listed.stdout.contains("alice") && listed.stdout.contains("active"), "\(listed.stdout)")
            let json = try runner.run(["keys", "list", "--json"]).stdout
            #expect(!listed.stdout.contains(key) && !json.contains(key) && json.contains("alice"))
            let twice = try runner.run(["keys", "create", "alice"])
            #expect(twice.status != 0 && twice.stderr.contains("A key named 'alice' exists"), "\(twice.stderr)")
            let unknown = try runner.run(["keys", "create", "bob", "--scope", "root"])
            #expect(unknown.status != 0 && unknown.stderr.contains("Unknown scope 'root'"), "\(unknown.stderr)")

            let ops = try runner.run(["keys", "create", "ops", "--scope", "admin"])
            let opsKey = try #require(ops.stdout.split(separator: "\n").first.map(String.init))
            #expect(opsKey.hasPrefix("ra_"), "\(ops.stdout)")
            #expect(try runner.run(["keys", "revoke", "alice"]).status == 0)
            #expect(try await Self.status(models, key: key) == 401, "a revoked key")
            #expect(try await Self.status(models, key: opsKey) == 200)
            #expect(try runner.run(["keys", "revoke", "ops"]).status == 0)
            #expect(try await Self.status(models) == 200, "every key revoked: open again on loopback")
            let again = try runner.run(["keys", "revoke", "alice"])
            #expect(again.status != 0 && again.stderr.contains("No key not yet revoked"), "\(again.stderr)")
        }
    }
}
