import Foundation
#if canImport(Glibc)
import Glibc
#endif

// What a runtime and an engine worker (``EngineWorker``) say to each other: one JSON object per
// line, the runtime's on the worker's standard input, the worker's on its standard output.
// Requests that expect an answer carry an id the answer repeats.

/// A runtime's message to its engine worker.
enum WorkerRequest: Codable, Sendable {
    /// Load `model` with `framework`'s adapter; answered by ``WorkerReply/loaded(_:)`` or ``WorkerReply/loadFailed(_:)``.
    case load(model: ModelInfo, framework: InferenceFramework, options: ModelLoadOptions)
    /// Start a generation; answered at once by ``WorkerReply/answer(id:_:)`` (taken) or
    /// ``WorkerReply/done(id:error:)`` (refused), then by its events and ``WorkerReply/done(id:error:)``.
    case generate(id: UInt64, request: LLMEngineRequest)
    /// Stop generation `id` before its next decode step.
    case cancel(id: UInt64)
    /// One of the engine's quick questions; answered by ``WorkerReply/answer(id:_:)`` or ``WorkerReply/done(id:error:)``.
    case ask(id: UInt64, question: WorkerQuestion)
}

/// The engine's quick questions (``LLMService``'s synchronous calls).
enum WorkerQuestion: Codable, Sendable {
    case tokenCount(text: String)
    case hasSpecialToken(text: String)
    case applyChatTemplate(messages: [Message], addAssistantPrefix: Bool)
    case imageTokenCount(image: LoadedImage)
    case tokenize(text: String, addSpecial: Bool, parseSpecial: Bool)
    case piece(token: Int32)
}

/// An engine worker's message to its runtime.
enum WorkerReply: Codable, Sendable {
    case loaded(WorkerModelFacts)
    case loadFailed(SDKError)
    /// What generation `id` reports (its ``LLMEngineEvent``s but the tokens' times, which the
    /// runtime takes as it reads them).
    case event(id: UInt64, event: WorkerEngineEvent)
    /// Generation `id` ended (with `error` if it failed), or question `id` failed.
    case done(id: UInt64, error: SDKError?)
    case answer(id: UInt64, _ value: WorkerAnswer)
}

/// An answer to a ``WorkerQuestion``.
enum WorkerAnswer: Codable, Sendable {
    case count(Int)
    case flag(Bool)
    case text(String?)
    case tokens([Int32])
    case bytes([UInt8])
}

/// What the runtime keeps of a model its worker loaded.
struct WorkerModelFacts: Codable, Sendable {
    let contextLength: Int
    let chatTemplateSource: String?
    let readsImages: Bool
    let backend: String
    /// The vocabulary's size where the engine tokenizes for the SDK (``TokenizerAdapter``).
    let vocabularySize: Int?
}

/// ``LLMEngineEvent`` on the wire, without the tokens' times.
enum WorkerEngineEvent: Codable, Sendable {
    case promptProcessed(evaluated: Int, cached: Int, seconds: Double)
    case imagesEncoded(count: Int, tokens: Int, seconds: Double)
    case token(bytes: [UInt8])
    case finished(Stop)

    enum Stop: String, Codable, Sendable { case endOfGeneration, length, cancelled }

    init(_ event: LLMEngineEvent) {
        switch event {
        case .promptProcessed(let evaluated, let cached, let seconds): self = .promptProcessed(evaluated: evaluated, cached: cached, seconds: seconds)
        case .imagesEncoded(let count, let tokens, let seconds): self = .imagesEncoded(count: count, tokens: tokens, seconds: seconds)
        case .token(let bytes, _): self = .token(bytes: bytes)
        case .finished(.endOfGeneration): self = .finished(.endOfGeneration)
        case .finished(.length): self = .finished(.length)
        case .finished(.cancelled): self = .finished(.cancelled)
        }
    }

    /// The event, a token stamped `now`.
    func event(at now: ContinuousClock.Instant) -> LLMEngineEvent {
        switch self {
        case .promptProcessed(let evaluated, let cached, let seconds): .promptProcessed(evaluated: evaluated, cached: cached, seconds: seconds)
        case .imagesEncoded(let count, let tokens, let seconds): .imagesEncoded(count: count, tokens: tokens, seconds: seconds)
        case .token(let bytes): .token(bytes: bytes, at: now)
        case .finished(.endOfGeneration): .finished(.endOfGeneration)
        case .finished(.length): .finished(.length)
        case .finished(.cancelled): .finished(.cancelled)
        }
    }
}

/// Lines of JSON on a file descriptor: the framing both sides use.
enum WorkerWire {
    /// Writes `message` and a newline to `fd`, all of it (a worker that has gone leaves EPIPE,
    /// which the reader side reports). Callers serialize writes to one descriptor.
    static func write(_ message: some Encodable, to fd: Int32) {
        guard var data = try? JSONEncoder().encode(message) else { return }
        data.append(0x0A)
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Reads `fd` to its end, handing each line to `line`; returns at end of file or on an error.
    static func readLines(from fd: Int32, _ line: (Data) -> Void) {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 0x0A) {
                line(pending[pending.startIndex..<newline])
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        if !pending.isEmpty { line(pending) }
    }
}
