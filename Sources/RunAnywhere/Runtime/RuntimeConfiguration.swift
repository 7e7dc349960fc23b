import Foundation
import Logging

/// Where a runtime keeps its data and how it reports.
public struct RuntimeConfiguration: Sendable {
    /// Folder of model files and the user-model registry (`$RUNANYWHERE_HOME/models`).
    public var modelsDirectory: URL
    /// Folder of app data: conversations, settings, benchmark results (`$RUNANYWHERE_DATA`).
    public var dataDirectory: URL
    /// Where diagnostics go. The SDK never prints; without a logger it is silent.
    public var logger: Logger
    /// Memory the loaded language models may take together, in bytes (0: no limit); nil for
    /// three quarters of the memory available when the runtime starts.
    public var modelMemoryBudget: Int64?
    /// Loads each new language model file once in a child process before loading it in this one,
    /// so that a file that crashes its engine cannot take this process down (``ModelProbe``);
    /// nil loads files directly. The CLI and the server set it to `runanywhere probe-model`.
    package var modelProbe: ModelProbe?
    /// What the runtime and its engines read the machine through (system info, the memory free
    /// for models, GPU drivers and devices); the runtime hands it to its framework registry. Nil
    /// keeps the registry's own, `SystemHardwareDetector` unless one was registered.
    public var hardwareDetector: (any HardwareDetector)?
    /// Runs each model's engine in a worker process of its own, so that an engine's crash costs
    /// only that model's requests (``EngineProcesses``); nil runs engines in this process. The server sets it to `runanywhere engine-worker`.
    package var engineProcesses: EngineProcesses?
    /// What writes a model file quantized (``RunAnywhereRuntime/quantize(_:threads:progress:)``);
    /// nil: quantizing is not offered. The CLI and the server set it to `runanywhere
    /// quantize-model` in a child process (``ChildProcessQuantizer``).
    package var quantizer: (any ModelQuantizer)?

    /// Creates a configuration.
    public init(
        modelsDirectory: URL, dataDirectory: URL, logger: Logger = Logger(label: "runanywhere", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.modelsDirectory = modelsDirectory
        self.dataDirectory = dataDirectory
        self.logger = logger
    }

    /// The standard locations: models in `$RUNANYWHERE_HOME/models`, where scripts/setup installs
    /// them (`RUNANYWHERE_HOME` defaults to `~/.cache/runanywhere`), and app data in `dataDirectory(environment:)`.
    public static func standard(logger: Logger = Logger(label: "runanywhere", factory: { _ in SwiftLogNoOpLogHandler() }))
        -> RuntimeConfiguration
    {
        RuntimeConfiguration(
            modelsDirectory: homeDirectory().appendingPathComponent("models"), dataDirectory: dataDirectory(), logger: logger)
    }

    /// `$RUNANYWHERE_DATA`, else `$XDG_DATA_HOME/runanywhere`, else `~/.local/share/runanywhere`.
    package static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let data = environment["RUNANYWHERE_DATA"], !data.isEmpty { return URL(fileURLWithPath: data) }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg).appendingPathComponent("runanywhere") }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/runanywhere")
    }

    /// `$RUNANYWHERE_HOME`, or its default.
    package static func homeDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["RUNANYWHERE_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/runanywhere")
    }
}
