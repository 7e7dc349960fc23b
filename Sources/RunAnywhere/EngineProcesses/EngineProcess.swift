import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One engine worker, seen from the runtime: the process, the line of JSON each way, the
/// generations and questions waiting for its answers, and what happened when it died.
///
/// Two threads of its own read the worker's standard output (answers, handed to whoever waits)
/// and standard error (the engine's log, passed on to this process's standard error with the
/// last lines kept for the crash report). When the output ends, the worker has gone: every
/// waiting generation and question fails with ``ErrorCode/engineCrashed`` naming the signal.
final class EngineProcess: Sendable {
    let modelID: String
    let pid: Int32
    /// The worker's standard input, until ``stop(grace:)`` closes it.
    private let input: Mutex<Int32?>
    private let state = Mutex(State())
    private let exited = CompletionSignal()
    private let logger: Logger

    private struct State {
        var nextID: UInt64 = 1
        var runs: [UInt64: LLMEngineEmitter] = [:]
        var questions: [UInt64: Question] = [:]
        /// Who hears work's progress (a drawing's steps, a transcription's segments).
        var progress: [UInt64: @Sendable (WorkerProgress) -> Void] = [:]
        /// Work answered once, awaited (an embedding, a ranking).
        var awaited: [UInt64: CheckedContinuation<WorkerAnswer, any Error>] = [:]
        var loading: CheckedContinuation<WorkerModelFacts, any Error>?
        var loadFacts: Result<WorkerModelFacts, SDKError>?
        var failure: SDKError?
        var stopping = false
        /// The last line of the worker's standard error, and the last that says why it failed.
        var lastErrorLine: String?
        var lastClue: String?
    }

    /// The worker's `Process`, handed to the thread that waits for it to exit.
    private struct ChildProcess: @unchecked Sendable {
        // Only that thread touches it once the process has started.
        let process: Process
    }

    /// A synchronous question's answer slot: the asking thread waits on the semaphore.
    private final class Question: @unchecked Sendable {
        // The reader thread sets `answer` before it signals; the asker reads it after waiting.
        let semaphore = DispatchSemaphore(value: 0)
        var answer: Result<WorkerAnswer, SDKError>?
    }

    /// Starts a worker for `model` (`executable arguments… --model <id>`), with pipes for its
    /// standard input, output and error.
    init(model: ModelInfo, processes: EngineProcesses, logger: Logger) throws {
        signal(SIGPIPE, SIG_IGN)  // a write to a worker that has died must fail, not end this process
        let process = Process()
        process.executableURL = processes.executable
        process.arguments = processes.arguments + ["--model", model.id]
        // ggml answers an abort by attaching gdb to print a backtrace, and an attach that hangs
        // (seen in CI) leaves the worker stopped under it and its requests waiting for ever; its
        // message comes first, and the Swift runtime's crash report follows without gdb.
        process.environment = ProcessInfo.processInfo.environment.merging(["GGML_NO_BACKTRACE": "1"]) { $1 }
        let (input, output, errors) = (Pipe(), Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw SDKError(
                .modelLoadFailed,
                "Cannot start an engine process for model '\(model.id)' (\(processes.executable.path)): \(error.localizedDescription)")
        }
        modelID = model.id
        pid = process.processIdentifier
        self.logger = logger
        // The pipes' descriptors outlive the Pipe objects: this process owns them from here.
        // Close-on-exec, so that the next worker does not inherit this one's input (which would
        // keep it from seeing its input end) or output.
        func own(_ handle: FileHandle) -> Int32 { fcntl(handle.fileDescriptor, F_DUPFD_CLOEXEC, 0) }
        self.input = Mutex(own(input.fileHandleForWriting))
        let (outputFD, errorFD) = (own(output.fileHandleForReading), own(errors.fileHandleForReading))
        try? input.fileHandleForWriting.close()
        try? output.fileHandleForReading.close()
        try? errors.fileHandleForReading.close()
        let readErrors = Thread { [self] in readStandardError(errorFD) }
        readErrors.name = "engine-worker-stderr"
        readErrors.start()
        let child = ChildProcess(process: process)
        let readAnswers = Thread { [self] in
            WorkerWire.readLines(from: outputFD) { handle($0) }
            close(outputFD)
            child.process.waitUntilExit()
            workerEnded(reason: child.process.terminationReason, status: child.process.terminationStatus)
        }
        readAnswers.name = "engine-worker-stdout"
        readAnswers.start()
    }

