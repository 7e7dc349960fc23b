import Foundation
import Synchronization

/// The RunAnywhere SDK: on-device AI through one async API.
///
/// ```swift
/// try RunAnywhere.initialize()                       // development: no key, no network
/// try RunAnywhere.registerFrameworkAdapter(LlamaCppAdapter())
/// try await RunAnywhere.loadModel("smollm2-135m-instruct-q4_1")
/// let result = try await RunAnywhere.generate("What is 2+2?", options: LLMGenerationOptions(maxTokens: 32, temperature: 0))
/// print(result.text, result.tokensPerSecond)
/// ```
///
/// Every call forwards to one shared ``RunAnywhereRuntime``; create runtimes directly to run
/// several in one process.
public enum RunAnywhere {
    struct State: Sendable {
        let runtime: RunAnywhereRuntime
        let environment: SDKEnvironment
        let baseURL: URL?
    }

    private static let state = Mutex<State?>(nil)

    /// The SDK version.
    public static let version = "0.1.0"

    /// The model scripts/setup installs, used when an app or the CLI names none.
    public static let defaultModelID = SDKConstants.Models.defaultModelID

    /// Initializes the SDK: records the environment and prepares the runtime. It makes no network
    /// call and loads no model, so it returns in well under 100 ms. Staging and production need
    /// an API key and an http(s) base URL; development needs neither. Calling it again replaces
    /// the runtime (a loaded model is released).
    public static func initialize(
        apiKey: String? = nil, baseURL: String? = nil, environment: SDKEnvironment = .development,
        configuration: RuntimeConfiguration = .standard()
    ) throws {
        let url = try validate(apiKey: apiKey, baseURL: baseURL, environment: environment)
        let runtime = RunAnywhereRuntime(configuration: configuration)
        state.withLock { $0 = State(runtime: runtime, environment: environment, baseURL: url) }
    }

    /// Initializes the SDK for the environment selected in `environments` (the runtime
    /// environment switcher), with its stored API key and base URL.
    public static func initialize(from environments: EnvironmentStore, configuration: RuntimeConfiguration = .standard()) throws {
        let (environment, apiKey, baseURL) = try environments.credentials()
        try initialize(apiKey: apiKey, baseURL: baseURL, environment: environment, configuration: configuration)
    }

    /// Checks credentials: staging and production need an API key and an http(s) base URL.
    /// Returns the base URL those use (development uses none).
    @discardableResult
    static func validate(apiKey: String?, baseURL: String?, environment: SDKEnvironment) throws -> URL? {
        guard environment.requiresAuthentication else { return nil }
        guard let apiKey, !apiKey.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw SDKError(.invalidConfiguration, "An API key is required for the \(environment.description)")
        }
        guard let baseURL, let parsed = URL(string: baseURL), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
            throw SDKError(.invalidConfiguration, "A base URL (http or https) is required for the \(environment.description)")
        }
        return parsed
    }

    /// Whether ``initialize(apiKey:baseURL:environment:configuration:)`` has been called.
    public static var isSDKInitialized: Bool { state.withLock { $0 != nil } }

    /// The environment the SDK was initialized for.
    public static var environment: SDKEnvironment? { state.withLock { $0?.environment } }

    /// Forgets the initialization (a loaded model is released once no call uses it).
    public static func reset() { state.withLock { $0 = nil } }

    /// The shared runtime; throws before initialization.
    public static func runtime() throws -> RunAnywhereRuntime {
        guard let runtime = state.withLock({ $0?.runtime }) else {
            throw SDKError(.notInitialized, "The SDK is not initialized; call RunAnywhere.initialize(...) first")
        }
        return runtime
    }

    /// Plugs an engine in.
    public static func registerFrameworkAdapter(_ adapter: any FrameworkAdapter) throws {
        try runtime().frameworks.register(adapter)
    }

    /// Plugs in the reader of compressed audio files (MP3, FLAC, Ogg, WebM…) that transcription
    /// uses for anything but WAV.
    public static func registerAudioDecoder(_ decoder: any AudioFileDecoder) throws {
        try runtime().frameworks.register(audioDecoder: decoder)
    }

    /// Every known framework and whether it can run here.
    public static func frameworkStatuses() throws -> [FrameworkStatus] {
        try runtime().frameworks.statuses()
    }

    /// The available frameworks that do `modality`.
    public static func getFrameworks(for modality: FrameworkModality) throws -> [InferenceFramework] {
        try runtime().frameworks.frameworks(for: modality)
    }
}
