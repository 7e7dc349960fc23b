import CLlamaCpp
import Foundation
import RunAnywhere

/// A vision-language model's projector (`mmproj`) loaded by libmtmd against the language
/// model: it turns a prompt with images into tokens and image chunks, and an image chunk into
/// embeddings in a sequence's memory. Freed by its ``LlamaContext`` before the model.
///
/// `@unchecked Sendable`: tokenizing (on the submitting thread) only reads the projector's
/// settings and the vocabulary; encoding, which writes the projector's output buffer, happens
/// on the model's scheduler thread only.
final class LlamaVision: @unchecked Sendable {
    let library: MtmdLibrary
    let context: OpaquePointer
    private var api: ra_mtmd_api { library.api }

    /// Loads `projector` for `model`; throws when the file is not a projector libmtmd reads,
    /// does not match the model, or needs positions this engine does not give (M-RoPE).
    init(library: MtmdLibrary, projector: String, model: OpaquePointer, threads: Int, useGPU: Bool, explain: (String) -> String) throws {
        self.library = library
        let api = library.api
        var params = api.mtmd_context_params_default()
        params.use_gpu = useGPU
        params.print_timings = false
        params.n_threads = Int32(threads)
        let context = LLMEngineRequest.imageMarker.withCString { marker in
            params.media_marker = marker
            return api.mtmd_init_from_file(projector, model, params)
        }
        guard let context else {
            throw SDKError.llm(.modelLoadFailed, explain("llama.cpp could not load the vision projector \(projector)"))
        }
        guard api.mtmd_support_vision(context) else {
            api.mtmd_free(context)
            throw SDKError.llm(.modelIncompatible, "\(projector) is not a vision projector (it reads no images)")
        }
        guard !api.mtmd_decode_use_mrope(context) else {
            api.mtmd_free(context)
            throw SDKError.llm(
                .modelIncompatible, "\(projector) needs M-RoPE positions (Qwen2-VL and later), which RunAnywhere does not support yet")
        }
        self.context = context
    }

    /// Frees the projector; called by the context that owns it, before the model goes.
    func free() { api.mtmd_free(context) }

    /// `text` with its image markers replaced by `images`, tokenized: text tokens as they are,
    /// each image chunk as placeholders; `plainText` ranges are read as text, special-token text
    /// and markers there included (``LlamaContext/tokenize(prompt:plainText:)``). Throws for
    /// images that do not decode, a marker count that differs from the image count, or a
    /// prompt that ends with an image.
    func tokenize(_ text: String, plainText: [Range<Int>] = [], images: [LoadedImage], llama: LlamaContext) throws -> LlamaPrompt {
        let bitmaps = try images.enumerated().map { index, image in try bitmap(image, number: index + 1) }
        defer { bitmaps.forEach { api.mtmd_bitmap_free($0) } }
        let pieces = try llama.pieces(of: text, plainText: plainText, marker: LLMEngineRequest.imageMarker) ?? [(text, false)]
        var prompt = Chunks()
        var shown = 0
        for (index, piece) in pieces.enumerated() {
            if piece.plain {
                prompt.tokens += try llama.tokenize(piece.text, addSpecial: false, parseSpecial: false)
                continue
            }
            let markers = min(piece.text.components(separatedBy: LLMEngineRequest.imageMarker).count - 1, bitmaps.count - shown)
            try read(piece.text, bitmaps: Array(bitmaps[shown..<shown + markers]), addSpecial: index == 0, into: &prompt)
            shown += markers
        }
        guard shown == bitmaps.count else { throw Self.markerMismatch(images.count) }
        guard let last = prompt.images.last, last.start + last.count == prompt.tokens.count else {
            return LlamaPrompt(tokens: prompt.tokens, images: prompt.images)
        }
        throw SDKError.llm(.invalidInput, "The prompt ends with an image; put the question after it")
    }

    /// A prompt as its pieces are read: tokens with image placeholders, the images, and how
    /// often each image has been seen (its placeholders differ each time).
    private struct Chunks {
        var tokens: [llama_token] = []
        var images: [LlamaImageChunk] = []
        var seen: [String: Int] = [:]
    }

    private static func markerMismatch(_ images: Int) -> SDKError {
        SDKError.llm(.invalidInput, "The prompt has a different number of image markers than images (\(images))")
    }

