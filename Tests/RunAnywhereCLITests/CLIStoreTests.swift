import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The files the CLI writes (settings, environment, model registry, conversations, downloads)
/// against processes writing at once, SIGKILL at random moments and a full disk (a file-size
/// limit): every store stays readable, keeps everything a finished command saved, and no partial
/// file is left behind. `RUNANYWHERE_KILL_CASES=500 swift test --filter CLIStoreTests` is the
/// long run of the kill test.
@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "models add needs llama.cpp installed: run scripts/setup --tests --build tests"))
struct CLIStoreTests {
    /// The four stores a command can be killed while writing.
    enum Store: CaseIterable {
        case settings, environment, registry, conversation
    }

    /// What the stores held after the last command, as read back.
    struct Saved: Equatable {
        var temperature: Float
        var developmentURL: String?
        var models: Set<String>
        var title: String
    }

    static func read(home: URL, conversation: String) throws -> Saved {
        let data = home.appendingPathComponent("data")
        let registry = home.appendingPathComponent("models/\(SDKConstants.Files.modelRegistry)")
        var models: Set<String> = []
        if let bytes = FileManager.default.contents(atPath: registry.path) {
            let object = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
            models = Set((object["models"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        }
        return Saved(
            temperature: try SettingsStore(dataDirectory: data).load().temperature,
            developmentURL: try EnvironmentStore(dataDirectory: data).statuses().first { $0.environment == .development }?.baseURL,
            models: models,
            title: try ConversationStore(dataDirectory: data).load(id: conversation).title
        )
    }

    /// Temporary and partial files anywhere under `folder`.
    static func leftovers(in folder: URL) -> [String] {
        let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return names.filter { $0.hasSuffix(".tmp") || $0.hasSuffix(".partial") || $0.hasSuffix(".partial.json") }
    }

    /// The command that writes case `index`'s value into `store`, and that value applied to `saved`.
    static func command(_ store: Store, _ index: Int, conversation: String) -> (arguments: [String], apply: (inout Saved) -> Void) {
        switch store {
        case .settings:
            let value = Double(index % 200) / 100
            return (["settings", "set", "temperature", "\(value)"], { $0.temperature = Float(value) })
        case .environment:
            return (
                ["env", "use", "development", "--base-url", "http://dev-\(index).example"],
                { $0.developmentURL = "http://dev-\(index).example" }
            )
        case .registry:
            let arguments = [
                "models", "add", "https://127.0.0.1:9/k\(index).gguf", "--category", "language", "--no-download", "--id", "k-\(index)",
            ]
            return (arguments, { $0.models.insert("k-\(index)") })
        case .conversation:
            return (["conversations", "rename", conversation, "title \(index)"], { $0.title = "title \(index)" })
        }
    }

    @Test func processesWritingAtOnceLoseNoUpdate() throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let data = home.appendingPathComponent("data")
        for round in 1...3 {
            let settings = [
                ("temperature", "0.\(round)"), ("maxTokens", "\(100 + round)"), ("topP", "0.\(5 + round)"),
                ("topK", "\(10 + round)"), ("systemPrompt", "round \(round)"), ("threads", "\(round)"),
            ]
            var commands: [(arguments: [String], input: String)] = settings.map { (["settings", "set", $0.0, $0.1], "") }
            commands.append((["env", "use", "development", "--base-url", "http://dev-\(round).example"], ""))
            commands.append(
                (["env", "use", "staging", "--base-url", "https://staging-\(round).example", "--api-key-stdin"], "key-\(round)-abcdefgh"))
            commands += (0..<4).map {
                (
                    [
                        "models", "add", "https://127.0.0.1:9/m\(round)\($0).gguf", "--category", "language", "--no-download", "--id",
                        "m-\(round)-\($0)",
                    ], ""
                )
            }
            for (command, output) in zip(commands, try cli.runAtOnce(commands)) {
                #expect(output.status == 0 && !output.crashed, "\(command.arguments): \(output.stderr)")
            }

            let saved = try SettingsStore(dataDirectory: data).load()
            #expect(
                saved.temperature == Float("0.\(round)") && saved.maxTokens == 100 + round && saved.topP == Float("0.\(5 + round)"),
                "round \(round): \(saved)")
            #expect(
                saved.topK == 10 + round && saved.systemPrompt == "round \(round)" && saved.threads == round, "round \(round): \(saved)")
            let environments = try EnvironmentStore(dataDirectory: data).statuses()
            #expect(environments.first { $0.environment == .development }?.baseURL == "http://dev-\(round).example")
            #expect(environments.first { $0.environment == .staging }?.baseURL == "https://staging-\(round).example")
            #expect(environments.first { $0.environment == .staging }?.maskedAPIKey == "••••efgh")
            let listed = try cli.run(["models", "list", "--json"]).stdout
            for earlier in 1...round {
                for index in 0..<4 {
                    #expect(listed.contains("\"m-\(earlier)-\(index)\""), "round \(round): m-\(earlier)-\(index) was lost")
                }
            }
        }
        #expect(Self.leftovers(in: home).isEmpty)
    }

