import Foundation

/// Loads a model file once in a child process before a runtime loads it in its own.
///
/// Some damaged files make an engine abort instead of failing: llama.cpp asserts on states its
/// own checks miss, and an assert ends the whole process (for a server, every user's session).
/// ``GGUFReader`` refuses the damage it can see; the probe contains the rest: in the child, an
/// abort costs the child, and the runtime refuses the model with a clear error instead of
/// loading it. A file that passed is remembered, by path, size and modification time, in
/// `<models>/.checked-models.json`, and not probed again; a file that failed is probed again
/// next time (it may have been replaced).
package struct ModelProbe: Sendable {
    /// The program, run as `executable arguments… --framework <framework> <file>`: it loads the
    /// file with that engine and uses it once (one token, half a second of silence, one 64×64
    /// step, a spoken word), then exits 0, or non-zero with the reason on standard error
    /// (`runanywhere probe-model` does this).
    package var executable: URL
    /// The arguments before `--framework`.
    package var arguments: [String]
    /// How long a probe may take before it counts as a hang and is killed.
    package var timeout: Duration
    /// The engines whose files it checks; files for the others are loaded directly.
    package var frameworks: Set<InferenceFramework>

    /// Creates a probe (by default for llama.cpp's, whisper.cpp's, stable-diffusion.cpp's and
    /// sherpa-onnx's files, what `runanywhere probe-model` loads).
    package init(
        executable: URL, arguments: [String], timeout: Duration = .seconds(300),
        frameworks: Set<InferenceFramework> = [.llamaCpp, .whisperCpp, .stableDiffusionCpp, .onnx]
    ) {
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
        self.frameworks = frameworks
    }

    /// Throws ``ErrorCode/modelLoadFailed`` when `file` does not load with `framework` (one of
    /// ``frameworks``) in a child process: the child crashed (naming the signal), hung, or said why
    /// it failed.
    func check(_ file: URL, framework: InferenceFramework, modelID: String, modelsDirectory: URL) async throws {
        guard frameworks.contains(framework) else { return }
        let record = ProbeRecord(modelsDirectory: modelsDirectory)
        let stamp = ProbeRecord.Stamp(file)
        if let stamp, record.passed(file, stamp) { return }
        let arguments = arguments + ["--framework", framework.rawValue, file.path]
        let (executable, timeout) = (executable, timeout)
        let outcome = try await runBlocking { try Self.run(executable, arguments, timeout: timeout) }
        func failed(_ why: String) -> SDKError {
            SDKError(.modelLoadFailed, "Model '\(modelID)' (\(file.lastPathComponent)) \(why); it was not loaded")
        }
        switch outcome {
        case .passed: if let stamp { record.remember(file, stamp) }
        case .crashed(let signal, let said):
            throw failed(
                "crashed \(framework.displayName) while loading in a check process (signal \(signal)\(Self.signalName(signal).map { ", \($0)" } ?? "")): the file is damaged or not one this engine can read\(said.isEmpty ? "" : " (\(said))")"
            )
        case .failed(let said): throw failed("did not load: \(said.isEmpty ? "the check process failed" : said)")
        case .timedOut: throw failed("did not load within \(String(format: "%g", timeout.inSeconds)) seconds in a check process")
        }
    }

    enum Outcome { case passed, crashed(Int32, String), failed(String), timedOut }

    /// Runs the child to its end (killing it at `timeout`); `purpose` names it in the error when
    /// it cannot start. `started` gets its process id once it runs; `output`, when given, each
    /// line it writes to standard output, as it writes it (otherwise its output is dropped).
    static func run(
        _ executable: URL, _ arguments: [String], timeout: Duration, purpose: String = "model check",
        started: (@Sendable (pid_t) -> Void)? = nil, output: (@Sendable (String) -> Void)? = nil
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        let printed = output.map { _ in Pipe() }
        process.standardOutput = printed ?? FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw SDKError(.modelLoadFailed, "Cannot start the \(purpose) process \(executable.path): \(error.localizedDescription)")
        }
        started?(process.processIdentifier)
        let outputRead = DispatchSemaphore(value: 0)
        if let printed, let output {
            // Read on a thread of its own while standard error is read here, so that neither pipe fills.
            let reader = Thread {
                WorkerWire.readLines(from: printed.fileHandleForReading.fileDescriptor) { output(String(decoding: $0, as: UTF8.self)) }
                outputRead.signal()
            }
            reader.name = "\(purpose)-output"
            reader.start()
        } else {
            outputRead.signal()
        }
        let killed = CancellationFlag()
        let deadline = DispatchWorkItem {
            guard process.isRunning else { return }
            killed.cancel()
            kill(process.processIdentifier, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.inSeconds, execute: deadline)
        let said = errors.fileHandleForReading.readDataToEndOfFile()  // until the child exits
        process.waitUntilExit()
        outputRead.wait()
        deadline.cancel()
        // The reason: the CLI's last `error:` line, else the engine's assert, else what the Swift
        // runtime's crash report says, else the last line.
        let lines = String(decoding: said, as: UTF8.self).split(separator: "\n")
        let crash = lines.first { $0.contains("Program crashed: ") }.map {
            $0.split(separator: "Program crashed: ").last!.replacingOccurrences(of: " ***", with: "")
        }
        let line =
            lines.last { $0.hasPrefix("error: ") } ?? lines.last { $0.contains("GGML_ASSERT") || $0.contains("GGML_ABORT") }
            ?? crash.map { Substring($0) } ?? lines.last ?? ""
        let reason = String((line.hasPrefix("error: ") ? line.dropFirst(7) : line).prefix(500))
        if killed.isCancelled { return .timedOut }
        if process.terminationReason == .uncaughtSignal { return .crashed(process.terminationStatus, reason) }
        return process.terminationStatus == 0 ? .passed : .failed(reason)
    }

    static func signalName(_ signal: Int32) -> String? {
        [
            SIGABRT: "SIGABRT", SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGILL: "SIGILL", SIGKILL: "SIGKILL",
            SIGTRAP: "SIGTRAP",
        ][signal]
    }
}

