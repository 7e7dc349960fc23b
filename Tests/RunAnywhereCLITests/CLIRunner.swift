import Foundation
import RunAnywhere
import RunAnywhereTestSupport

/// Runs the built `runanywhere` binary and captures what it prints.
struct CLIRunner {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
        /// Whether the binary was killed by a signal (then `status` is the signal's number).
        var crashed = false

        /// Standard output parsed as a JSON object.
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return object
        }
    }

    /// Runs `program` (any program) with `arguments` and `environment` added to this one, and
    /// returns its exit status and what it printed on standard output and error together.
    static func output(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The binary, built beside the test bundle.
    static var binary: URL {
        let executable = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        return executable.deletingLastPathComponent().appendingPathComponent("runanywhere")
    }

    /// Extra environment, e.g. a private `RUNANYWHERE_HOME`.
    var environment: [String: String] = [:]
    /// What runs: the binary, or a wrapper that is given the binary's path.
    var executable = Self.binary

    /// Runs the binary with `arguments`, feeding `input` on standard input.
    func run(_ arguments: [String], input: String = "") throws -> Output {
        let (process, stdin, stdout, stderr) = try launch(arguments)
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        return finish(process, stdout: stdout, stderr: stderr)
    }

    /// Starts the binary with `arguments` (standard input closed), sends it SIGINT (Ctrl-C) once
    /// its standard error shows `marker` (when given; at most `limit` is waited for it) and then
    /// `delay` more, and returns what it printed and its exit status once it has stopped. Waiting
    /// for what the binary prints, not for a time alone, keeps a loaded machine from interrupting
    /// it before it has started.
    func runInterrupted(_ arguments: [String], once marker: String? = nil, within limit: Duration = .seconds(120), after delay: Duration)
        async throws -> Output
    {
        let (process, stdin, stdout, stderr) = try launch(arguments)
        try stdin.fileHandleForWriting.close()
        let err = ErrorBytes(reading: stderr)
        do {
            let deadline = ContinuousClock.now + limit
            while err.awaits(marker, from: process, before: deadline) { try await Task.sleep(for: .milliseconds(20)) }
            try await Task.sleep(for: delay)
        } catch {
            process.terminate()
            _ = finish(process, stdout: stdout, stderr: err)
            throw error
        }
        process.interrupt()
        return finish(process, stdout: stdout, stderr: err)
    }

    /// Starts every command at once (each with its standard input) and returns their outputs in
    /// order once all have ended.
    func runAtOnce(_ commands: [(arguments: [String], input: String)]) throws -> [Output] {
        let started = try commands.map { command in
            let launched = try launch(command.arguments)
            launched.stdin.fileHandleForWriting.write(Data(command.input.utf8))
            try launched.stdin.fileHandleForWriting.close()
            return launched
        }
        return started.map { finish($0.0, stdout: $0.stdout, stderr: $0.stderr) }
    }

    /// Starts the binary with `arguments` (standard input closed) and sends it SIGKILL `delay`
    /// after its standard error first shows `marker` (when given; at most `limit` is waited for
    /// it), unless it has ended by then; `crashed` tells which happened.
    func runKilled(_ arguments: [String], once marker: String? = nil, within limit: Duration = .seconds(120), after delay: Duration) throws
        -> Output
    {
        let (process, stdin, stdout, stderr) = try launch(arguments)
        try stdin.fileHandleForWriting.close()
        let err = ErrorBytes(reading: stderr)
        let deadline = ContinuousClock.now + limit
        while err.awaits(marker, from: process, before: deadline) { usleep(20_000) }
        let (seconds, attoseconds) = delay.components
        usleep(useconds_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        return finish(process, stdout: stdout, stderr: err)
    }

    /// Runs the binary under `prlimit --fsize=bytes`: a file-size limit, so that writing more
    /// fails as it does on a full disk.
    func runLimited(fileSize bytes: Int, _ arguments: [String]) throws -> Output {
        try CLIRunner(environment: environment, executable: URL(fileURLWithPath: "/usr/bin/prlimit"))
            .run(["--fsize=\(bytes)", Self.binary.path] + arguments)
    }

    func launch(_ arguments: [String]) throws -> (Process, stdin: Pipe, stdout: Pipe, stderr: Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return (process, stdin, stdout, stderr)
    }

    /// Reads both outputs to their end, standard error on another thread so that neither pipe
    /// fills up and blocks the binary, then waits for it to exit.
    private func finish(_ process: Process, stdout: Pipe, stderr: Pipe) -> Output {
        finish(process, stdout: stdout, stderr: ErrorBytes(reading: stderr))
    }

    private func finish(_ process: Process, stdout: Pipe, stderr: ErrorBytes) -> Output {
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.all()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self), crashed: process.terminationReason == .uncaughtSignal
        )
    }

    /// Runs `body` with a runner whose app data (`RUNANYWHERE_DATA`) is a new temporary folder,
    /// which is deleted afterwards.
    static func withData<T>(_ body: (CLIRunner, URL) throws -> T) throws -> T {
        let data = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        return try body(CLIRunner(environment: ["RUNANYWHERE_DATA": data.path]), data)
    }

    /// `withData` for a body that suspends.
    static func withData<T>(_ body: (CLIRunner, URL) async throws -> T) async throws -> T {
        let data = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        return try await body(CLIRunner(environment: ["RUNANYWHERE_DATA": data.path]), data)
    }

    /// A runner whose models and app data live in a new temporary folder; llama.cpp is still
    /// found where scripts/setup installed it, and with `allEngines` every engine is (a link to
    /// the installed engines folder).
    static func isolated(allEngines: Bool = false) throws -> (CLIRunner, URL) {
        let home = try TestEnvironment.temporaryDirectory()
        if allEngines {
            let engines = RuntimeConfiguration.homeDirectory().appendingPathComponent("engines")
            try FileManager.default.createSymbolicLink(at: home.appendingPathComponent("engines"), withDestinationURL: engines)
        }
        var environment = ["RUNANYWHERE_HOME": home.path, "RUNANYWHERE_DATA": home.appendingPathComponent("data").path]
        if let library = TestEnvironment.llamaLibrary { environment["RUNANYWHERE_LLAMA_LIB"] = library.path }
        return (CLIRunner(environment: environment), home)
    }

    /// ``isolated(allEngines:)`` with the installed default model linked into its models folder;
    /// also that model's file.
    static func isolatedWithDefaultModel() throws -> (CLIRunner, URL, model: URL) {
        let (runner, home) = try isolated()
        guard let model = TestEnvironment.defaultModelFile else {
            try? FileManager.default.removeItem(at: home)
            throw SDKError(.modelNotFound, "The default model is not installed: run scripts/setup --tests")
        }
        let installed = home.appendingPathComponent("models/\(SDKConstants.Models.defaultModelID)")
        try FileManager.default.createDirectory(at: installed, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: installed.appendingPathComponent(model.lastPathComponent), withDestinationURL: model)
        return (runner, home, model)
    }
}

/// Standard error as it is read, to its end, on a thread of its own: what has come so far can be
/// looked at while the binary runs.
private final class ErrorBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(reading pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while case let chunk = handle.availableData, !chunk.isEmpty {
                lock.withLock { data.append(chunk) }
            }
            done.signal()
        }
    }

    /// Whether a wait for `marker` goes on: there is one, `process` runs, `deadline` has not
    /// passed, and what has come so far does not contain it.
    func awaits(_ marker: String?, from process: Process, before deadline: ContinuousClock.Instant) -> Bool {
        guard let marker, process.isRunning, ContinuousClock.now < deadline else { return false }
        return lock.withLock { !String(decoding: data, as: UTF8.self).contains(marker) }
    }

    /// Everything, once the pipe has ended.
    func all() -> Data {
        done.wait()
        return lock.withLock { data }
    }
}
