import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// What a runtime and an engine worker (``EngineWorker``) say to each other: one JSON object per
// line, the runtime's on the worker's standard input, the worker's on its standard output, but
// for the generated tokens (``WorkerTokenLine``). Requests that expect an answer carry an id the
// answer repeats.

/// A runtime's message to its engine worker.
enum WorkerRequest: Codable, Sendable {
    /// Load `model` as `kind` (an image-generation model with `diffusion`) with `framework`'s
    /// adapter; answered by ``WorkerReply/loaded(_:)`` or ``WorkerReply/loadFailed(_:)``.
    case load(
        model: ModelInfo, framework: InferenceFramework, kind: EngineKind, options: ModelLoadOptions, diffusion: DiffusionConfiguration?)
    /// Start a generation; answered at once by ``WorkerReply/answer(id:_:)`` (taken) or
    /// ``WorkerReply/done(id:error:)`` (refused), then by its events and ``WorkerReply/done(id:error:)``.
    case generate(id: UInt64, request: LLMEngineRequest)
    /// Embed `texts` (an embedding model); answered by ``WorkerReply/answer(id:_:)`` with
    /// ``WorkerAnswer/embeddings(vectors:tokenCounts:)`` or by ``WorkerReply/done(id:error:)``.
    case embed(id: UInt64, texts: [String], options: EmbeddingOptions)
    /// Score `documents` against `query` (a reranker); answered by ``WorkerReply/answer(id:_:)``
    /// with ``WorkerAnswer/ranking(scores:tokenCounts:)`` or by ``WorkerReply/done(id:error:)``.
    case rerank(id: UInt64, query: String, documents: [String], options: RerankOptions)
    /// Transcribe 16 kHz `audio` (a speech-to-text model); answered by a
    /// ``WorkerProgress/segment(_:)`` as each segment ends, then with
    /// ``WorkerAnswer/transcription(segments:language:)`` or by ``WorkerReply/done(id:error:)``.
    case transcribe(id: UInt64, audio: WorkerAudio, options: STTOptions)
    /// Find the speech in 16 kHz `audio` (a voice activity detector); answered with
    /// ``WorkerAnswer/speech(_:)`` or by ``WorkerReply/done(id:error:)``.
    case detectSpeech(id: UInt64, audio: WorkerAudio, options: VADOptions)
    /// The speech probability of each window of 16 kHz `audio` (a voice activity detector,
    /// ``VADService/windowProbabilities(_:)``); answered with ``WorkerAnswer/probabilities(_:)`` or by
    /// ``WorkerReply/done(id:error:)``.
    case speechProbabilities(id: UInt64, audio: WorkerAudio)
    /// Speak `text` (a voice); answered with ``WorkerAnswer/audio(_:)`` or by ``WorkerReply/done(id:error:)``.
    case synthesize(id: UInt64, text: String, options: TTSOptions)
    /// Draw an image (an image-generation model); answered by a ``WorkerProgress/step(done:total:)``
    /// after each denoising step, then with ``WorkerAnswer/image(png:width:height:)`` or by
    /// ``WorkerReply/done(id:error:)``.
    case draw(id: UInt64, prompt: String, options: DiffusionGenerationOptions)
    /// Stop request `id` (any of the above) before its next engine step.
    case cancel(id: UInt64)
    /// One of the engine's quick questions; answered by ``WorkerReply/answer(id:_:)`` or ``WorkerReply/done(id:error:)``.
    case ask(id: UInt64, question: WorkerQuestion)
}

/// The engine's quick questions (``LLMService``'s synchronous calls).
enum WorkerQuestion: Codable, Sendable {
    case tokenCount(text: String, plainText: [Range<Int>])
    case hasSpecialToken(text: String)
    case applyChatTemplate(messages: [Message], addAssistantPrefix: Bool)
    case imageTokenCount(image: LoadedImage)
    case tokenize(text: String, addSpecial: Bool, parseSpecial: Bool)
    case piece(token: Int32)
    /// ``LLMService/auxiliaryMemory``.
    case auxiliaryMemory
    /// An image-generation model's ``DiffusionService/workingMemory(width:height:)``.
    case workingMemory(width: Int, height: Int)
    /// An image-generation model's ``DiffusionService/check(_:)``; answered by a flag.
    case checkImage(options: DiffusionGenerationOptions)
}

