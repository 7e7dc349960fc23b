import Foundation
import Synchronization

/// Reads the header, metadata and tensor table of a GGUF file in pure Swift, checking every
/// length against the file so that a truncated or foreign file gives a clear error, and the
/// things llama.cpp asserts on instead of reporting (a vocabulary with a repeated token) or reads
/// wrongly (repeated keys or tensor names, tensors not aligned).
package enum GGUFReader {
    /// Longest array kept in `GGUFMetadata.values`; longer ones keep a prefix and their count.
    static let keptArrayPrefix = 16

    /// The files read last, by identity, so that the checks before a load (the file whole, the
    /// memory it needs, the layers a GPU takes) and the load itself parse its header once.
    private static let recent = Mutex<[FileIdentity: GGUFMetadata]>([:])

    /// Reads the metadata of the GGUF file at `url` (parsed again only when the file changed
    /// since it was last read whole).
    package static func read(_ url: URL) throws -> GGUFMetadata {
        let identity = FileIdentity(path: url.path)
        if let identity, let known = recent.withLock({ $0[identity] }) { return known }
        let metadata = try parse(contentsOf: url)
        if let identity {
            recent.withLock { recent in
                if recent.count >= 8 { recent.removeAll() }
                recent[identity] = metadata
            }
        }
        return metadata
    }

    private static func parse(contentsOf url: URL) throws -> GGUFMetadata {
        try parse(try fileContents(of: url), name: url.lastPathComponent)
    }

    /// Parses GGUF bytes; `name` appears in error messages.
    package static func parse(_ data: Data, name: String) throws -> GGUFMetadata {
        func invalid(_ why: String) -> SDKError {
            SDKError.fileManagement(.invalidModelFormat, "\(name) is not a valid GGUF model: \(why)")
        }
        if data.isEmpty { throw invalid("the file is empty") }
        var cursor = ByteCursor(data: data)
        do {
            guard try cursor.bytes(4) == Array("GGUF".utf8) else {
                throw invalid("it does not start with the GGUF magic bytes")
            }
            let version = try cursor.u32()
            guard version == 2 || version == 3 else {
                throw invalid("GGUF version \(version) is not supported (2 and 3 are)")
            }
            let tensorCount = try cursor.u64()
            let kvCount = try cursor.u64()
            // Each tensor entry and key/value pair takes at least 8+4 bytes; more than that cannot fit.
            guard tensorCount <= UInt64(data.count) / 12, kvCount <= UInt64(data.count) / 12 else {
                throw ByteCursor.Truncated()
            }
            var values: [String: GGUFValue] = [:]
            var fillInTheMiddleFound: Set<Int> = []
            var vocabulary: [TokenSpan] = []
            for _ in 0..<kvCount {
                let key = try cursor.string()
                let type = try cursor.u32()
                guard values[key] == nil else { throw invalid("the metadata key \(key) appears twice") }
                if key == vocabularyKey, type == 9 {
                    (values[key], fillInTheMiddleFound, vocabulary) = try readVocabulary(cursor: &cursor, invalid: invalid)
                } else {
                    values[key] = try readValue(type: type, cursor: &cursor, invalid: invalid)
                }
            }
            let alignmentValue = values["general.alignment"]?.intValue ?? 32
            guard let alignment = UInt64(exactly: alignmentValue), alignment.nonzeroBitCount == 1 else {
                throw invalid("alignment \(alignmentValue) is not a power of two")
            }
            var parameters: Int64 = 0
            var dataEnd: UInt64 = 0
            var diffusion = false
            var typeParameters: [UInt32: Int64] = [:]
            var names = Set<String>()
            var table: [GGUFTensorInfo] = []
            for _ in 0..<tensorCount {
                let tensorName = try cursor.string()
                guard names.insert(tensorName).inserted else { throw invalid("the tensor \(tensorName) appears twice") }
                diffusion = diffusion || tensorName.hasPrefix("model.diffusion_model.")
                let dimensionCount = try cursor.u32()
                guard dimensionCount >= 1, dimensionCount <= 4 else {
                    throw invalid("tensor \(tensorName) has \(dimensionCount) dimensions")
                }
                var elements: UInt64 = 1
                var rowLength: UInt64 = 0
                var shape: [UInt64] = []
                for index in 0..<dimensionCount {
                    let size = try cursor.u64()
                    shape.append(size)
                    // An empty dimension makes engines divide by zero (stable-diffusion.cpp: SIGFPE).
                    guard size > 0 else { throw invalid("tensor \(tensorName) has an empty dimension") }
                    if index == 0 { rowLength = size }
                    let (product, overflow) = elements.multipliedReportingOverflow(by: size)
                    guard !overflow else { throw invalid("tensor \(tensorName) is impossibly large") }
                    elements = product
                }
                let type = try cursor.u32()
                let offset = try cursor.u64()
                guard offset % alignment == 0 else { throw invalid("tensor \(tensorName) is not aligned to \(alignment) bytes") }
                guard let bytes = GGMLType.byteCount(type: type, elements: elements, rowLength: rowLength) else {
                    throw invalid("tensor \(tensorName) has unknown type \(type) or a malformed shape")
                }
                parameters = parameters.saturatingAdd(Int64(clamping: elements))
                typeParameters[type] = (typeParameters[type] ?? 0).saturatingAdd(Int64(clamping: elements))
                let (end, past) = offset.addingReportingOverflow(bytes)
                guard !past else { throw invalid("tensor \(tensorName) ends beyond any file") }
                dataEnd = max(dataEnd, end)
                table.append(GGUFTensorInfo(name: tensorName, shape: shape, type: type, offset: offset))
            }
            // The header is shorter than the file and the alignment at most 2^63: this cannot overflow.
            let dataStart = (UInt64(cursor.offset) + alignment - 1) / alignment * alignment
            let (expected, past) = dataStart.addingReportingOverflow(dataEnd)
            guard !past, UInt64(data.count) >= expected else {
                throw invalid("the file is truncated (\(data.count) bytes, its tensors need \(expected))")
            }
            var metadata = GGUFMetadata(
                version: Int(version), tensorCount: Int(tensorCount), values: values,
                parameterCount: parameters, expectedFileSize: expected, fileSize: UInt64(data.count)
            )
            metadata.hasDiffusionModelTensors = diffusion
            metadata.fillsInTheMiddle = fillInTheMiddleRoles.indices.allSatisfy { role in
                fillInTheMiddleFound.contains(role) || fillInTheMiddleRoles[role].keys.contains { values[$0] != nil }
            }
            metadata.tensors = table
            // The ids may come before the vocabulary or after it: looked up once both are read.
            func tokenText(_ key: String) -> String? {
                guard let id = values[key]?.intValue, vocabulary.indices.contains(id) else { return nil }
                return String(decoding: text(of: id, in: vocabulary, cursor: cursor), as: UTF8.self)
            }
            metadata.bosToken = tokenText("tokenizer.ggml.bos_token_id")
            metadata.eosToken = tokenText("tokenizer.ggml.eos_token_id")
            metadata.dataOffset = dataStart
            metadata.tensorTypes = Dictionary(typeParameters.map { (GGMLType.name(of: $0.key), $0.value) }, uniquingKeysWith: +)
            return metadata
        } catch is ByteCursor.Truncated {
            throw invalid("the file is truncated (\(data.count) bytes) inside its header")
        }
    }

    /// The key of the vocabulary's token strings.
    static let vocabularyKey = "tokenizer.ggml.tokens"

    /// Fill-in-the-middle's prefix, suffix and middle tokens: the metadata keys that name each
    /// one's token, and the texts llama.cpp looks for in the vocabulary when no key does
    /// (`llama-vocab.cpp`: Qwen, StarCoder, Granite, DeepSeek, CodeLlama, GLM-4.5, Falcon-H1).
    static let fillInTheMiddleRoles: [(keys: [String], texts: [String])] = [
        (
            ["tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.prefix_token_id"],
            ["<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"]
        ),
        (
            ["tokenizer.ggml.fim_suf_token_id", "tokenizer.ggml.suffix_token_id"],
            ["<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"]
        ),
        (
            ["tokenizer.ggml.fim_mid_token_id", "tokenizer.ggml.middle_token_id"],
            ["<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"]
        ),
    ]

    /// The fill-in-the-middle texts by the hash of their bytes, with their role's index.
    private static let fillInTheMiddleTexts: [Int: [(role: Int, text: [UInt8])]] = {
        var texts: [Int: [(role: Int, text: [UInt8])]] = [:]
        for (role, entry) in fillInTheMiddleRoles.enumerated() {
            for text in entry.texts {
                let bytes = Array(text.utf8)
                texts[bytes.withUnsafeBytes(ByteCursor.hash), default: []].append((role, bytes))
            }
        }
        return texts
    }()

    /// The vocabulary (an array of strings), checked whole: llama.cpp aborts the process when two
    /// tokens are the same string as it reads them. Tokens are told apart by a hash of their
    /// bytes, compared in full only when two hashes meet, so no token is copied. Also which
    /// fill-in-the-middle roles (indices of ``fillInTheMiddleRoles``) have a token of their text.
    private static func readVocabulary(cursor: inout ByteCursor, invalid: (String) -> SDKError) throws
        -> (GGUFValue, fillInTheMiddle: Set<Int>, spans: [TokenSpan])
    {
        guard try cursor.u32() == 8 else { throw invalid("\(vocabularyKey) is not an array of strings") }
        let count = try cursor.u64()
        guard count <= UInt64(cursor.remaining) / 8 else { throw ByteCursor.Truncated() }
        // As llama.cpp keys its vocabulary (it reads C strings): see text(of:in:cursor:).
        var spans: [TokenSpan] = []
        // Reserved for a real vocabulary's size at most (the largest have about 260 000 tokens),
        // whatever count a damaged header claims.
        spans.reserveCapacity(min(Int(count), 1 << 20))
        var first: [Int: Int] = Dictionary(minimumCapacity: min(Int(count), 1 << 20))
        var others: [Int: [Int]] = [:]
        var fillInTheMiddle: Set<Int> = []
        func text(_ index: Int) -> [UInt8] { Self.text(of: index, in: spans, cursor: cursor) }
        for index in 0..<Int(count) {
            let length = try cursor.u64()
            guard length <= UInt64(cursor.remaining) else { throw ByteCursor.Truncated() }
            let start = cursor.offset
            try cursor.skip(Int(length))
            let kept = cursor.prefixLength(at: start, count: Int(length), before: 0)
            spans.append((start, kept == 0 ? -1 : kept))
            let hash = kept == 0 ? Array("[EMPTY_\(index)]".utf8).withUnsafeBytes(ByteCursor.hash) : cursor.hash(at: start, count: kept)
            for marker in fillInTheMiddleTexts[hash] ?? [] where marker.text == text(index) { fillInTheMiddle.insert(marker.role) }
            if let earlier = first[hash] {
                let mine = text(index)
                for other in [earlier] + (others[hash] ?? []) where text(other) == mine {
                    throw invalid(
                        "its vocabulary has the token \(String(decoding: mine, as: UTF8.self).debugDescription) twice (token \(index))")
                }
                others[hash, default: []].append(index)
            } else {
                first[hash] = index
            }
        }
        let prefix = (0..<min(Int(count), keptArrayPrefix)).map { GGUFValue.string(String(decoding: text($0), as: UTF8.self)) }
        return (.array(count: Int(count), prefix: prefix), fillInTheMiddle, spans)
    }

    /// Where a token's text lies in the file: `length` -1 for an empty token.
    private typealias TokenSpan = (start: Int, length: Int)

    /// Token `index`'s text as llama.cpp keys it: the text up to a NUL byte, an empty token as
    /// "[EMPTY_<index>]".
    private static func text(of index: Int, in spans: [TokenSpan], cursor: ByteCursor) -> [UInt8] {
        let span = spans[index]
        return span.length < 0 ? Array("[EMPTY_\(index)]".utf8) : cursor.bytes(at: span.start, count: span.length)
    }

    /// The byte size of each fixed-size metadata value type.
    private static let fixedSizes: [UInt32: UInt64] = [0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8]

    private static func readValue(
        type: UInt32, cursor: inout ByteCursor, invalid: (String) -> SDKError
    ) throws -> GGUFValue {
        switch type {
        case 0: return .unsigned(UInt64(try cursor.u8()))
        case 1: return .signed(Int64(Int8(bitPattern: try cursor.u8())))
        case 2: return .unsigned(UInt64(try cursor.u16()))
        case 3: return .signed(Int64(Int16(bitPattern: try cursor.u16())))
        case 4: return .unsigned(UInt64(try cursor.u32()))
        case 5: return .signed(Int64(Int32(bitPattern: try cursor.u32())))
        case 6: return .float(Double(Float(bitPattern: try cursor.u32())))
        case 7: return .bool(try cursor.u8() != 0)
        case 8: return .string(try cursor.string())
        case 9:
            let elementType = try cursor.u32()
            guard elementType != 9 else { throw invalid("nested arrays are not supported") }
            let count = try cursor.u64()
            guard count <= UInt64(cursor.remaining) else { throw ByteCursor.Truncated() }
            var prefix: [GGUFValue] = []
            for _ in 0..<min(count, UInt64(keptArrayPrefix)) {
                prefix.append(try readValue(type: elementType, cursor: &cursor, invalid: invalid))
            }
            // The rest is only stepped over: fixed-size values at once, strings one length at a time.
            let rest = count - UInt64(prefix.count)
            if let size = fixedSizes[elementType] {
                guard rest <= UInt64(cursor.remaining) / size else { throw ByteCursor.Truncated() }
                try cursor.skip(Int(rest * size))
            } else if elementType == 8 {
                for _ in 0..<rest {
                    let length = try cursor.u64()
                    guard length <= UInt64(cursor.remaining) else { throw ByteCursor.Truncated() }
                    try cursor.skip(Int(length))
                }
            } else if rest > 0 {
                throw invalid("unknown metadata value type \(elementType)")
            }
            return .array(count: Int(count), prefix: prefix)
        case 10: return .unsigned(try cursor.u64())
        case 11: return .signed(Int64(bitPattern: try cursor.u64()))
        case 12: return .float(Double(bitPattern: try cursor.u64()))
        default: throw invalid("unknown metadata value type \(type)")
        }
    }
}

