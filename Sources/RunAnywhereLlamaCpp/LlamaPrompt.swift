import CLlamaCpp
import Foundation

/// A prompt as the scheduler evaluates it: tokens, and for a vision-language model the images
/// among them. An image stands in ``tokens`` as placeholders (negative ids, which no vocabulary
/// has) derived from the image's bytes and place, so the prompt cache tells images apart like
/// tokens: the same image at the same place is the same prefix, any other is not.
struct LlamaPrompt {
    /// The prompt's tokens, image placeholders included.
    let tokens: [llama_token]
    /// The images, in order, each over its placeholders.
    let images: [LlamaImageChunk]

    init(tokens: [llama_token], images: [LlamaImageChunk] = []) {
        self.tokens = tokens
        self.images = images
    }

    /// How many positions the images take, all together.
    var imageTokenCount: Int { images.reduce(0) { $0 + $1.count } }

    /// The image whose placeholders start at `position`, if one does.
    func image(at position: Int) -> LlamaImageChunk? {
        images.first { $0.start == position }
    }

    /// Where the next image after `position` starts, or the end of the prompt.
    func textEnd(after position: Int) -> Int {
        images.first { $0.start > position }?.start ?? tokens.count
    }
}

/// One image's chunk of a tokenized multimodal prompt (libmtmd's `mtmd_input_chunk`: the image
/// preprocessed, ready to encode), freed with the prompt.
final class LlamaImageChunk: @unchecked Sendable {
    /// libmtmd's chunk, owned.
    let chunk: OpaquePointer
    /// Where its placeholders start in the prompt.
    let start: Int
    /// How many embeddings (positions) it becomes.
    let count: Int
    private let free: @convention(c) (OpaquePointer?) -> Void

    init(chunk: OpaquePointer, start: Int, count: Int, free: @escaping @convention(c) (OpaquePointer?) -> Void) {
        self.chunk = chunk
        self.start = start
        self.count = count
        self.free = free
    }

    deinit { free(chunk) }
}
