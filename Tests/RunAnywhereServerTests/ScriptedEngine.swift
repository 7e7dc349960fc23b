import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport

/// A language engine whose answers are known in advance, so that route tests can check every
/// byte the server sends: it answers with the words of the last user message (the text after the
/// last "user: " line of its chat template, or the whole prompt without one), one token per word,
/// then stops; `max_tokens` cuts it short. It sleeps `tokenDelay` before each token, so that tests
/// can catch a stream in flight, and stops within one token when cancelled.
struct ScriptedAdapter: FrameworkAdapter {
    let framework = InferenceFramework.llamaCpp
    let supportedModalities: Set<FrameworkModality> = [.textToText]
    let tokenDelay: Duration

    func availability() -> FrameworkAvailability { .available(detail: "scripted") }
    func estimateMemoryUsage(for model: ModelInfo) -> Int64 { 1 << 20 }
    func loadLanguageModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any LLMService {
        ScriptedService(tokenDelay: tokenDelay)
    }
}

final class ScriptedService: LLMService {
    let contextLength = 2048
    let tokenDelay: Duration

    init(tokenDelay: Duration) { self.tokenDelay = tokenDelay }

    func tokenCount(_ text: String) throws -> Int { text.split(whereSeparator: \.isWhitespace).count + 1 }
    func hasSpecialToken(_ text: String) -> Bool { false }

    func applyChatTemplate(_ messages: [Message], addAssistantPrefix: Bool) -> String? {
        messages.map { "\($0.role.rawValue): \($0.content)\n" }.joined() + (addAssistantPrefix ? "assistant:" : "")
    }

    /// What the engine answers to `prompt`.
    static func reply(to prompt: String) -> [String] {
        let line = prompt.components(separatedBy: "\n").last { $0.hasPrefix("user: ") }.map { String($0.dropFirst(6)) } ?? prompt
        return line.split(separator: " ").enumerated().map { $0.offset == 0 ? String($0.element) : " \($0.element)" }
    }

    func startGeneration(_ request: LLMEngineRequest) -> LLMEngineRun {
        let words = Self.reply(to: request.prompt)
        let delay = tokenDelay
        let promptTokens = (try? tokenCount(request.prompt)) ?? 0
        return LLMEngineRun.start(name: "scripted") { emitter in
            emitter.emit(.promptProcessed(evaluated: promptTokens, cached: 0, seconds: 0.001))
            for (index, word) in words.enumerated() {
                if index == request.maxNewTokens { return emitter.emit(.finished(.length)) }
                Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
                if emitter.isCancelled { return emitter.emit(.finished(.cancelled)) }
                emitter.emitToken(Array(word.utf8))
            }
            emitter.emit(.finished(.endOfGeneration))
        }
    }
}

/// A runtime in a temporary folder with the scripted engine and one model, `scripted`, whose
/// file is a generated GGUF header (the runtime checks it before loading).
func scriptedRuntime(tokenDelay: Duration = .zero, name: String = #function) throws -> RunAnywhereRuntime {
    let folder = try TestEnvironment.temporaryDirectory(name)
    let file = folder.appendingPathComponent("scripted.gguf")
    try GGUFWriter.tinyLlama().write(to: file)
    let frameworks = FrameworkAdapterRegistry()
    frameworks.register(ScriptedAdapter(tokenDelay: tokenDelay))
    let runtime = RunAnywhereRuntime(
        configuration: RuntimeConfiguration(modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data")),
        frameworks: frameworks
    )
    try runtime.registerModel(id: "scripted", name: "Scripted", url: file, framework: .llamaCpp)
    return runtime
}