/// An engine worker's message to its runtime.
enum WorkerReply: Codable, Sendable {
    case loaded(WorkerModelFacts)
    case loadFailed(SDKError)
    /// What generation `id` reports but its tokens (``WorkerTokenLine``).
    case event(id: UInt64, event: WorkerEngineEvent)
    /// How far work `id` (a drawing, a transcription) has come.
    case progress(id: UInt64, _ progress: WorkerProgress)
    /// Generation `id` ended (with `error` if it failed), or question `id` failed.
    case done(id: UInt64, error: SDKError?)
    case answer(id: UInt64, _ value: WorkerAnswer)
}

/// What work reports before its answer.
enum WorkerProgress: Codable, Sendable {
    /// A drawing has done `done` of its `total` denoising steps.
    case step(done: Int, total: Int)
    /// A transcription has heard a segment.
    case segment(TranscriptionSegment)
}

/// An answer to a ``WorkerQuestion``, or an embedding's or a ranking's result.
enum WorkerAnswer: Codable, Sendable {
    case count(Int)
    case flag(Bool)
    case text(String?)
    case tokens([Int32])
    case bytes([UInt8])
    /// Each vector as its Floats' little-endian bytes (base64 in the JSON: a fraction of the
    /// time and size of numbers written out).
    case embeddings(vectors: [Data], tokenCounts: [Int])
    case ranking(scores: [Float], tokenCounts: [Int])
    case transcription(segments: [TranscriptionSegment], language: String?)
    case speech([SpeechSegment])
    case probabilities([Float])
    case audio(WorkerAudio)
    case image(png: Data, width: Int, height: Int)
}

/// Audio on the wire: its Floats' bytes (base64 in the JSON) and its rate.
struct WorkerAudio: Codable, Sendable {
    let samples: Data
    let sampleRate: Int

    init(_ audio: AudioSamples) {
        samples = Data(floats: audio.samples)
        sampleRate = audio.sampleRate
    }

    /// The audio; a rate no engine would give is refused as ``AudioSamples`` refuses it.
    func audio() throws -> AudioSamples {
        try AudioSamples(samples: [Float](bytes: samples), sampleRate: sampleRate)
    }
}

extension WorkerAnswer {
    /// An engine's embeddings on the wire.
    static func embeddings(_ output: EngineEmbeddings) -> WorkerAnswer {
        .embeddings(vectors: output.vectors.map(Data.init(floats:)), tokenCounts: output.tokenCounts)
    }

    /// The embeddings these answer, if they are embeddings.
    var engineEmbeddings: EngineEmbeddings? {
        guard case .embeddings(let vectors, let tokenCounts) = self else { return nil }
        return EngineEmbeddings(vectors: vectors.map([Float].init(bytes:)), tokenCounts: tokenCounts)
    }

    /// The ranking this answers, if it is one.
    var engineRanking: EngineRanking? {
        guard case .ranking(let scores, let tokenCounts) = self else { return nil }
        return EngineRanking(scores: scores, tokenCounts: tokenCounts)
    }
}

/// What the runtime keeps of a model its worker loaded.
struct WorkerModelFacts: Codable, Sendable {
    let contextLength: Int
    /// An embedding model's vector length (0 for other kinds).
    var dimensions = 0
    var chatTemplateSource: String?
    var readsImages = false
    var backend = "cpu"
    /// The vocabulary's size where the engine tokenizes for the SDK (``TokenizerAdapter``).
    var vocabularySize: Int?
    /// Its fill-in-the-middle tokens, where it has them.
    var fillInTheMiddleTokens: FillInTheMiddleTokens?
    /// A voice's name and language.
    var voiceName = ""
    var language = ""