extension RunAnywhereRuntime {
    /// Checks `path`, model `model`'s file or folder, in a child process before it is loaded
    /// with `framework`, when ``RuntimeConfiguration/modelProbe`` is set.
    func checkInChildProcess(_ path: URL?, of model: ModelInfo, framework: InferenceFramework) async throws {
        guard let probe = configuration.modelProbe, let path else { return }
        try await probe.check(path, framework: framework, modelID: model.id, modelsDirectory: configuration.modelsDirectory)
    }
}

/// The files that passed a probe: path → size and modification time when they did (for a folder,
/// the total size of its files and the latest time one changed).
struct ProbeRecord {
    struct Stamp: Codable, Equatable {
        let size: Int64
        let modified: Double

        init?(_ path: URL) {
            let keys: Set<URLResourceKey> = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
            let files =
                (try? path.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true
                ? (FileManager.default.enumerator(at: path, includingPropertiesForKeys: Array(keys))?.allObjects as? [URL] ?? [])
                : [path]
            var (size, modified) = (Int64(0), 0.0)
            for file in files {
                guard let values = try? file.resourceValues(forKeys: keys), values.isRegularFile == true,
                    let bytes = values.fileSize, let time = values.contentModificationDate
                else { continue }
                size += Int64(bytes)
                modified = max(modified, time.timeIntervalSince1970)
            }
            guard modified > 0 else { return nil }
            self.size = size
            self.modified = modified
        }
    }

    let url: URL

    init(modelsDirectory: URL) { url = modelsDirectory.appendingPathComponent(".checked-models.json") }

    private func read() -> [String: Stamp] {
        (try? Data(contentsOf: url)).flatMap { try? JSONDecoder().decode([String: Stamp].self, from: $0) } ?? [:]
    }

    func passed(_ file: URL, _ stamp: Stamp) -> Bool { read()[file.standardizedFileURL.path] == stamp }

    /// Remembers that `file` passed (best effort: a record that cannot be written means a probe next time).
    func remember(_ file: URL, _ stamp: Stamp) {
        _ = try? FileLock.withLock(at: url.deletingLastPathComponent().appendingPathComponent(".checked-models.lock")) {
            var passed = read().filter { FileManager.default.fileExists(atPath: $0.key) }
            passed[file.standardizedFileURL.path] = stamp
            try AtomicFile.write(try JSONEncoder().encode(passed), to: url)
        }
    }
}