    @Test func aKillAtAnyMomentLosesNothingSaved() throws {
        let cases = ProcessInfo.processInfo.environment["RUNANYWHERE_KILL_CASES"].flatMap { Int($0) } ?? 24
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let conversation = Conversation(title: "first")
        try ConversationStore(dataDirectory: home.appendingPathComponent("data")).save(conversation)
        var expected = try Self.read(home: home, conversation: conversation.id)

        // How long each command takes untouched; kills then land from half that time to just after it.
        var durations: [Store: Duration] = [:]
        for store in Store.allCases {
            let (arguments, apply) = Self.command(store, 1_000 + durations.count, conversation: conversation.id)
            let started = ContinuousClock.now
            let output = try cli.run(arguments)
            durations[store] = ContinuousClock.now - started
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
            apply(&expected)
        }
        #expect(try Self.read(home: home, conversation: conversation.id) == expected)

        var random = SeededGenerator(seed: 20_261_124)
        var outcomes: [String: Int] = [:]
        for index in 0..<cases {
            let store = Store.allCases[index % Store.allCases.count]
            let (arguments, apply) = Self.command(store, index, conversation: conversation.id)
            let leftBefore = Set(Self.leftovers(in: home))
            let output = try cli.runKilled(arguments, after: durations[store]! * Double.random(in: 0.5...1.1, using: &random))
            var written = expected
            apply(&written)
            let saved = try Self.read(home: home, conversation: conversation.id)
            if output.crashed {
                #expect(
                    saved == expected || saved == written,
                    "case \(index) (\(store), killed): \(saved) is neither \(expected) nor \(written)")
                outcomes[saved == written ? "killed after saving" : "killed before saving", default: 0] += 1
                if !Set(Self.leftovers(in: home)).subtracting(leftBefore).isEmpty {
                    outcomes["of which mid-write (a temporary file left)", default: 0] += 1
                }
            } else {
                #expect(output.status == 0 && saved == written, "case \(index) (\(store)): \(output.stderr) \(saved) is not \(written)")
                outcomes["finished", default: 0] += 1
            }
            expected = saved
        }
        print("kills: \(outcomes)")