    /// Asks the worker to load its model as `kind` and waits for it (at most `timeout`, then the worker is killed).
    func load(
        _ model: ModelInfo, as kind: EngineKind, framework: InferenceFramework, options: ModelLoadOptions,
        diffusion: DiffusionConfiguration?, timeout: Duration
    ) async throws -> WorkerModelFacts {
        send(.load(model: model, framework: framework, kind: kind, options: options, diffusion: diffusion))
        let deadline = Task { [pid] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            kill(pid, SIGKILL)
        }
        defer { deadline.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let settled = state.withLock { state -> Result<WorkerModelFacts, SDKError>? in
                if let facts = state.loadFacts { return facts }
                state.loading = continuation
                return nil
            }
            if let settled { continuation.resume(with: settled) }
        }
    }

    /// The failure that ended the worker, once it has died.
    var failure: SDKError? { state.withLock { $0.failure } }

    /// Generations started and not yet done.
    var activeGenerations: Int { state.withLock { $0.runs.count } }

    /// Starts a generation in the worker, waiting (on this thread, for a round trip) until its
    /// engine has taken it, so that what the engine refuses at once (a full queue, an empty or
    /// too long prompt, a bad grammar) throws here, as it does in process. With a `receiver`,
    /// the run's events go to it on the thread that reads the worker's pipe.
    func generate(_ request: LLMEngineRequest, reportingTo receiver: LLMEngineReceiver? = nil) throws -> LLMEngineRun {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let (run, emitter) = LLMEngineRun.make(onCancel: { [weak self] in self?.send(.cancel(id: id)) }, receiver: receiver)
        let taken = Question()
        let failure = state.withLock { state -> SDKError? in
            if let failure = state.failure { return failure }
            state.runs[id] = emitter
            state.questions[id] = taken
            return nil
        }
        if let failure { throw failure }
        send(.generate(id: id, request: request))
        taken.semaphore.wait()
        _ = try taken.answer!.get()
        return run
    }

    /// Asks the worker a quick question and waits for the answer on this thread (a question is
    /// answered in well under a millisecond by the worker's reading thread).
    func ask(_ question: WorkerQuestion) throws -> WorkerAnswer {
        let slot = Question()
        let (id, failure) = state.withLock { state -> (UInt64, SDKError?) in
            defer { state.nextID += 1 }
            if state.failure == nil { state.questions[state.nextID] = slot }
            return (state.nextID, state.failure)
        }
        if let failure { throw failure }
        send(.ask(id: id, question: question))
        slot.semaphore.wait()
        return try slot.answer!.get()
    }

