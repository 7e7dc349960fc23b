import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@Suite struct SettingsTests {
    @Test func defaultsFollowTheSpec() {
        let settings = GenerationSettings()
        #expect(settings.temperature == 0.7)
        #expect(settings.maxTokens == 1000)
        #expect(settings.topP == 0.95)
        #expect(settings.topK == 40)
        #expect(settings.systemPrompt == nil)
        #expect(settings.streaming)
        #expect(settings.options.temperature == 0.7 && settings.options.streamingEnabled)
    }

    @Test func valuesAreParsedAndChecked() throws {
        var settings = GenerationSettings()
        try settings.set("temperature", to: "0")
        try settings.set("maxTokens", to: "64")
        try settings.set("systemPrompt", to: "Be brief.")
        try settings.set("streaming", to: "off")
        try settings.set("threads", to: "2")
        #expect(
            settings.temperature == 0 && settings.maxTokens == 64 && settings.systemPrompt == "Be brief." && !settings.streaming
                && settings.threads == 2)
        try settings.set("systemPrompt", to: "")
        try settings.set("threads", to: "auto")
        #expect(settings.systemPrompt == nil && settings.threads == nil)
        try settings.set("speculate", to: "6")
        #expect(settings.options.speculation == .promptLookup(maxDraftTokens: 6))
        try settings.set("speculate", to: "0")
        #expect(settings.options.speculation == .off, "0 turns it off, whatever the model's default")
        try settings.set("speculate", to: "auto")
        #expect(settings.speculate == nil && settings.options.speculation == nil, "auto keeps the model's default")
        try settings.set("draftModel", to: "smollm2-135m-instruct-q4_1")
        #expect(settings.options.speculation == .draftModel(model: "smollm2-135m-instruct-q4_1", maxDraftTokens: 8))
        try settings.set("speculate", to: "3")
        #expect(settings.options.speculation == .draftModel(model: "smollm2-135m-instruct-q4_1", maxDraftTokens: 3))
        try settings.set("draftModel", to: " ")
        try settings.set("speculate", to: "auto")
        #expect(settings.draftModel == nil && settings.options.speculation == nil, "an empty draft model clears it")
        try settings.set("topP", to: "5e-324")
        #expect(settings.topP == Float.leastNormalMagnitude, "a number too small for a Float stays more than 0")
        let before = settings
        for (key, value, fragment) in [
            ("temperature", "2.5", "temperature"), ("temperature", "warm", "not a valid value"), ("maxTokens", "0", "maxTokens"),
            ("topP", "0", "topP"), ("topP", "1e39", "not a valid value"), ("temperature", "nan", "not a valid value"),
            ("topK", "-1", "topK"), ("streaming", "maybe", "on or off"), ("threads", "0", "threads"),
            ("colour", "red", "Unknown setting"), ("speculate", "33", "speculation guesses 1 to 32"),
            ("speculate", "-1", "speculation"), ("speculate", "lots", "not a valid value"),
        ] {
            let error = try #require(throws: SDKError.self, "\(key)=\(value)") { try settings.set(key, to: value) }
            #expect(error.message.contains(fragment), "\(error.message)")
        }
        #expect(settings == before, "a refused value changes nothing")
    }

    /// A draft model is a GGUF file or the id of a GGUF language model there is (downloaded or
    /// not yet); anything else is refused when it is set, not at the next generation.
    @Test func aDraftModelMustBeOneThereIs() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data")))
        var settings = GenerationSettings()
        try settings.checkDraftModel { try runtime.model(id: $0) }
        try settings.set("draftModel", to: RunAnywhere.defaultModelID)
        try settings.checkDraftModel { try runtime.model(id: $0) }
        let embedding = try #require(runtime.availableModels().first { $0.category == .embedding })
        for (draft, fragment) in [
            ("no-such-model", "no model has that id"), ("/no/such/draft.gguf", "No draft model file"),
            (embedding.id, "a draft is a GGUF language model"),
        ] {
            try settings.set("draftModel", to: draft)
            let error = try #require(throws: SDKError.self, "\(draft)") { try settings.checkDraftModel { try runtime.model(id: $0) } }
            #expect(error.code == .invalidInput && error.message.contains(fragment), "\(error.message)")
        }
    }

    @Test func persistResetAndRecoverFromACorruptFile() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = SettingsStore(dataDirectory: folder)
        #expect(try store.load() == GenerationSettings())
        var settings = GenerationSettings()
        try settings.set("temperature", to: "0.2")
        try store.save(settings)
        #expect(try store.load() == settings)
        try Data(#"{"maxTokens": 12}"#.utf8).write(to: store.url)
        #expect(try store.load().maxTokens == 12)
        #expect(try store.load().temperature == 0.7, "keys missing from the file keep their defaults")
        try Data(#"{"temperature": 9}"#.utf8).write(to: store.url)
        let error = try #require(throws: SDKError.self) { try store.load() }
        #expect(error.message.contains("moved to"))
        #expect(try store.load() == GenerationSettings(), "after moving it aside the defaults apply")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains { $0.hasPrefix("settings.json.corrupt-") })
        try store.save(settings)
        try store.reset()
        #expect(try store.load() == GenerationSettings())
    }
}

