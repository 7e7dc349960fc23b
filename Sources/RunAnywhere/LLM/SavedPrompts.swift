import Foundation

/// Where a language model keeps the state of its long prompts (their KV memory) on disk, so that
/// after a restart a request whose prompt starts the same way (a long system prompt, a
/// collection's preamble, a conversation resumed) reads only what is new.
///
/// A sequence's state is saved when a generation on it ends, for a prompt and answer of at least
/// ``minTokens`` tokens, in a folder of ``directory`` for the model file and the load options
/// that shape the state; a later request restores the saved state that shares the longest
/// prefix with its prompt. Each file is checked before use (its model and options, its tokens and
/// a checksum of its bytes): a damaged or foreign file is ignored, deleted and logged. Beyond
/// ``maxBytes`` the least recently used files go. Engines that cannot save state (all but
/// llama.cpp) ignore it, as do requests that decode alone to keep a reproducibility promise.
public struct SavedPrompts: Codable, Sendable, Equatable {
    /// The folder the states go in (one subfolder per model file and load options).
    public var directory: URL
    /// The most bytes the saved states of one model and options may take.
    public var maxBytes: Int64
    /// The shortest sequence (prompt and answer, in tokens) worth saving.
    public var minTokens: Int

    /// Saved prompts in `directory`, at most `maxBytes` (1 GiB), of at least `minTokens` (256).
    public init(directory: URL, maxBytes: Int64 = 1 << 30, minTokens: Int = 256) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.minTokens = minTokens
    }
}
