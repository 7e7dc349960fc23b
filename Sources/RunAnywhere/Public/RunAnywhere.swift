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
        /// Staging's or production's backend calls; nil in development.
        let backend: EnvironmentBackend?
    }

    private static let state = Mutex<State?>(nil)

    /// The SDK version.
    public static let version = "0.1.0"

    /// The model scripts/setup installs, used when an app or the CLI names none.
    public static let defaultModelID = SDKConstants.Models.defaultModelID

    /// Initializes the SDK: records the environment and prepares the runtime. It makes no network
    /// call, touches no file and loads no model, so it returns in well under 100 ms. Staging and
    /// production need an API key and an http(s) base URL; there the first API call registers the
    /// device and the SDK's analytics go to the base URL from then on (``backendStatus()``);
    /// development needs neither and makes no network call at all. Calling it again replaces the
    /// runtime (a loaded model is released).
    public static func initialize(
        apiKey: String? = nil, baseURL: String? = nil, environment: SDKEnvironment = .development,
        configuration: RuntimeConfiguration = .standard()
    ) throws {
        let url = try validate(apiKey: apiKey, baseURL: baseURL, environment: environment)
        let runtime = RunAnywhereRuntime(configuration: configuration)
        let backend = BackendConfiguration(environment: environment, baseURL: url, apiKey: apiKey).map {
            EnvironmentBackend(
                configuration: $0, dataDirectory: configuration.dataDirectory, events: runtime.events, logger: configuration.logger)
        }
        stopInBackground(replaceState(with: State(runtime: runtime, environment: environment, baseURL: url, backend: backend)))
    }

    /// Sets the state; returns the previous state's backend, for the caller to stop.
    static func replaceState(with new: State?) -> EnvironmentBackend? {
        state.withLock { state in
            defer { state = new }
            return state?.backend
        }
    }

    /// Stops a replaced backend in the background; the events it recorded stay queued.
    private static func stopInBackground(_ backend: EnvironmentBackend?) {
        if let backend { Task { await backend.close() } }
    }

    /// The current state, if initialized.
    static var current: State? { state.withLock { $0 } }

    /// Initializes the SDK for the environment selected in `environments` (the runtime
    /// environment switcher), with its stored API key and base URL.
    package static func initialize(from environments: EnvironmentStore, configuration: RuntimeConfiguration = .standard()) throws {
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
        guard let baseURL, !baseURL.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw SDKError(.invalidConfiguration, "A base URL (http or https) is required for the \(environment.description)")
        }
        guard let parsed = URL(string: baseURL), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
            // Shown without any user and password it may hold.
            let shown = baseURL.replacingOccurrences(of: #"://[^/?#]*@"#, with: "://", options: .regularExpression)
            throw SDKError(
                .invalidConfiguration, "The base URL '\(shown)' is not an http or https URL with a host (the \(environment.description)'s)")
        }
        return parsed
    }

    /// Whether ``initialize(apiKey:baseURL:environment:configuration:)`` has been called.
    public static var isSDKInitialized: Bool { state.withLock { $0 != nil } }

    /// The environment the SDK was initialized for.
    public static var environment: SDKEnvironment? { state.withLock { $0?.environment } }

    /// Forgets the initialization (a loaded model is released once no call uses it).
    public static func reset() { stopInBackground(replaceState(with: nil)) }

    /// The shared runtime; throws before initialization. In staging and production the first
    /// call starts the backend's work (device registration, analytics) in the background.
    public static func runtime() throws -> RunAnywhereRuntime {
        let state = try initializedState()
        state.backend?.activate()
        return state.runtime
    }

    /// The state; throws before initialization.
    static func initializedState() throws -> State {
        guard let current else { throw SDKError(.notInitialized, "The SDK is not initialized; call RunAnywhere.initialize(...) first") }
        return current
    }

    /// The engines plugged in, for setting up (which is no API call: it starts no backend work).
    private static func frameworks() throws -> FrameworkAdapterRegistry {
        try initializedState().runtime.frameworks
    }

    /// Plugs an engine in.
    public static func registerFrameworkAdapter(_ adapter: any FrameworkAdapter) throws {
        try frameworks().register(adapter)
    }

    /// Plugs in the reader of compressed audio files (MP3, FLAC, Ogg, WebM…) that transcription
    /// uses for anything but WAV.
    public static func registerAudioDecoder(_ decoder: any AudioFileDecoder) throws {
        try frameworks().register(audioDecoder: decoder)
    }

    /// Plugs in the reader of PDF files' text that RAG sessions ingest PDFs with.
    public static func registerPDFReader(_ reader: any PDFTextReader) throws {
        try frameworks().register(pdfReader: reader)
    }

    /// Replaces what the SDK and its engines read the machine through (`SystemHardwareDetector`
    /// by default): the hardware `runanywhere info` shows, the memory free for models, the GPU
    /// drivers and the devices the GPU offload rule chooses among.
    public static func registerHardwareDetector(_ detector: any HardwareDetector) throws {
        try frameworks().register(hardwareDetector: detector)
    }

    /// Every known framework and whether it can run here.
    public static func frameworkStatuses() throws -> [FrameworkStatus] {
        try frameworks().statuses()
    }

    /// The available frameworks that do `modality`.
    public static func getFrameworks(for modality: FrameworkModality) throws -> [InferenceFramework] {
        try frameworks().frameworks(for: modality)
    }
}
