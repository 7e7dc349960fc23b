import Foundation

/// Checks a whisper.cpp model file (the ggml format: magic, hyperparameters, mel filters,
/// vocabulary, tensors) before whisper.cpp opens it.
///
/// whisper.cpp sizes its buffers from the header before it checks the tensors, so a damaged
/// header can make it allocate without bound (the out-of-memory killer then ends the process) or
/// abort. Every Whisper model (tiny to large-v3, English-only, multilingual, fine-tuned,
/// quantized) has 1500 audio and 448 text positions, 80 or 128 mel bins, a 51864–51866 token
/// vocabulary (of which the file lists the text tokens), and heads of 64 dimensions; anything
/// else, and any length that runs past the file, is refused with a message naming the problem.
package enum WhisperGGMLReader {
    /// What the header of a valid file says.
    package struct Hyperparameters: Sendable, Equatable {
        /// Tokens in the vocabulary.
        package let vocabularySize: Int
        /// Width of the encoder and decoder.
        package let state: Int
        /// Encoder and decoder layers.
        package let audioLayers: Int, textLayers: Int
        /// Mel bins of the input.
        package let melBins: Int
        /// Number of tensors.
        package let tensorCount: Int
    }

    /// Reads and checks the file at `url`.
    @discardableResult
    package static func validate(_ url: URL) throws -> Hyperparameters {
        try parse(try fileContents(of: url), name: url.lastPathComponent)
    }

    /// Checks ggml Whisper bytes; `name` appears in error messages.
    package static func parse(_ data: Data, name: String) throws -> Hyperparameters {
        func invalid(_ why: String) -> SDKError {
            SDKError.fileManagement(.invalidModelFormat, "\(name) is not a valid whisper.cpp model: \(why)")
        }
        var cursor = ByteCursor(data: data)
        do {
            guard try cursor.u32() == 0x6767_6D6C else { throw invalid("it does not start with the ggml magic bytes") }
            let header = try (0..<11).map { _ in try cursor.i32() }
            let (vocabulary, audioContext, audioState, audioHeads, audioLayers) = (header[0], header[1], header[2], header[3], header[4])
            let (textContext, textState, textHeads, textLayers, melBins, fileType) = (
                header[5], header[6], header[7], header[8], header[9], header[10]
            )
            guard (51_864...51_866).contains(vocabulary) else {
                throw invalid("a vocabulary of \(vocabulary) tokens (Whisper's has 51864 to 51866)")
            }
            guard audioContext == 1500, textContext == 448 else {
                throw invalid("\(audioContext) audio and \(textContext) text positions (Whisper has 1500 and 448)")
            }
            guard audioState == textState, (64...4096).contains(audioState), audioState % 64 == 0 else {
                throw invalid("encoder width \(audioState) and decoder width \(textState) (equal multiples of 64 are expected)")
            }
            guard audioHeads * 64 == audioState, textHeads * 64 == textState else {
                throw invalid(
                    "\(audioHeads) encoder and \(textHeads) decoder heads for a width of \(audioState) (heads of 64 are expected)")
            }
            guard (1...64).contains(audioLayers), (1...64).contains(textLayers) else {
                throw invalid("\(audioLayers) encoder and \(textLayers) decoder layers")
            }
            guard melBins == 80 || melBins == 128 else { throw invalid("\(melBins) mel bins (80 or 128 are expected)") }
            guard [0, 1, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14].contains(fileType % 1000), fileType >= 0 else {
                throw invalid("file type \(fileType) is not one whisper.cpp reads")
            }

            let filterBins = try cursor.i32()
            let fftBins = try cursor.i32()
            guard filterBins == melBins, fftBins == 201 else {
                throw invalid("a mel filter bank of \(filterBins)×\(fftBins) (\(melBins)×201 is expected)")
            }
            try cursor.skip(filterBins * fftBins * 4)

            let tokens = try cursor.i32()
            // The file lists the text tokens; whisper.cpp adds the special ones up to the vocabulary's size.
            guard (0...vocabulary).contains(tokens) else { throw invalid("\(tokens) vocabulary entries for a vocabulary of \(vocabulary)") }
            for index in 0..<tokens {
                let length = Int(try cursor.u32())
                guard length <= 1024 else { throw invalid("vocabulary entry \(index) is \(length) bytes long") }
                try cursor.skip(length)
            }

            var names: Set<String> = []
            while cursor.remaining > 0 {
                let dimensions = try cursor.i32()
                let nameLength = try cursor.i32()
                let type = try cursor.u32()
                guard (1...4).contains(dimensions), (1...256).contains(nameLength) else {
                    throw invalid("tensor \(names.count + 1) has \(dimensions) dimensions and a \(nameLength)-byte name")
                }
                let shape = try (0..<dimensions).map { _ in UInt64(bitPattern: Int64(try cursor.i32())) }
                let tensor = String(decoding: try cursor.bytes(nameLength), as: UTF8.self)
                guard shape.allSatisfy({ (1...(1 << 24)).contains($0) }) else { throw invalid("tensor \(tensor) has the shape \(shape)") }
                guard names.insert(tensor).inserted else { throw invalid("the tensor \(tensor) appears twice") }
                // Up to four sides of 2^24 each: multiplied with overflow checks.
                let elements = shape.reduce(UInt64(1)) { $0.saturatingMultiply($1) }
                guard elements < .max, let bytes = GGMLType.byteCount(type: type, elements: elements, rowLength: shape[0]),
                    bytes <= UInt64(cursor.remaining)
                else {
                    throw invalid("tensor \(tensor) (type \(type), shape \(shape)) does not fit in the file")
                }
                try cursor.skip(Int(bytes))
            }
            // 11 outside the layers, 15 per encoder layer, 24 per decoder layer (cross-attention).
            let expected = 11 + 15 * audioLayers + 24 * textLayers
            guard names.count == expected else {
                throw invalid("it holds \(names.count) tensors, not the \(expected) of its layers (truncated?)")
            }
            return Hyperparameters(
                vocabularySize: vocabulary, state: audioState, audioLayers: audioLayers, textLayers: textLayers, melBins: melBins,
                tensorCount: names.count
            )
        } catch is ByteCursor.Truncated {
            throw invalid("it ends early (truncated or damaged)")
        }
    }
}
