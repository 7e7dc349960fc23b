import Foundation
import RunAnywhere

/// Converts a CTranslate2 Whisper model folder (`model.bin`, `vocabulary.txt`; float16 or
/// float32) into the ggml file whisper.cpp loads. The mel filter bank, which CTranslate2 does
/// not store, is copied from a reference ggml file of the same number of mel bins (whisper.cpp's
/// `for-tests-ggml-*.bin`, which scripts/setup installs).
package enum WhisperModelConverter {
    /// What a conversion produced.
    package struct Report: Sendable, Equatable {
        /// Tensors written.
        package let tensorCount: Int
        /// Tokens in the vocabulary.
        package let vocabularySize: Int
        /// Size of the ggml file in bytes.
        package let bytes: Int64
    }

    /// Converts `directory` into `output` (written atomically).
    @discardableResult
    package static func convert(ct2Directory directory: URL, output: URL, melFiltersFrom reference: URL) throws -> Report {
        let model = try CTranslate2Model(contentsOf: directory.appendingPathComponent("model.bin"))
        guard model.specName == "WhisperSpec" else {
            throw SDKError.fileManagement(
                .invalidModelFormat, "\(directory.lastPathComponent) holds a \(model.specName), not a Whisper model")
        }
        let writer = GGMLWriter()
        let (encoderPositions, decoderPositions) = ("encoder/position_encodings/encodings", "decoder/position_encodings/encodings")
        let melBins = try model.dimension("encoder/conv1/weight", 1)
        let state = try model.dimension(encoderPositions, 1)
        let hyperparameters = [
            try model.dimension("decoder/embeddings/weight", 0), try model.dimension(encoderPositions, 0), state,
            try model.integer("encoder/num_heads"),
            model.layerCount("encoder"), try model.dimension(decoderPositions, 0), try model.dimension(decoderPositions, 1),
            try model.integer("decoder/num_heads"), model.layerCount("decoder"), melBins, 1,
        ]
        writer.u32(0x6767_6D6C)
        hyperparameters.forEach { writer.i32($0) }
        writer.append(try melFilters(from: reference, bins: melBins))
        let vocabulary = try tokens(directory.appendingPathComponent("vocabulary.txt"))
        writer.i32(vocabulary.count)
        for token in vocabulary {
            writer.u32(token.count)
            writer.append(Data(token))
        }
        let tensors = try TensorMapping.tensors(of: model, state: state)
        for tensor in tensors { try writer.tensor(tensor) }
        do {
            try AtomicFile.write(writer.data, to: output)
        } catch {
            throw SDKError.writeFailed("Cannot write \(output.path)", error)
        }
        return Report(tensorCount: tensors.count, vocabularySize: vocabulary.count, bytes: Int64(writer.data.count))
    }

    /// The `n_mel`, `n_fft` and filter block of a reference ggml Whisper file.
    private static func melFilters(from reference: URL, bins: Int) throws -> Data {
        guard let data = FileManager.default.contents(atPath: reference.path), data.count > 56 else {
            throw SDKError.fileManagement(.fileNotFound, "Cannot read the mel filters from \(reference.path); run scripts/setup")
        }
        let ints = (0..<2).map { index in
            data[data.startIndex + 48 + index * 4..<data.startIndex + 52 + index * 4].enumerated().reduce(Int32(0)) {
                $0 | Int32($1.element) << (8 * $1.offset)
            }
        }
        guard Int(ints[0]) == bins else {
            throw SDKError.fileManagement(
                .invalidModelFormat, "\(reference.lastPathComponent) has \(ints[0]) mel bins; the model needs \(bins)")
        }
        guard (1...1024).contains(ints[1]) else {  // Whisper's is 201; a bound keeps the size below from overflowing
            throw SDKError.fileManagement(.invalidModelFormat, "\(reference.lastPathComponent) has \(ints[1]) FFT bins")
        }
        let length = 8 + Int(ints[0]) * Int(ints[1]) * 4
        guard data.count >= 48 + length else {
            throw SDKError.fileManagement(.invalidModelFormat, "\(reference.lastPathComponent) is truncated")
        }
        return data[data.startIndex + 48..<data.startIndex + 48 + length]
    }

    /// Token byte strings for ids 0 up to and including `<|endoftext|>`; the GPT-2 byte-level
    /// characters of `vocabulary.txt` are mapped back to bytes. whisper.cpp adds the special tokens.
    static func tokens(_ url: URL) throws -> [[UInt8]] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw SDKError.fileManagement(.fileNotFound, "Cannot read \(url.path)")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let end = lines.firstIndex(of: "<|endoftext|>") else {
            throw SDKError.fileManagement(.invalidModelFormat, "\(url.lastPathComponent) has no <|endoftext|> token")
        }
        let decode = byteDecoder()
        return try lines[...end].map { line in
            try line.unicodeScalars.map { scalar in
                guard let byte = decode[scalar.value] else {
                    throw SDKError.fileManagement(
                        .invalidModelFormat, "\(url.lastPathComponent) has a character outside GPT-2's byte alphabet in '\(line)'")
                }
                return byte
            }
        }
    }

    /// GPT-2's `bytes_to_unicode`, inverted: printable bytes stand for themselves, the others
    /// for code points from 256 on.
    private static func byteDecoder() -> [UInt32: UInt8] {
        let printable = Array(0x21...0x7E) + Array(0xA1...0xAC) + Array(0xAE...0xFF)
        var map: [UInt32: UInt8] = [:]
        for byte in printable { map[UInt32(byte)] = UInt8(byte) }
        var next: UInt32 = 256
        for byte in 0...255 where !printable.contains(byte) {
            map[next] = UInt8(byte)
            next += 1
        }
        return map
    }
}