    /// The facts of `engine`.
    init(_ engine: LoadedEngine) {
        switch engine {
        case .language(let service):
            contextLength = service.contextLength
            chatTemplateSource = service.chatTemplateSource
            readsImages = service.readsImages
            backend = service.backend
            vocabularySize = (service as? any TokenizerAdapter)?.vocabularySize
            fillInTheMiddleTokens = (service as? any TokenizerAdapter)?.fillInTheMiddleTokens
        case .embedding(let service):
            contextLength = service.contextLength
            dimensions = service.dimensions
        case .reranking(let service):
            contextLength = service.contextLength
        case .speechSynthesis(let service):
            contextLength = 0
            voiceName = service.voiceName
            language = service.language
        case .speechRecognition, .voiceActivity, .imageGeneration:
            contextLength = 0
        }
    }
}

/// ``LLMEngineEvent`` on the wire, but its tokens (``WorkerTokenLine``) and their
/// log-probabilities (``WorkerLogprobLine``).
enum WorkerEngineEvent: Codable, Sendable {
    case promptProcessed(evaluated: Int, cached: Int, seconds: Double)
    case imagesEncoded(count: Int, tokens: Int, seconds: Double)
    case speculated(drafted: Int, accepted: Int)
    /// Once per prompt chunk, so JSON is cheap enough.
    case promptLogprobs([TokenLogprob])
    case finished(Stop)

    enum Stop: String, Codable, Sendable { case endOfGeneration, length, cancelled }

    /// `event`; nil for a token or its log-probability.
    init?(_ event: LLMEngineEvent) {
        switch event {
        case .promptProcessed(let evaluated, let cached, let seconds):
            self = .promptProcessed(evaluated: evaluated, cached: cached, seconds: seconds)
        case .imagesEncoded(let count, let tokens, let seconds): self = .imagesEncoded(count: count, tokens: tokens, seconds: seconds)
        case .speculated(let drafted, let accepted): self = .speculated(drafted: drafted, accepted: accepted)
        case .promptLogprobs(let tokens): self = .promptLogprobs(tokens)
        case .token, .tokenLogprob: return nil
        case .finished(.endOfGeneration): self = .finished(.endOfGeneration)
        case .finished(.length): self = .finished(.length)
        case .finished(.cancelled): self = .finished(.cancelled)
        }
    }

    /// The event.
    var event: LLMEngineEvent {
        switch self {
        case .promptProcessed(let evaluated, let cached, let seconds):
            .promptProcessed(evaluated: evaluated, cached: cached, seconds: seconds)
        case .imagesEncoded(let count, let tokens, let seconds): .imagesEncoded(count: count, tokens: tokens, seconds: seconds)
        case .speculated(let drafted, let accepted): .speculated(drafted: drafted, accepted: accepted)
        case .promptLogprobs(let tokens): .promptLogprobs(tokens)
        case .finished(.endOfGeneration): .finished(.endOfGeneration)
        case .finished(.length): .finished(.length)
        case .finished(.cancelled): .finished(.cancelled)
        }
    }
}

/// The line a worker writes for each generated token: `T`, the generation's id in decimal and
/// the token's bytes in hex, space-separated (`T 7 2068656c6c6f`). Tokens are nearly all a
/// worker says, and encoding and decoding them as JSON took 25 µs a token, more than the rest
/// of the way from engine to server. The runtime stamps each token's time as it reads it.
enum WorkerTokenLine {
    /// The line, newline included.
    static func encode(id: UInt64, bytes: [UInt8]) -> Data {
        var line = Array("T \(id) ".utf8)
        line.reserveCapacity(line.count + 2 * bytes.count + 1)
        Hex.append(bytes, to: &line)
        line.append(0x0A)
        return Data(line)
    }

    /// Whether `line` is a token's line rather than a JSON message.
    static func isTokenLine(_ line: Data) -> Bool { line.first == UInt8(ascii: "T") }

    /// The id and bytes of a token's line; nil for a malformed one.
    static func decode(_ line: Data) -> (id: UInt64, bytes: [UInt8])? {
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].elementsEqual([UInt8(ascii: "T")]), let id = UInt64(String(decoding: parts[1], as: UTF8.self))
        else { return nil }
        guard let bytes = Hex.bytes(parts.count == 3 ? Array(parts[2]) : []) else { return nil }
        return (id, bytes)
    }
}

