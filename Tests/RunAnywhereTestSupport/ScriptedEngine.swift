import Foundation
import Logging
import RunAnywhere
import Synchronization

/// A language engine whose answers are known in advance, so that tests of what sits above an
/// engine (the model cache, the server's routes) can check every byte: it answers with the words of the last user message (the text after the
/// last "user: " line of its chat template, or the whole prompt without one), one token per word,
/// then stops; `max_tokens` cuts it short. It sleeps `tokenDelay` before each token, so that tests
/// can catch a stream in flight, and stops within one token when cancelled. With `stallAfter`, it
/// writes that many tokens and then waits until it is cancelled (two minutes at most), so that a test which cancels an
/// answer in flight does not race the answer's end on a busy machine.
package struct ScriptedAdapter: FrameworkAdapter {
    package let framework = InferenceFramework.llamaCpp
    package let supportedModalities: Set<FrameworkModality> = [.textToText]
    /// How long each token takes.
    package let tokenDelay: Duration
    /// Memory each model is said to take.
    package let memory: Int64
    /// How long a model takes to free its memory when unloaded.
    package let unloadDelay: Duration
    /// How many tokens each answer writes before it waits to be cancelled; nil: it never waits.
    package let stallAfter: Int?
    /// Where loads, finished unloads and the LoRA adapters of generations that apply some are
    /// written down, in order ("load ID", "unloaded ID", "adapters ID: FILE,FILE").
    package let log: ScriptedLog

    /// An adapter whose models take `memory` bytes, `tokenDelay` per token and `unloadDelay` to
    /// unload, and whose answers stall after `stallAfter` tokens until cancelled.
    package init(
        tokenDelay: Duration = .zero, stallAfter: Int? = nil, memory: Int64 = 1 << 20, unloadDelay: Duration = .zero,
        log: ScriptedLog = ScriptedLog()
    ) {
        self.tokenDelay = tokenDelay
        self.stallAfter = stallAfter
        self.memory = memory
        self.unloadDelay = unloadDelay
        self.log = log
    }

    package func availability() -> FrameworkAvailability { .available(detail: "scripted") }
    package func estimateMemoryUsage(for model: ModelInfo) -> Int64 { memory }
    package func loadLanguageModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any LLMService {
        log.append("load \(model.id)")
        return ScriptedService(
            tokenDelay: tokenDelay, stallAfter: stallAfter, unloadDelay: unloadDelay,
            onUnloaded: { [log] in log.append("unloaded \(model.id)") },
            onAdapters: { [log] adapters in
                log.append(
                    "adapters \(model.id): " + adapters.map { URL(fileURLWithPath: $0.path).lastPathComponent }.joined(separator: ","))
            })
    }
}

/// What the scripted engine did, in order.
package final class ScriptedLog: Sendable {
    private let entries = Mutex<[String]>([])

    /// An empty log.
    package init() {}

    /// Writes `entry` down.
    package func append(_ entry: String) { entries.withLock { $0.append(entry) } }

    /// Everything written down so far.
    package var all: [String] { entries.withLock { $0 } }
}

/// The scripted engine's model.
package final class ScriptedService: LLMService {
    package let contextLength = 2048
    let tokenDelay: Duration
    let stallAfter: Int?
    let unloadDelay: Duration
    let onUnloaded: @Sendable () -> Void
    let onAdapters: @Sendable ([LoRAAdapter]) -> Void

    init(
        tokenDelay: Duration, stallAfter: Int? = nil, unloadDelay: Duration = .zero, onUnloaded: @escaping @Sendable () -> Void = {},
        onAdapters: @escaping @Sendable ([LoRAAdapter]) -> Void = { _ in }
    ) {
        self.tokenDelay = tokenDelay
        self.stallAfter = stallAfter
        self.unloadDelay = unloadDelay
        self.onUnloaded = onUnloaded
        self.onAdapters = onAdapters
    }

    /// Takes `unloadDelay` to free the model, as an engine thread finishing would.
    package func unload() async {
        try? await Task.sleep(for: unloadDelay)
        onUnloaded()
    }

    package func tokenCount(_ text: String, plainText: [Range<Int>]) throws -> Int { text.split(whereSeparator: \.isWhitespace).count + 1 }
    package func hasSpecialToken(_ text: String) -> Bool { false }

    package func applyChatTemplate(_ messages: [Message], addAssistantPrefix: Bool) -> String? {
        messages.map { "\($0.role.rawValue): \($0.content)\n" }.joined() + (addAssistantPrefix ? "assistant:" : "")
    }

    /// What the engine answers to `prompt`.
    package static func reply(to prompt: String) -> [String] {
        let line = prompt.components(separatedBy: "\n").last { $0.hasPrefix("user: ") }.map { String($0.dropFirst(6)) } ?? prompt
        return line.split(separator: " ").enumerated().map { $0.offset == 0 ? String($0.element) : " \($0.element)" }
    }

    /// The scripted engine has no queue of its own: it starts every generation when asked.
    package let queuedGenerations = 0

    package func startGeneration(_ request: LLMEngineRequest) throws -> LLMEngineRun {
        if !request.loraAdapters.isEmpty { onAdapters(request.loraAdapters) }
        let words = Self.reply(to: request.prompt)
        let delay = tokenDelay
        let stallAfter = stallAfter
        let promptTokens = (try? tokenCount(request.prompt, plainText: request.plainText)) ?? 0
        return LLMEngineRun.start { emitter in
            emitter.emit(.promptProcessed(evaluated: promptTokens, cached: 0, seconds: 0.001))
            for (index, word) in words.enumerated() {
                if index == request.maxNewTokens { return emitter.emit(.finished(.length)) }
                // A stall that is never cancelled ends after two minutes, so that a test whose
                // cancellation does not come fails instead of waiting for it for good.
                let stalled = ContinuousClock.now
                while index == stallAfter && !emitter.isCancelled && ContinuousClock.now - stalled < .seconds(120) {
                    Thread.sleep(forTimeInterval: 0.005)
                }
                Thread.sleep(forTimeInterval: delay.inSeconds)
                if emitter.isCancelled { return emitter.emit(.finished(.cancelled)) }
                emitter.emitToken(Array(word.utf8))
            }
            emitter.emit(.finished(.endOfGeneration))
        }
    }
}

/// A runtime in a temporary folder with the scripted engine and the models `ids` (by default
/// one, `scripted`), whose files are generated GGUF headers (the runtime checks them before
/// loading); `budget` is its model memory budget.
package func scriptedRuntime(
    ids: [String] = ["scripted"], adapter: ScriptedAdapter = ScriptedAdapter(), budget: Int64 = 0, probe: ModelProbe? = nil,
    name: String = #function
) throws -> RunAnywhereRuntime {
    let folder = try TestEnvironment.temporaryDirectory(name)
    let frameworks = FrameworkAdapterRegistry()
    frameworks.register(adapter)
    var configuration = RuntimeConfiguration(
        modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data"))
    configuration.modelMemoryBudget = budget
    configuration.modelProbe = probe
    let runtime = RunAnywhereRuntime(configuration: configuration, frameworks: frameworks)
    for id in ids {
        let file = folder.appendingPathComponent("\(id).gguf")
        try GGUFWriter.tinyLlama().write(to: file)
        try runtime.registerModel(id: id, name: id, url: file, framework: .llamaCpp)
    }
    return runtime
}
