import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// 1 thread, a 1024-token context and flash attention off: small, repeatable runs. Reproducible
/// without flash attention, so greedy and seeded requests decode alone on the fixed chunk grid
/// (the batch-invariant configuration has suites of its own: Batching, BatchInvariance).
let testLoadOptions = ModelLoadOptions(contextLength: 1024, threads: 1, flashAttention: .disabled, reproducible: true)

/// The chunk length prompts are evaluated in with ``testLoadOptions``.
let testChunk = testLoadOptions.batchSize

/// A prompt of a few chunks (about 150 tokens), so that a repeat reuses whole chunks.
let longPrompt = """
    Cats sleep for twelve to sixteen hours a day. A group of cats is called a clowder. Cats have \
    five toes on their front paws and four on the back ones. They can rotate their ears a hundred \
    and eighty degrees, and their whiskers are about as wide as their bodies. A cat's nose print \
    is unique, like a human fingerprint. Cats were domesticated in the Near East about ten \
    thousand years ago, and the oldest known pet cat was found in a grave on Cyprus. Write a short \
    summary of these facts for a child.
    """

/// Greedy options for a few tokens.
func greedy(_ maxTokens: Int, raw: Bool = false, stop: [String] = []) -> LLMGenerationOptions {
    LLMGenerationOptions(maxTokens: maxTokens, temperature: 0, stopSequences: stop, threads: 1, applyChatTemplate: !raw)
}

/// A runtime over the installed models with llama.cpp registered and, unless told otherwise,
/// the default model loaded. Its app data goes to a temporary folder.
func makeRuntime(load: Bool = true, options: ModelLoadOptions = testLoadOptions, models: URL = TestEnvironment.installedModelsDirectory)
    async throws -> RunAnywhereRuntime
{
    let runtime = RunAnywhereRuntime(
        configuration: RuntimeConfiguration(
            modelsDirectory: models,
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-data-\(UUID())")
        ))
    runtime.frameworks.register(LlamaCppAdapter())
    if load { try await runtime.loadModel(RunAnywhere.defaultModelID, options: options) }
    return runtime
}

/// Consumes `streaming` in a task of its own and cancels that task once `count` pieces have
/// come (as a client that goes away does); the result the generation ends with.
func cancelConsumer(of streaming: LLMStreamingResult, after count: Int) async throws -> LLMGenerationResult {
    let (seen, seenContinuation) = AsyncStream.makeStream(of: Int.self)
    let consumer = Task {
        var pieces = 0
        for try await _ in streaming.stream {
            pieces += 1
            seenContinuation.yield(pieces)
        }
    }
    for await pieces in seen where pieces >= count { break }
    consumer.cancel()
    return try await streaming.result.value
}

/// One runtime with the default model loaded, shared by the tests that only generate.
enum SharedModel {
    static let runtime = Task { try await makeRuntime() }
}

/// Every test that runs the model, one at a time: two model runs at once on 2 cores would
/// distort each other.
@Suite(
    .inProcessLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct LlamaTests {}
