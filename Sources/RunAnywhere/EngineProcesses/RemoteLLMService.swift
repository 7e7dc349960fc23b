import Foundation
import Logging

/// A language model whose engine runs in a worker process (``EngineProcesses``): the runtime's
/// model cache holds it as it holds an engine in this process. Generations stream from the
/// worker; the engine's quick questions (token counts, the chat template, the vocabulary) are
/// asked of it.
final class RemoteLLMService: LLMService, TokenizerAdapter {
    let contextLength: Int
    let chatTemplateSource: String?
    let readsImages: Bool
    let backend: String
    private let vocabulary: Int?
    private let worker: EngineProcess
    private let parallel: Int

    private init(worker: EngineProcess, facts: WorkerModelFacts, parallel: Int) {
        self.worker = worker
        self.parallel = parallel
        contextLength = facts.contextLength
        chatTemplateSource = facts.chatTemplateSource
        readsImages = facts.readsImages
        backend = facts.backend
        vocabulary = facts.vocabularySize
    }

    /// Starts a worker and loads `model` into it with `framework`'s engine.
    static func load(
        _ model: ModelInfo, framework: InferenceFramework, options: ModelLoadOptions, processes: EngineProcesses, logger: Logger
    ) async throws -> RemoteLLMService {
        let worker = try EngineProcess(model: model, processes: processes, logger: logger)
        do {
            let facts = try await worker.load(model, as: .language, framework: framework, options: options, timeout: processes.loadTimeout)
            logger.debug("Engine process loaded its model", metadata: ["model": "\(model.id)", "pid": "\(worker.pid)"])
            return RemoteLLMService(worker: worker, facts: facts, parallel: options.parallel)
        } catch {
            await worker.stop(grace: .seconds(1))
            throw error
        }
    }

    /// Why the worker died, once it has: the model must be loaded again.
    var failure: SDKError? { worker.failure }

    /// The worker's process id.
    var processIdentifier: Int32 { worker.pid }

    func tokenCount(_ text: String) throws -> Int {
        guard case .count(let count) = try worker.ask(.tokenCount(text: text)) else { throw unexpected() }
        return count
    }

    func hasSpecialToken(_ text: String) -> Bool {
        guard case .flag(let flag)? = try? worker.ask(.hasSpecialToken(text: text)) else { return false }
        return flag
    }

    func applyChatTemplate(_ messages: [Message], addAssistantPrefix: Bool) -> String? {
        guard case .text(let text)? = try? worker.ask(.applyChatTemplate(messages: messages, addAssistantPrefix: addAssistantPrefix)) else { return nil }
        return text
    }

    func imageTokenCount(_ image: LoadedImage) throws -> Int {
        guard case .count(let count) = try worker.ask(.imageTokenCount(image: image)) else { throw unexpected() }
        return count
    }

    var vocabularySize: Int { vocabulary ?? 0 }

    func tokenize(_ text: String, addSpecial: Bool, parseSpecial: Bool) throws -> [Int32] {
        guard case .tokens(let tokens) = try worker.ask(.tokenize(text: text, addSpecial: addSpecial, parseSpecial: parseSpecial)) else { throw unexpected() }
        return tokens
    }

    func piece(_ token: Int32) throws -> [UInt8] {
        try checkVocabulary([token])
        guard case .bytes(let bytes) = try worker.ask(.piece(token: token)) else { throw unexpected() }
        return bytes
    }

    func startGeneration(_ request: LLMEngineRequest) throws -> LLMEngineRun { try worker.generate(request) }

    /// The engine runs `parallel` generations at once; the rest wait in its queue.
    var queuedGenerations: Int { max(0, worker.activeGenerations - parallel) }

    func unload() async { await worker.stop() }

    private func unexpected() -> SDKError {
        SDKError(.generationFailed, "Model '\(worker.modelID)': its engine process gave an answer of the wrong kind")
    }
}