@Suite struct EnvironmentStoreTests {
    @Test func developmentByDefaultWithNothingWritten() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = EnvironmentStore(dataDirectory: folder)
        #expect(try store.selected() == .development)
        #expect(try store.credentials().apiKey == nil)
        #expect(try store.statuses().map(\.environment) == [.development, .staging, .production])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func switchingStoresKeysPrivatelyAndShowsThemMasked() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = EnvironmentStore(dataDirectory: folder)
        let key = "sk-live-0123456789abcdef"
        #expect((try #require(throws: SDKError.self) { try store.use(.production) }).message.contains("API key"))
        #expect((try #require(throws: SDKError.self) { try store.use(.staging, apiKey: key) }).message.contains("base URL"))
        #expect(
            (try #require(throws: SDKError.self) { try store.use(.production, baseURL: "ftp://x", apiKey: key) }).message.contains(
                "base URL"))
        #expect(try store.selected() == .development, "a refused switch changes nothing")
        let status = try store.use(.production, apiKey: "  \(key)\n")
        #expect(status.isSelected && status.baseURL == "https://api.runanywhere.ai")
        #expect(status.maskedAPIKey == "••••cdef")
        let credentials = folder.appendingPathComponent("credentials.json")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: credentials.path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try store.credentials().apiKey == key)
        let shown = String(decoding: try JSONEncoder.runAnywhere.encode(try store.statuses()), as: UTF8.self)
        #expect(!shown.contains(key) && !shown.contains("0123456789"))
        #expect(!(try String(contentsOf: folder.appendingPathComponent("environment.json"), encoding: .utf8)).contains(key))
        try store.use(.staging, baseURL: "https://staging.example.com", apiKey: "short")
        #expect(try store.statuses().first { $0.environment == .staging }?.maskedAPIKey == "••••")
        try store.use(.development)
        #expect(try store.credentials().apiKey == nil)
        #expect(
            try store.statuses().first { $0.environment == .production }?.maskedAPIKey == "••••cdef", "keys stay stored per environment")
    }

    @Test func useRepairsUnreadableFilesAndKeepsThemAside() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = EnvironmentStore(dataDirectory: folder)
        try Data("{not json".utf8).write(to: folder.appendingPathComponent("environment.json"))
        try Data("[".utf8).write(to: folder.appendingPathComponent("credentials.json"))
        #expect((try #require(throws: SDKError.self) { try store.credentials() }).message.contains("unreadable"))
        try store.use(.development)
        #expect(try store.selected() == .development)
        #expect(try store.credentials().apiKey == nil)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.filter { $0.hasPrefix("environment.json.corrupt-") }.count == 1, "the unreadable file is kept")
        #expect(names.filter { $0.hasPrefix("credentials.json.corrupt-") }.count == 1)
    }

    @Test func looseCredentialPermissionsAreTightened() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = EnvironmentStore(dataDirectory: folder)
        try store.use(.production, apiKey: "sk-0123456789")
        let credentials = folder.appendingPathComponent("credentials.json").path
        chmod(credentials, 0o644)
        _ = try store.statuses()
        #expect(try FileManager.default.attributesOfItem(atPath: credentials)[.posixPermissions] as? Int == 0o600)
    }
}
