import ArgumentParser
import Foundation
import Logging
import RunAnywhere
import RunAnywhereBenchmarks
import RunAnywhereEspeak
import RunAnywhereFFmpeg
import RunAnywhereLlamaCpp
import RunAnywherePoppler
import RunAnywhereSherpaOnnx
import RunAnywhereStableDiffusion
import RunAnywhereWhisperCpp

/// What every command needs: the SDK initialized for the selected environment with the engines
/// registered, the user's settings, and uniform error reporting (a message on standard error
/// and exit code 1, never a crash).
struct CLIContext {
    let logger: Logger
    let initializationTime: Duration
    let configuration: RuntimeConfiguration

    var conversations: ConversationStore { ConversationStore(dataDirectory: configuration.dataDirectory, logger: logger) }
    var settingsStore: SettingsStore { SettingsStore(dataDirectory: configuration.dataDirectory) }
    var environments: EnvironmentStore { EnvironmentStore(dataDirectory: configuration.dataDirectory, logger: logger) }
    var benchmarks: BenchmarkStore { BenchmarkStore(dataDirectory: configuration.dataDirectory) }
    /// Where `--save-prompts` keeps long prompts' states.
    var savedPrompts: SavedPrompts {
        SavedPrompts(directory: configuration.dataDirectory.appendingPathComponent(SDKConstants.Files.promptStates, isDirectory: true))
    }

    /// The saved settings; unreadable ones are reported and the defaults used.
    func settings() -> GenerationSettings {
        do {
            return try settingsStore.load()
        } catch let error as SDKError {
            Terminal.standardError("warning: \(error.message)")
        } catch {
            Terminal.standardError("warning: \(error)")
        }
        return GenerationSettings()
    }

    /// Initializes the SDK for a command. Each new language model file is loaded once by
    /// `runanywhere probe-model` in a child process before this process loads it.
    /// With `engineProcesses`, language models run in worker processes (`runanywhere engine-worker`).
    static func start(_ options: GlobalOptions, engineProcesses: Bool = false) throws -> CLIContext {
        // A write beyond the file-size limit (`ulimit -f`) must fail with EFBIG and be reported
        // like a full disk, not end the process with SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        let logger = makeLogger(options)
        var configuration = RuntimeConfiguration.standard(logger: logger)
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        configuration.modelProbe = ModelProbe(executable: executable, arguments: ["probe-model"])
        configuration.quantizer = ChildProcessQuantizer(executable: executable, arguments: ["quantize-model"])
        if engineProcesses { configuration.engineProcesses = EngineWorkerCommand.processes(verbose: options.verbose) }
        let clock = ContinuousClock()
        let started = clock.now
        do {
            try RunAnywhere.initialize(
                from: EnvironmentStore(dataDirectory: configuration.dataDirectory, logger: logger), configuration: configuration)
        } catch let error as SDKError where error.code == .invalidConfiguration {
            // Everything the CLI does is local, so a broken environment file must not lock the
            // user out of the command (`env use`) that repairs it.
            Terminal.standardError("warning: \(error.message); using the development environment")
            try RunAnywhere.initialize(environment: .development, configuration: configuration)
        }
        let elapsed = clock.now - started
        try RunAnywhere.registerFrameworkAdapter(LlamaCppAdapter(logger: logger))
        try RunAnywhere.registerFrameworkAdapter(WhisperCppAdapter(logger: logger))
        try RunAnywhere.registerFrameworkAdapter(SherpaOnnxAdapter(phonemizer: EspeakPhonemizer()))
        try RunAnywhere.registerFrameworkAdapter(EspeakAdapter())
        try RunAnywhere.registerFrameworkAdapter(StableDiffusionAdapter(logger: logger))
        try RunAnywhere.registerAudioDecoder(FFmpegAudioDecoder())
        try RunAnywhere.registerPDFReader(PopplerPDFReader())
        return CLIContext(logger: logger, initializationTime: elapsed, configuration: configuration)
    }

    /// Initializes the SDK and runs `body` with it, reporting SDK errors as ``reportingErrors(_:)``
    /// does. Then the SDK shuts down: in staging and production the analytics the command recorded
    /// are queued and sent for a few seconds at most (what is not sent goes with a later command).
    static func run(_ options: GlobalOptions, engineProcesses: Bool = false, _ body: (CLIContext) async throws -> Void) async throws {
        try await reportingErrors {
            let context = try start(options, engineProcesses: engineProcesses)
            do {
                try await body(context)
            } catch {
                await RunAnywhere.shutdown()
                throw error
            }
            await RunAnywhere.shutdown()
        }
    }

    /// Runs `body`, turning SDK errors into a one-line message and exit code 1.
    static func reportingErrors(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as SDKError {
            Terminal.standardError("error: \(error.message)")
            throw ExitCode.failure
        }
    }

    /// The CLI's logger: standard error, warnings only unless `--verbose`.
    static func makeLogger(_ options: GlobalOptions) -> Logger {
        var logger = Logger(label: "runanywhere") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = options.verbose ? .debug : .warning
        return logger
    }
}

/// JSON output for `--json`.
enum JSONOutput {
    /// Prints `value` as pretty JSON on standard output.
    static func print<T: Encodable>(_ value: T) throws {
        let data = try JSONEncoder.runAnywhere.encode(value)
        Terminal.write(String(decoding: data, as: UTF8.self) + "\n")
    }
}
