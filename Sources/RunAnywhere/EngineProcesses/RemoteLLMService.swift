import Foundation
import Logging

/// A language model whose engine runs in a worker process (``EngineProcesses``): the runtime's
/// model cache holds it as it holds an engine in this process. Generations stream from the
/// worker; the engine's quick questions (token counts, the chat template, the vocabulary) are
/// asked of it.
final class RemoteLLMService: LLMServiceWithReceivers, TokenizerAdapter, RemoteEngine {
    let contextLength: Int
    let chatTemplateSource: String?
    let readsImages: Bool
    let backend: String
    private let vocabulary: Int?
    let fillInTheMiddleTokens: FillInTheMiddleTokens?
    let worker: EngineProcess
    private let parallel: Int

    /// The engine of the model `worker` has loaded, described by `facts`.
    init(worker: EngineProcess, facts: WorkerModelFacts, parallel: Int) {
        self.worker = worker
        self.parallel = parallel
        contextLength = facts.contextLength
        chatTemplateSource = facts.chatTemplateSource
        readsImages = facts.readsImages
        backend = facts.backend
        vocabulary = facts.vocabularySize
        fillInTheMiddleTokens = facts.fillInTheMiddleTokens
    }

    func tokenCount(_ text: String, plainText: [Range<Int>]) throws -> Int {
        guard case .count(let count) = try worker.ask(.tokenCount(text: text, plainText: plainText)) else { throw worker.wrongAnswer() }
        return count
    }

    func hasSpecialToken(_ text: String) -> Bool {
        guard case .flag(let flag)? = try? worker.ask(.hasSpecialToken(text: text)) else { return false }
        return flag
    }

    func applyChatTemplate(_ messages: [Message], addAssistantPrefix: Bool) -> String? {
        guard case .text(let text)? = try? worker.ask(.applyChatTemplate(messages: messages, addAssistantPrefix: addAssistantPrefix)) else {
            return nil
        }
        return text
    }

    func imageTokenCount(_ image: LoadedImage) throws -> Int {
        guard case .count(let count) = try worker.ask(.imageTokenCount(image: image)) else { throw worker.wrongAnswer() }
        return count
    }

    var vocabularySize: Int { vocabulary ?? 0 }

    func tokenize(_ text: String, addSpecial: Bool, parseSpecial: Bool) throws -> [Int32] {
        guard case .tokens(let tokens) = try worker.ask(.tokenize(text: text, addSpecial: addSpecial, parseSpecial: parseSpecial)) else {
            throw worker.wrongAnswer()
        }
        return tokens
    }

    func piece(_ token: Int32) throws -> [UInt8] {
        try checkVocabulary([token])
        guard case .bytes(let bytes) = try worker.ask(.piece(token: token)) else { throw worker.wrongAnswer() }
        return bytes
    }

    func startGeneration(_ request: LLMEngineRequest) throws -> LLMEngineRun { try worker.generate(request) }

    func startGeneration(_ request: LLMEngineRequest, reportingTo receiver: LLMEngineReceiver) throws -> LLMEngineRun {
        try worker.generate(request, reportingTo: receiver)
    }

    /// What the engine says it holds; 0 when it cannot say (its process gone).
    var auxiliaryMemory: Int64 {
        guard case .count(let bytes)? = try? worker.ask(.auxiliaryMemory) else { return 0 }
        return Int64(bytes)
    }

    /// The engine runs `parallel` generations at once; the rest wait in its queue.
    var queuedGenerations: Int { max(0, worker.activeGenerations - parallel) }

    func unload() async { await worker.stop() }
}