    /// Sends the request `make` builds with its id and waits for its one answer; cancelling the
    /// calling task stops the worker's engine (`CancellationError`).
    func call(_ make: (UInt64) -> WorkerRequest) async throws -> WorkerAnswer {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let request = make(id)
        let answer: WorkerAnswer
        do {
            answer = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WorkerAnswer, any Error>) in
                    let failure = state.withLock { state -> SDKError? in
                        if let failure = state.failure { return failure }
                        state.awaited[id] = continuation
                        return nil
                    }
                    if let failure { return continuation.resume(throwing: failure) }
                    send(request)
                }
            } onCancel: {
                send(.cancel(id: id))
            }
        } catch  where Task.isCancelled {
            throw CancellationError()  // the worker stopped because the caller went away
        }
        try Task.checkCancellation()
        return answer
    }

    /// ``call(_:)`` for an engine's blocking API: waits on this thread, and sends the worker a
    /// ``WorkerRequest/cancel(id:)`` once `cancellation` is raised (checked every 20 ms), after
    /// which the call throws `CancellationError`. `onProgress` hears the work's progress.
    func callBlocking(
        _ make: (UInt64) -> WorkerRequest, cancellation: CancellationFlag, onProgress: (@Sendable (WorkerProgress) -> Void)? = nil
    ) throws -> WorkerAnswer {
        let slot = Question()
        let (id, failure) = state.withLock { state -> (UInt64, SDKError?) in
            defer { state.nextID += 1 }
            if state.failure == nil {
                state.questions[state.nextID] = slot
                state.progress[state.nextID] = onProgress
            }
            return (state.nextID, state.failure)
        }
        defer { state.withLock { _ = $0.progress.removeValue(forKey: id) } }
        if let failure { throw failure }
        send(make(id))
        var cancelled = false
        while slot.semaphore.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            if !cancelled, cancellation.isCancelled {
                cancelled = true
                send(.cancel(id: id))
            }
        }
        if cancelled || cancellation.isCancelled { throw CancellationError() }
        return try slot.answer!.get()
    }

    /// The error for an answer of another kind than the request asked for.
    func wrongAnswer() -> SDKError {
        SDKError(.generationFailed, "Model '\(modelID)': its engine process gave an answer of the wrong kind")
    }

    /// Ends the worker: closes its input (it frees its model and exits) and waits for it to go,
    /// killing it after `grace`.
    func stop(grace: Duration = .seconds(10)) async {
        state.withLock { $0.stopping = true }
        input.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
        let killer = Task { [pid] in
            guard (try? await Task.sleep(for: grace)) != nil else { return }
            kill(pid, SIGKILL)
        }
        await exited.wait()
        killer.cancel()
    }

    private func send(_ request: WorkerRequest) {
        guard let line = WorkerWire.line(request) else { return }
        input.withLock { fd in
            if let fd { WorkerWire.write(line, to: fd) }
        }
    }

    /// One line from the worker.
    private func handle(_ line: Data) {
        if WorkerTokenLine.isTokenLine(line), let (id, bytes) = WorkerTokenLine.decode(line) {
            state.withLock { $0.runs[id] }?.emit(.token(bytes: bytes, at: .now))
            return
        }
        if WorkerLogprobLine.isLogprobLine(line), let (id, logprob) = WorkerLogprobLine.decode(line) {
            state.withLock { $0.runs[id] }?.emit(.tokenLogprob(logprob))
            return
        }
        guard let reply = try? JSONDecoder().decode(WorkerReply.self, from: line) else {
            logger.warning(
                "An engine worker wrote a line that is not a message",
                metadata: ["model": "\(modelID)", "line": "\(String(decoding: line.prefix(200), as: UTF8.self))"])
            return
        }
        switch reply {
        case .loaded(let facts):
            settleLoad(.success(facts))
        case .loadFailed(let error):
            settleLoad(.failure(error))
        case .progress(let id, let progress):
            state.withLock { $0.progress[id] }?(progress)
        case .event(let id, let event):
            let emitter = state.withLock { $0.runs[id] }
            emitter?.emit(event.event)
        case .done(let id, let error):
            let (emitter, question, awaiting) = state.withLock {
                ($0.runs.removeValue(forKey: id), $0.questions.removeValue(forKey: id), $0.awaited.removeValue(forKey: id))
            }
            emitter?.finish(throwing: error)
            awaiting?.resume(throwing: error ?? SDKError(.generationFailed, "The engine worker gave no answer"))
            if let question {
                question.answer = .failure(error ?? SDKError(.generationFailed, "The engine worker gave no answer"))
                question.semaphore.signal()
            }
        case .answer(let id, let value):
            let (question, awaiting) = state.withLock { ($0.questions.removeValue(forKey: id), $0.awaited.removeValue(forKey: id)) }
            awaiting?.resume(returning: value)
            guard let question else { return }
            question.answer = .success(value)
            question.semaphore.signal()
        }
    }

    private func settleLoad(_ result: Result<WorkerModelFacts, SDKError>) {
        let waiting = state.withLock { state -> CheckedContinuation<WorkerModelFacts, any Error>? in
            state.loadFacts = result
            defer { state.loading = nil }
            return state.loading
        }
        waiting?.resume(with: result.mapError { $0 as any Error })
    }

    /// The worker's standard error: passed on line by line, the last few kept for a crash report.
    private func readStandardError(_ fd: Int32) {
        WorkerWire.readLines(from: fd) { line in
            var text = String(decoding: line, as: UTF8.self)
            FileHandle.standardError.write(Data((text + "\n").utf8))
            text = text.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { return }
            let line = String(text.prefix(300))
            let clue = Self.isClue(line)
            state.withLock { state in
                state.lastErrorLine = line
                // The Swift runtime's crash report follows an engine's own abort message, which says more.
                if clue, state.lastClue == nil || !line.contains("Program crashed") { state.lastClue = line }
            }
        }
        close(fd)
    }

    /// The worker has exited: fails what waited for it, with the reason.
    private func workerEnded(reason: Process.TerminationReason, status: Int32) {
        // One lock: work registered after it sees the failure and never waits on a worker that has gone.
        let (error, stopping, runs, questions, awaited) = state.withLock { state in
            let error = Self.failure(
                model: modelID, pid: pid, reason: reason, status: status, stopping: state.stopping,
                loaded: (try? state.loadFacts?.get()) != nil,
                said: state.lastClue ?? state.lastErrorLine
            )
            state.failure = error
            defer { (state.runs, state.questions, state.awaited, state.progress) = ([:], [:], [:], [:]) }
            return (error, state.stopping, state.runs, state.questions, state.awaited)
        }
        if !stopping {
            logger.error("An engine process died", metadata: ["model": "\(modelID)", "pid": "\(pid)", "error": "\(error.message)"])
        }
        settleLoad(.failure(error))
        for emitter in runs.values { emitter.finish(throwing: error) }
        for awaiting in awaited.values { awaiting.resume(throwing: error) }
        for question in questions.values {
            question.answer = .failure(error)
            question.semaphore.signal()
        }
        exited.signal()
    }

    /// Whether a line of a worker's standard error says why it failed: a crash report's first
    /// line, an assert or abort of ggml's (`file.cpp:123: message`), an error.
    static func isClue(_ line: String) -> Bool {
        line.contains("Program crashed") || line.contains("GGML_ASSERT") || line.contains("GGML_ABORT") || line.hasPrefix("error:")
            || line.range(of: #"\.(c|cc|cpp|cu|m):[0-9]+: "#, options: .regularExpression) != nil
    }

    /// The error a worker's end is reported as: the signal (or exit status), with what the
    /// engine or the Swift runtime `said` (the last line that ``isClue(_:)``, an engine's before a
    /// crash report's, else its last line);
    /// a source path in it is cut to the file's name.
    static func failure(
        model: String, pid: Int32, reason: Process.TerminationReason, status: Int32, stopping: Bool, loaded: Bool, said: String?
    ) -> SDKError {
        if stopping { return SDKError(.engineCrashed, "Model '\(model)' was unloaded while the request ran") }
        let how =
            reason == .uncaughtSignal
            ? "died of \(ModelProbe.signalName(status) ?? "signal \(status)") (signal \(status))"
            : "exited with status \(status)"
        let clue = said.map { $0.replacingOccurrences(of: #"^/\S*/([^/\s]+:[0-9]+: )"#, with: "$1", options: .regularExpression) }
        let detail = clue.map { ": \($0)" } ?? ""
        guard loaded else {
            return SDKError(
                .modelLoadFailed, "Model '\(model)' could not be loaded: its engine process (pid \(pid)) \(how) while loading it\(detail)")
        }
        return SDKError(
            .engineCrashed,
            "Model '\(model)' failed: its engine process (pid \(pid)) \(how)\(detail)\(restarted)", category: .runtime)
    }

    /// What an ``ErrorCode/engineCrashed`` message from ``failure(model:pid:reason:status:stopping:loaded:said:)`` ends with.
    private static let restarted = ". The model was restarted: the next request loads it in a new engine process"

    /// The crash `error` reports, without what it says of the next request.
    static func reason(of error: SDKError) -> String {
        error.message.hasSuffix(restarted) ? String(error.message.dropLast(restarted.count)) : error.message
    }
}
