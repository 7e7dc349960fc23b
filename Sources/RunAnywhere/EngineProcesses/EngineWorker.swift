import Foundation
import Logging
import Synchronization

/// The engine side of ``EngineProcesses``: a worker process's main loop. It loads the one model
/// its runtime sends, runs the requests (generations, embeddings, rankings, transcriptions,
/// voice activity, speech, images) and answers the questions the runtime sends on standard input, and writes the answers on standard output (which it
/// keeps for them: anything else written there, an engine's `printf` included, goes to standard
/// error). When its input ends (the runtime unloads the model, or has gone) it frees the model
/// and returns.
package enum EngineWorker {
    /// Serves one model with `frameworks`' engines until standard input ends; returns the exit
    /// status for the process.
    package static func serve(frameworks: FrameworkAdapterRegistry, logger: Logger) async -> Int32 {
        let output = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        let worker = Worker(output: output, frameworks: frameworks, logger: logger)
        let (requests, continuation) = AsyncStream.makeStream(of: WorkerRequest.self)
        let reader = Thread {
            WorkerWire.readLines(from: STDIN_FILENO) { line in
                guard let request = try? JSONDecoder().decode(WorkerRequest.self, from: line) else {
                    logger.error(
                        "The engine worker read a line that is not a request",
                        metadata: ["line": "\(String(decoding: line.prefix(200), as: UTF8.self))"])
                    return
                }
                if !worker.handleAtOnce(request) { continuation.yield(request) }
            }
            continuation.finish()
        }
        reader.name = "engine-worker-stdin"
        reader.start()
        for await request in requests { await worker.handle(request) }
        await worker.unload()
        await worker.output.drain()
        return 0
    }

    /// A test's way to make the worker fault for real, set in the worker's environment:
    /// with `RUNANYWHERE_TEST_ENGINE_FAULTS=1`, a generation whose prompt (an embedding or a
    /// ranking one of whose texts, a transcription its prompt, a synthesis its text, an image
    /// its prompt) holds
    /// `[[engine-fault:segv]]` dereferences an invalid pointer (SIGSEGV) and one holding
    /// `[[engine-fault:abort]]` calls `abort()` (SIGABRT), as a native engine's bug would.
    static let faultsVariable = "RUNANYWHERE_TEST_ENGINE_FAULTS"

    /// The same test fault in another engine process (`runanywhere quantize-model`): when
    /// ``faultsVariable`` is set, `text` (there, the input file's path) holding a marker faults.
    package static func faultIfTesting(_ text: String) {
        guard ProcessInfo.processInfo.environment[faultsVariable] == "1" else { return }
        Worker.faultIfAsked(text)
    }

    /// One generation's lines. The first is the answer that the engine took it (the runtime's
    /// `startGeneration` waits for it), written by the worker once the engine's
    /// `startGeneration` returns, or before the engine's first event if that comes sooner.
    private final class GenerationLines: Sendable {
        let id: UInt64
        let output: LineWriter
        private let announced = Mutex(false)

        init(id: UInt64, output: LineWriter) {
            self.id = id
            self.output = output
        }

        func announce() {
            announced.withLock { announced in
                guard !announced, let line = WorkerWire.line(WorkerReply.answer(id: id, .flag(true))) else { return }
                output.write(line)
                announced = true
            }
        }

        /// Queues `line` after the answer (see ``LineWriter/queue(_:)``).
        func queue(_ line: Data) {
            announce()
            output.queue(line)
        }
    }

    /// The state of one worker: its model, its running work, and its output. Questions and
    /// generations are handled on the thread that reads them (``handleAtOnce(_:)``), everything
    /// else in order on the actor.
    private actor Worker {
        let output: LineWriter
        let frameworks: FrameworkAdapterRegistry
        let logger: Logger
        private let loaded = Mutex<LoadedEngine?>(nil)
        /// The generations under way, and those whose end came before they were entered.
        private let runs = Mutex<(running: [UInt64: LLMEngineRun], endedEarly: Set<UInt64>)>(([:], []))
        /// Work under way but generations (embeddings, rankings, speech).
        var calls: [UInt64: CancellationFlag] = [:]
        let faults = ProcessInfo.processInfo.environment[EngineWorker.faultsVariable] == "1"

        init(output: Int32, frameworks: FrameworkAdapterRegistry, logger: Logger) {
            self.output = LineWriter(fd: output)
            self.frameworks = frameworks
            self.logger = logger
        }

        /// Writes `reply`; encoded on the caller's thread, so that generations encode at once.
        nonisolated func send(_ reply: WorkerReply) {
            if let line = WorkerWire.line(reply) { output.write(line) }
        }

        /// The model, once loaded.
        private nonisolated var engine: LoadedEngine? { loaded.withLock { $0 } }

        /// Handles a question, a generation or a generation's cancellation on the calling thread
        /// (the one reading the runtime's requests), and says whether it did: the runtime waits
        /// on a round trip for each question about a prompt and for the word that the engine took
        /// a request, and a hop to the actor, whose threads the engine's share, made each longer.
        /// The runtime asks and generates only once the model is loaded.
        nonisolated func handleAtOnce(_ request: WorkerRequest) -> Bool {
            switch request {
            case .generate(let id, let request):
                generate(id, request)
                return true
            case .ask(let id, let question):
                do {
                    send(.answer(id: id, try answer(question)))
                } catch {
                    send(.done(id: id, error: Self.sdkError(error)))
                }
                return true
            case .cancel(let id):
                runs.withLock { $0.running[id] }?.cancel()
                return false  // the actor's work may have it too
            default:
                return false
            }
        }

        func handle(_ request: WorkerRequest) async {
            switch request {
            case .load(let model, let framework, let kind, let options, let diffusion):
                do {
                    guard let adapter = frameworks.adapter(for: framework) else {
                        throw SDKError(.frameworkNotAvailable, "The engine process has no \(framework.displayName) engine")
                    }
                    let engine = try await adapter.loadEngine(
                        model, as: kind, options: options, diffusion: diffusion ?? DiffusionConfiguration(), logger: logger)
                    loaded.withLock { $0 = engine }
                    send(.loaded(WorkerModelFacts(engine)))
                } catch {
                    send(.loadFailed(Self.sdkError(error)))
                }
            case .embed(let id, let texts, let options):
                guard case .embedding(let embedder) = engine else { return refuse(id, as: .embedding) }
                respond(id, reading: texts) { .embeddings(try await embedder.embed(texts, options: options, cancellation: $0)) }
            case .rerank(let id, let query, let documents, let options):
                guard case .reranking(let reranker) = engine else { return refuse(id, as: .reranking) }
                respond(id, reading: [query] + documents) {
                    let ranking = try await reranker.rerank(query: query, documents: documents, options: options, cancellation: $0)
                    return .ranking(scores: ranking.scores, tokenCounts: ranking.tokenCounts)
                }
            case .transcribe(let id, let audio, let options):
                guard case .speechRecognition(let stt) = engine else { return refuse(id, as: .speechRecognition) }
                respond(id, reading: [options.prompt ?? ""]) { [self] cancellation in
                    let input = try audio.audio()
                    let (segments, language) = try await runBlocking {
                        try stt.transcribe(input, options: options, cancellation: cancellation) { segment in
                            self.send(.progress(id: id, .segment(segment)))
                        }
                    }
                    return .transcription(segments: segments, language: language)
                }
            case .detectSpeech(let id, let audio, let options):
                guard case .voiceActivity(let vad) = engine else { return refuse(id, as: .voiceActivity) }
                respond(id, reading: []) { _ in
                    let input = try audio.audio()
                    return .speech(try await runBlocking { try vad.detectSpeech(input, options: options) })
                }
            case .speechProbabilities(let id, let audio):
                guard case .voiceActivity(let vad) = engine else { return refuse(id, as: .voiceActivity) }
                respond(id, reading: []) { _ in
                    let input = try audio.audio()
                    return .probabilities(try await runBlocking { try vad.windowProbabilities(input) })
                }
            case .synthesize(let id, let text, let options):
                guard case .speechSynthesis(let tts) = engine else { return refuse(id, as: .speechSynthesis) }
                respond(id, reading: [text]) { cancellation in
                    .audio(WorkerAudio(try await runBlocking { try tts.synthesize(text, options: options, cancellation: cancellation) }))
                }
            case .draw(let id, let prompt, let options):
                guard case .imageGeneration(let diffusion) = engine else { return refuse(id, as: .imageGeneration) }
                respond(id, reading: [prompt]) { [self] cancellation in
                    let image = try await runBlocking {
                        try diffusion.generate(DiffusionRequest(prompt: prompt, options: options), cancellation: cancellation) {
                            done, total in
                            self.send(.progress(id: id, .step(done: done, total: total)))
                        }
                    }
                    return .image(png: image.png, width: image.width, height: image.height)
                }
            case .cancel(let id):
                calls[id]?.cancel()
            case .generate, .ask:
                break  // handled at once (handleAtOnce)
            }
        }

        /// The language model, if that is what the worker loaded.
        private nonisolated var service: (any LLMService)? {
            if case .language(let service) = engine { service } else { nil }
        }

        private nonisolated func refuse(_ id: UInt64, as kind: EngineKind) {
            send(.done(id: id, error: SDKError(.modelLoadFailed, "The engine process has no \(kind.rawValue) model loaded")))
        }

        /// Starts generation `id`. Its events go out as the engine reports them, from the
        /// engine's threads where it can report to a receiver (llama.cpp's scheduler queues each
        /// token's line itself), after the answer that the engine took it.
        private nonisolated func generate(_ id: UInt64, _ request: LLMEngineRequest) {
            guard let service else { return refuse(id, as: .language) }
            let lines = GenerationLines(id: id, output: output)
            let receiver = LLMEngineReceiver(
                event: { event in
                    if case .token(let bytes, _) = event {
                        lines.queue(WorkerTokenLine.encode(id: id, bytes: bytes))
                    } else if case .tokenLogprob(let logprob) = event {
                        lines.queue(WorkerLogprobLine.encode(id: id, logprob: logprob))
                    } else if let event = WorkerEngineEvent(event), let line = WorkerWire.line(WorkerReply.event(id: id, event: event)) {
                        lines.queue(line)
                    }
                },
                flush: { [output] in output.send() },
                end: { [self] error in
                    if let line = WorkerWire.line(WorkerReply.done(id: id, error: error.map(Self.sdkError))) { lines.queue(line) }
                    output.send()
                    runs.withLock { runs in
                        if runs.running.removeValue(forKey: id) == nil { runs.endedEarly.insert(id) }
                    }
                })
            let run: LLMEngineRun
            do {
                if let service = service as? any LLMServiceWithReceivers {
                    run = try service.startGeneration(request, reportingTo: receiver)
                } else {
                    run = try service.startGeneration(request)
                    run.deliver(to: receiver)
                }
            } catch {
                return send(.done(id: id, error: Self.sdkError(error)))
            }
            runs.withLock { runs in
                if runs.endedEarly.remove(id) == nil { runs.running[id] = run }
            }
            lines.announce()  // unless the engine's first event has already
            if faults { Self.faultIfAsked(request.prompt) }  // while the generation runs, as an engine's bug would
        }

        /// Runs `work` (all but a generation) and sends its answer; a ``WorkerRequest/cancel(id:)``
        /// raises its flag. `texts` are what a test fault may hide in.
        private func respond(
            _ id: UInt64, reading texts: [String], _ work: @escaping @Sendable (CancellationFlag) async throws -> WorkerAnswer
        ) {
            let cancellation = CancellationFlag()
            calls[id] = cancellation
            Task { [self, faults] in
                do {
                    if faults { texts.forEach(Self.faultIfAsked) }
                    send(.answer(id: id, try await work(cancellation)))
                } catch {
                    send(.done(id: id, error: error is CancellationError ? SDKError(.generationFailed, "cancelled") : Self.sdkError(error)))
                }
                calls[id] = nil
            }
        }

        private nonisolated func answer(_ question: WorkerQuestion) throws -> WorkerAnswer {
            if case .imageGeneration(let diffusion) = engine {
                switch question {
                case .workingMemory(let width, let height): return .count(Int(diffusion.workingMemory(width: width, height: height)))
                case .checkImage(let options):
                    try diffusion.check(options)
                    return .flag(true)
                default: break
                }
            }
            guard let service else { throw SDKError(.modelLoadFailed, "The engine process has no language model loaded") }
            switch question {
            case .tokenCount(let text, let plainText): return .count(try service.tokenCount(text, plainText: plainText))
            case .hasSpecialToken(let text): return .flag(service.hasSpecialToken(text))
            case .applyChatTemplate(let messages, let prefix): return .text(service.applyChatTemplate(messages, addAssistantPrefix: prefix))
            case .imageTokenCount(let image): return .count(try service.imageTokenCount(image))
            case .tokenize(let text, let addSpecial, let parseSpecial):
                return .tokens(try tokenizer().tokenize(text, addSpecial: addSpecial, parseSpecial: parseSpecial))
            case .piece(let token): return .bytes(try tokenizer().piece(token))
            case .auxiliaryMemory: return .count(Int(service.auxiliaryMemory))
            case .workingMemory, .checkImage: throw SDKError(.modelLoadFailed, "The engine process has no image-generation model loaded")
            }
        }

        private nonisolated func tokenizer() throws -> any TokenizerAdapter {
            guard let tokenizer = service as? any TokenizerAdapter else {
                throw SDKError(.modelIncompatible, "The model's engine has no tokenizer the SDK can reach")
            }
            return tokenizer
        }

        /// Frees the model once its work has ended (cancelled: the runtime has gone).
        func unload() async {
            let running = runs.withLock { Array($0.running.values) }
            for run in running { run.cancel() }
            for run in running { await run.waitUntilFinished() }
            for flag in calls.values { flag.cancel() }
            await engine?.unload()
            loaded.withLock { $0 = nil }
        }

        fileprivate static func faultIfAsked(_ prompt: String) {
            if prompt.contains("[[engine-fault:segv]]") {
                UnsafeMutablePointer<UInt8>(bitPattern: 8)!.pointee = 1  // SIGSEGV, as a native engine's bad pointer would
            }
            if prompt.contains("[[engine-fault:abort]]") { abort() }
        }

        private static func sdkError(_ error: any Error) -> SDKError {
            error as? SDKError ?? SDKError(.generationFailed, "\(error)")
        }
    }
}