    /// Tokenizes `text`, whose markers stand for `bitmaps`, with libmtmd after `prompt`.
    private func read(_ text: String, bitmaps: [OpaquePointer], addSpecial: Bool, into prompt: inout Chunks) throws {
        guard let chunks = api.mtmd_input_chunks_init() else {
            throw SDKError.llm(.generationFailed, "libmtmd could not allocate the prompt")
        }
        defer { api.mtmd_input_chunks_free(chunks) }
        let status = text.withCString { cText in
            var input = mtmd_input_text(text: cText, text_len: text.utf8.count, add_special: addSpecial, parse_special: true)
            return bitmaps.map { Optional($0) }.withUnsafeBufferPointer {
                api.mtmd_tokenize(context, chunks, &input, $0.baseAddress, $0.count)
            }
        }
        switch status {
        case 0: break
        case 1: throw Self.markerMismatch(bitmaps.count)
        default: throw SDKError.llm(.invalidInput, "The vision projector could not prepare the image (libmtmd_tokenize returned \(status))")
        }
        for index in 0..<api.mtmd_input_chunks_size(chunks) {
            guard let chunk = api.mtmd_input_chunks_get(chunks, index) else { continue }
            switch api.mtmd_input_chunk_get_type(chunk) {
            case MTMD_INPUT_CHUNK_TYPE_TEXT:
                var count = 0
                if let pointer = api.mtmd_input_chunk_get_tokens_text(chunk, &count) {
                    prompt.tokens += UnsafeBufferPointer(start: pointer, count: count)
                }
            case MTMD_INPUT_CHUNK_TYPE_IMAGE:
                let count = api.mtmd_input_chunk_get_n_tokens(chunk)
                guard Int(api.mtmd_input_chunk_get_n_pos(chunk)) == count, let copy = api.mtmd_input_chunk_copy(chunk) else {
                    throw SDKError.llm(
                        .modelIncompatible,
                        "The vision projector's image positions are not one per embedding, which RunAnywhere does not support yet")
                }
                let id = api.mtmd_input_chunk_get_id(chunk).map { String(cString: $0) } ?? "image"
                let occurrence = prompt.seen[id, default: 0]
                prompt.seen[id] = occurrence + 1
                prompt.images.append(
                    LlamaImageChunk(chunk: copy, start: prompt.tokens.count, count: count, free: api.mtmd_input_chunk_free))
                prompt.tokens += (0..<count).map { Self.placeholder(id: id, occurrence: occurrence, index: $0) }
            default:
                throw SDKError.llm(.invalidInput, "The prompt holds audio, which this model does not read")
            }
        }
    }

    /// Encodes `image` and writes its embeddings at `position` of sequence `sequence` in
    /// `llama`'s memory, `batch` at a time. Returns llama.cpp's status (0 on success) and the
    /// seconds the encoding took.
    func evaluate(_ image: LlamaImageChunk, in llama: LlamaContext, position: Int, sequence: Int, batch: Int) -> (
        status: Int32, encodeSeconds: Double
    ) {
        let started = ContinuousClock.now
        let encoded = api.mtmd_encode_chunk(context, image.chunk)
        guard encoded == 0, let embeddings = api.mtmd_get_output_embd(context) else { return (encoded == 0 ? -1 : encoded, 0) }
        let encodeSeconds = (ContinuousClock.now - started).inSeconds
        var next: llama_pos = 0
        let status = api.mtmd_helper_decode_image_chunk(
            context, llama.context, image.chunk, embeddings, llama_pos(position), llama_seq_id(sequence), Int32(batch), &next, nil, nil
        )
        return (status, encodeSeconds)
    }

    /// A bitmap of `image`: decoded from PNG, JPEG, GIF or BMP bytes (libmtmd's stb_image), or
    /// raw RGB pixels as they are.
    private func bitmap(_ image: LoadedImage, number: Int) throws -> OpaquePointer {
        let bitmap: OpaquePointer? = image.bytes.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self).baseAddress
            if image.format == nil {
                // Encoded images get their SHA-256 as id from libmtmd; raw pixels get a hash here,
                // so that their placeholders differ from any other image's.
                var hasher = Hasher()
                hasher.combine(bytes: raw)
                let bitmap = api.mtmd_bitmap_init(UInt32(image.width), UInt32(image.height), bytes)
                api.mtmd_bitmap_set_id(bitmap, "rgb-\(image.width)x\(image.height)-\(hasher.finalize())")
                return bitmap
            }
            return api.mtmd_helper_bitmap_init_from_buf(context, bytes, raw.count, false, api.mtmd_helper_init_opt_default()).bitmap
        }
        guard let bitmap else {
            let what = image.format.map { "\($0.rawValue.uppercased()) image" } ?? "image"
            throw SDKError.llm(
                .invalidInput,
                "Image \(number) (\(what), \(image.width)×\(image.height)) could not be decoded: the file is damaged or uses a variant the decoder does not read"
            )
        }
        return bitmap
    }

    /// A placeholder token for embedding `index` of the `occurrence`-th chunk with libmtmd's
    /// chunk id `id` (the image's hash): negative, so no vocabulary has it.
    private static func placeholder(id: String, occurrence: Int, index: Int) -> llama_token {
        var hasher = Hasher()
        hasher.combine(id)
        hasher.combine(occurrence)
        hasher.combine(index)
        return -1 - llama_token(truncatingIfNeeded: hasher.finalize() & 0x3FFF_FFFF)
    }
}