        // The next write of each store deletes what killed writers left.
        for store in Store.allCases {
            let output = try cli.run(Self.command(store, 2_000, conversation: conversation.id).arguments)
            #expect(output.status == 0, "\(output.stderr)")
        }
        #expect(Self.leftovers(in: home).isEmpty, "\(Self.leftovers(in: home))")
    }

    @Test func aFullDiskIsAClearErrorAndKeepsThePreviousFile() async throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let settingsFile = home.appendingPathComponent("data/\(SDKConstants.Files.settings)")
        let registry = home.appendingPathComponent("models/\(SDKConstants.Files.modelRegistry)")

        #expect(try cli.run(["settings", "set", "temperature", "0.3"]).status == 0)
        let settingsBefore = try Data(contentsOf: settingsFile)
        let tooLong = try cli.runLimited(fileSize: 1024, ["settings", "set", "systemPrompt", String(repeating: "x", count: 4000)])
        #expect(tooLong.status == 1 && !tooLong.crashed && tooLong.stderr.lowercased().contains("no space left"), "\(tooLong.stderr)")
        #expect(try Data(contentsOf: settingsFile) == settingsBefore)

        for index in 0..<3 {
            #expect(
                try cli.run(["models", "add", "https://127.0.0.1:9/r\(index).gguf", "--category", "language", "--no-download"]).status == 0)
        }
        let registryBefore = try Data(contentsOf: registry)
        let added = try cli.runLimited(
            fileSize: registryBefore.count / 2, ["models", "add", "https://127.0.0.1:9/r9.gguf", "--category", "language", "--no-download"])
        #expect(added.status == 1 && !added.crashed && added.stderr.lowercased().contains("no space left"), "\(added.stderr)")
        #expect(try Data(contentsOf: registry) == registryBefore)

        let server = try await TestHTTPServer.start(routes: ["/big.gguf": .file(Data(repeating: 7, count: 3 << 20))])
        defer { Task { try? await server.shutdown() } }
        let download = try cli.runLimited(
            fileSize: 1 << 20, ["models", "add", server.url("/big.gguf").absoluteString, "--category", "language", "--id", "big"])
        #expect(
            download.status == 1 && !download.crashed && download.stderr.contains("Cannot download big.gguf")
                && download.stderr.lowercased().contains("no space left"), "\(download.stderr)")
        let bigFolder = home.appendingPathComponent("models/big")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: bigFolder.path)) ?? []).isEmpty, "the partial download is deleted")

        let imported = try cli.runLimited(
            fileSize: 1 << 20, ["models", "import", try #require(TestEnvironment.defaultModelFile).path, "--id", "copy"])
        #expect(imported.status == 1 && !imported.crashed && imported.stderr.lowercased().contains("no space left"), "\(imported.stderr)")
        #expect(try cli.run(["models", "info", "copy"]).status == 1)
        #expect(Self.leftovers(in: home).isEmpty, "\(Self.leftovers(in: home))")
        #expect(try cli.run(["settings", "show"]).status == 0)
    }

    /// `serve` on a disk with no room (a file-size limit on the server's process): a write that
    /// does not fit is a 507 in the route's own shape, with code `insufficient_storage` and no
    /// path of the server's, leaving the previous file as it was and nothing half-written; the
    /// server goes on and takes what fits.
    @Test func aFullDiskIsA507FromTheServer() async throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let limited = CLIRunner(environment: cli.environment, executable: URL(fileURLWithPath: "/usr/bin/prlimit"))
        let server = try ServeProcess(limited, command: ["--fsize=\(1 << 20)", CLIRunner.binary.path, "serve"])
        defer { _ = server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        func send(_ method: HTTPMethod, _ path: String, _ body: Data) async throws -> (status: Int, json: [String: Any]) {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            let json = (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any] ?? [:]
            return (Int(response.status.code), json)
        }
        func digest(_ data: Data) -> String { "sha256:" + FileDigest.sha256(of: data) }

        let settingsFile = home.appendingPathComponent("data/\(SDKConstants.Files.settings)")
        #expect(try await send(.PATCH, "/api/settings", Data(#"{"temperature": 0.3}"#.utf8)).status == 200)
        let settingsBefore = try Data(contentsOf: settingsFile)
        let prompt = try JSONSerialization.data(withJSONObject: ["systemPrompt": String(repeating: "x", count: 2 << 20)])
        let settings = try await send(.PATCH, "/api/settings", prompt)
        let error = try #require(settings.json["error"] as? [String: Any], "\(settings)")
        #expect(settings.status == 507 && error["code"] as? String == "insufficient_storage", "\(settings)")
        let message = error["message"] as? String ?? ""
        #expect(message.lowercased().contains("no space left") && !message.contains(home.path), "\(message)")
        #expect(try Data(contentsOf: settingsFile) == settingsBefore)

        let big = Data(repeating: 7, count: 3 << 20)
        let blob = try await send(.POST, "/api/blobs/\(digest(big))", big)
        #expect(blob.status == 507 && (blob.json["error"] as? String)?.lowercased().contains("no space left") == true, "\(blob)")
        let small = Data(repeating: 8, count: 1000)
        #expect(try await send(.POST, "/api/blobs/\(digest(small))", small).status == 201)
        #expect(Self.leftovers(in: home).isEmpty, "\(Self.leftovers(in: home))")
        #expect(server.standardError.lowercased().contains("no space left"), "the operator is told: \(server.standardError.suffix(2000))")
    }
}
