import Foundation
import RunAnywhere

/// A language model, one decode step (one streamed piece of text) per frame: answers of
/// ``answerTokens`` tokens to a fixed prompt, greedy and seeded, one after another. Reading a
/// prompt is not a decode step, so the call that starts the next answer is not a frame.
final class DecodeStepWorkload: InstalledModelWorkload {
    let model: InstalledModel
    /// Tokens per answer.
    static let answerTokens = 64
    private static let prompt = "Count from one to one hundred in words, separated by commas."
    private var pieces: AsyncThrowingStream<String, any Error>.AsyncIterator?

    init(_ model: InstalledModel) {
        self.model = model
    }

    func load(frameCount: Int) async throws {
        try await model.runtime.loadModel(modelID, options: ModelLoadOptions(threads: model.threads))
    }

    func process(frame index: Int) async throws -> Bool {
        if var iterator = pieces, try await iterator.next() != nil {
            pieces = iterator
            return true
        }
        // The answer ended (or none was started): start the next, through its first piece.
        let options = LLMGenerationOptions(
            maxTokens: Self.answerTokens, temperature: 0, seed: 42, threads: model.threads, reusePromptCache: false)
        var iterator = try await model.runtime.generateStream(Self.prompt, options: options).stream.makeAsyncIterator()
        guard try await iterator.next() != nil else {
            throw SDKError(.generationFailed, "\(modelID) answered the benchmark prompt with nothing")
        }
        pieces = iterator
        return false
    }

    func unload() async {
        pieces = nil
        await model.runtime.unloadModel()
    }
}