/// The line a worker writes before a token when its request asked for log-probabilities: `L`,
/// the generation's id, then the token and each alternative as `id,logprob,bytes` (the
/// log-probability's bits and the bytes in hex), space-separated
/// (`L 7 504,bf241c2a,546865 60,c00b0000,4c`). As JSON, with five alternatives, it cost the
/// worker and the server about 100 µs a token.
enum WorkerLogprobLine {
    /// The line, newline included.
    static func encode(id: UInt64, logprob: TokenLogprob) -> Data {
        var line = Array("L \(id)".utf8)
        for token in [logprob] + logprob.topLogprobs {
            line += Array(" \(token.id),\(String(token.logprob.bitPattern, radix: 16)),".utf8)
            Hex.append(token.bytes, to: &line)
        }
        line.append(0x0A)
        return Data(line)
    }

    /// Whether `line` is a log-probability's line.
    static func isLogprobLine(_ line: Data) -> Bool { line.first == UInt8(ascii: "L") }

    /// The generation's id and the log-probability of a line; nil for a malformed one.
    static func decode(_ line: Data) -> (id: UInt64, logprob: TokenLogprob)? {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].elementsEqual([UInt8(ascii: "L")]), let id = UInt64(String(decoding: parts[1], as: UTF8.self))
        else { return nil }
        var tokens: [TokenLogprob] = []
        for part in parts.dropFirst(2) {
            let fields = part.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard fields.count == 3, let token = Int32(String(decoding: fields[0], as: UTF8.self)),
                let bits = UInt32(String(decoding: fields[1], as: UTF8.self), radix: 16), let bytes = Hex.bytes(fields[2])
            else { return nil }
            tokens.append(TokenLogprob(id: token, bytes: bytes, logprob: Float(bitPattern: bits)))
        }
        var logprob = tokens[0]
        logprob.topLogprobs = Array(tokens.dropFirst())
        return (id, logprob)
    }
}

/// Bytes as lowercase hex digits, two a byte, on the worker's lines.
private enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func append(_ bytes: [UInt8], to line: inout [UInt8]) {
        for byte in bytes {
            line.append(digits[Int(byte >> 4)])
            line.append(digits[Int(byte & 15)])
        }
    }

    /// The bytes `hex` spells; nil for an odd count or a character that is not a hex digit.
    static func bytes(_ hex: some Collection<UInt8>) -> [UInt8]? {
        let hex = Array(hex)
        guard hex.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        for index in stride(from: 0, to: hex.count, by: 2) {
            guard let high = value(hex[index]), let low = value(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// Lines on a file descriptor (JSON messages and token lines): the framing both sides use.
enum WorkerWire {
    /// `message` as one line: its JSON and a newline.
    static func line(_ message: some Encodable) -> Data? {
        guard var data = try? JSONEncoder().encode(message) else { return nil }
        data.append(0x0A)
        return data
    }

    /// Writes `line`, all of it, to `fd` (a worker that has gone leaves EPIPE, which the reader
    /// side reports). Callers serialize writes to one descriptor, and encode before they do.
    static func write(_ line: Data, to fd: Int32) {
        try? line.write(toDescriptor: fd)
    }

    /// Reads `fd` to its end, handing each line to `line`; returns at end of file or on an error.
    static func readLines(from fd: Int32, _ line: (Data) -> Void) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            // Only what just arrived can hold a newline: a long line (a minute of audio is
            // megabytes) is not searched again on each read.
            var searched = pending.count
            pending.append(contentsOf: buffer[0..<count])
            // Many lines arrive in one read while many streams generate: cut them all, then
            // drop what was cut once.
            var start = 0
            while let newline = pending[searched...].firstIndex(of: 0x0A) {
                line(Data(pending[start..<newline]))
                start = newline + 1
                searched = start
            }
            pending.removeFirst(start)
        }
        if !pending.isEmpty { line(Data(pending)) }
    }
}

/// Floats on the wire travel as their bytes, in this machine's order: both ends are the same
/// machine.
extension Data {
    init(floats: [Float]) { self = floats.withUnsafeBytes { Data($0) } }
}

extension [Float] {
    /// The Floats whose bytes `bytes` are (a trailing partial Float is dropped).
    init(bytes: Data) {
        self.init(repeating: 0, count: bytes.count / MemoryLayout<Float>.size)
        withUnsafeMutableBytes { _ = bytes.copyBytes(to: $0) }
    }
}