/// Little-endian reads over a byte buffer that throw instead of reading past its end.
struct ByteCursor {
    struct Truncated: Error {}

    let data: Data
    private(set) var offset = 0

    init(data: Data) { self.data = data }

    var remaining: Int { data.count - offset }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= remaining else { throw Truncated() }
        defer { offset += count }
        return bytes(at: offset, count: count)
    }

    /// The `count` bytes at `start` (an offset already checked to lie inside the data).
    func bytes(at start: Int, count: Int) -> [UInt8] {
        data.withUnsafeBytes { Array($0[start..<start + count]) }
    }

    /// How many of the `count` bytes at `start` come before the first `byte`.
    func prefixLength(at start: Int, count: Int, before byte: UInt8) -> Int {
        data.withUnsafeBytes { $0[start..<start + count].firstIndex(of: byte).map { $0 - start } ?? count }
    }

    /// The hash of the `count` bytes at `start`: ``ByteCursor/hash(_:)`` of them.
    func hash(at start: Int, count: Int) -> Int {
        data.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[start..<start + count])) }
    }

    /// A hash of `bytes` (this process's seed, as `Hashable`'s).
    static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: bytes)
        return hasher.finalize()
    }

    /// Moves past `count` bytes.
    mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw Truncated() }
        offset += count
    }

    mutating func u8() throws -> UInt8 { try integer(UInt8.self) }
    mutating func u16() throws -> UInt16 { try integer(UInt16.self) }
    mutating func u32() throws -> UInt32 { try integer(UInt32.self) }
    mutating func u64() throws -> UInt64 { try integer(UInt64.self) }
    /// A signed 32-bit value, widened.
    mutating func i32() throws -> Int { Int(Int32(bitPattern: try u32())) }

    mutating func string() throws -> String {
        let length = try u64()
        guard length <= UInt64(remaining) else { throw Truncated() }
        return String(decoding: try bytes(Int(length)), as: UTF8.self)
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard size <= remaining else { throw Truncated() }
        defer { offset += size }
        return T(littleEndian: data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) })
    }
}
