import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Seeded damage to every JSON file the SDK keeps (settings, environment and keys, the model
/// registry, a conversation): each read ends in a value or an `SDKError`, never a trap, and the
/// store can be written again afterwards. `RUNANYWHERE_FUZZ_CASES` sets the number per store (40
/// by default; 500 for the long run). The benchmark history has the same test in
/// BenchmarkStoreTests.
@Suite struct StoreFuzzTests {
    static var cases: Int { TestEnvironment.fuzzCases() }

    /// Runs `read` on `cases` damaged copies of `file`, counting values and SDK errors; any other
    /// error is an issue. `repair` must succeed after each.
    static func fuzz(_ file: URL, seed: UInt64, read: () throws -> Void, repair: () throws -> Void) throws -> [String: Int] {
        let original = try Data(contentsOf: file)
        var random = SeededGenerator(seed: seed)
        var outcomes: [String: Int] = [:]
        for index in 0..<cases {
            try original.damagedJSON(using: &random).write(to: file)
            do {
                try read()
                outcomes["read", default: 0] += 1
            } catch is SDKError {
                outcomes["refused", default: 0] += 1
            } catch {
                Issue.record("case \(index) of \(file.lastPathComponent): \(error)")
            }
            try repair()
        }
        return outcomes
    }

    @Test func damagedSettings() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = SettingsStore(dataDirectory: folder)
        var settings = GenerationSettings()
        settings.systemPrompt = "Be brief."
        settings.threads = 2
        try store.save(settings)
        let outcomes = try Self.fuzz(
            store.url, seed: 1,
            read: {
                _ = try store.load()
            },
            repair: {
                try store.update { $0.maxTokens = 64 }
                #expect(try store.load().maxTokens == 64)
            })
        print("damaged settings: \(outcomes)")
    }

    @Test func damagedEnvironmentAndKeys() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = EnvironmentStore(dataDirectory: folder)
        try store.use(.staging, baseURL: "https://staging.example.com", apiKey: "key-1234567890")
        for name in [SDKConstants.Files.environment, SDKConstants.Files.credentials] {
            let outcomes = try Self.fuzz(
                folder.appendingPathComponent(name), seed: 2,
                read: {
                    _ = try store.statuses()
                    _ = try store.credentials()
                },
                repair: {
                    try store.use(.staging, baseURL: "https://staging.example.com", apiKey: "key-1234567890")
                    #expect(try store.credentials().apiKey == "key-1234567890")
                })
            print("damaged \(name): \(outcomes)")
        }
    }

    @Test func damagedModelRegistry() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data")
            ))
        let builtIn = runtime.availableModels().count
        for index in 0..<2 {
            try runtime.registerModel(
                id: "user-\(index)", name: "User \(index)", url: URL(string: "https://example.com/u\(index).gguf")!, framework: .llamaCpp)
        }
        let registry = folder.appendingPathComponent("models/\(SDKConstants.Files.modelRegistry)")
        var repairs = 0
        let outcomes = try Self.fuzz(
            registry, seed: 3,
            read: {
                let models = runtime.availableModels()
                #expect(models.count >= builtIn && models.count <= builtIn + 2)
            },
            repair: {
                repairs += 1
                try runtime.registerModel(
                    id: "repair-\(repairs)", name: "Repair", url: URL(string: "https://example.com/r.gguf")!, framework: .llamaCpp)
                #expect(try runtime.model(id: "repair-\(repairs)").name == "Repair")
            })
        print("damaged registry: \(outcomes)")
    }

    @Test func damagedConversation() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ConversationStore(dataDirectory: folder)
        var conversation = Conversation(modelName: "SmolLM2", frameworkName: "llama.cpp")
        conversation.append(ChatMessage(role: .user, content: "What is 2+2?"))
        conversation.append(ChatMessage(role: .assistant, content: "4", thinkingContent: "Add."))
        try store.save(conversation)
        let outcomes = try Self.fuzz(
            store.directory.appendingPathComponent("\(conversation.id).json"), seed: 4,
            read: {
                _ = store.list()
                _ = try store.load(id: conversation.id)
            },
            repair: {
                try store.save(conversation)
                #expect(try store.load(id: conversation.id).messages.count == 2)
            })
        print("damaged conversation: \(outcomes)")
    }
}
