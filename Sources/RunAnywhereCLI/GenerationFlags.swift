import ArgumentParser
import Foundation
import RunAnywhere

/// Flags shared by `generate`, `chat` and `describe`; what a flag leaves unset comes from the
/// user's settings (`runanywhere settings`). A number's flag takes the argument after it
/// whatever it is (`parsing: .unconditional`), so that `--temperature -1` is refused for its
/// range, not as a flag without a value.
struct GenerationFlags: ParsableArguments {
    @Option(name: .long, help: "Model id (default: the installed default model of the command's kind).")
    var model: String?
    @Option(name: .customLong("max-tokens"), parsing: .unconditional, help: "Most tokens to generate.")
    var maxTokens: Int?
    @Option(name: .long, parsing: .unconditional, help: "Sampling temperature, 0 to 2; 0 is greedy and deterministic.")
    var temperature: Float?
    @Option(name: .customLong("top-p"), parsing: .unconditional, help: "Nucleus sampling threshold, in (0, 1].")
    var topP: Float?
    @Option(name: .customLong("top-k"), parsing: .unconditional, help: "Sample among the k most likely tokens; 0 for all.")
    var topK: Int?
    @Option(
        name: .customLong("min-p"), parsing: .unconditional,
        help: "Keep only tokens at least this times as likely as the most likely one, 0 to 1.")
    var minP: Float?
    @Option(
        name: .customLong("repeat-penalty"), parsing: .unconditional,
        help: "Penalty on the last --repeat-last-n tokens (1.1 is common; 1 is none).")
    var repeatPenalty: Float?
    @Option(
        name: .customLong("repeat-last-n"), parsing: .unconditional,
        help: "How many of the last tokens, prompt included, the penalty looks at (default: 64).")
    var repeatLastN: Int?
    @Option(name: .long, parsing: .unconditional, help: "Sampling seed, for repeatable sampled output.")
    var seed: UInt32?
    @Option(name: .long, parsing: .unconditional, help: "CPU threads (default: all cores, at most 4).")
    var threads: Int?
    @Option(name: .long, help: "System prompt.")
    var system: String?
    @Option(
        name: .customLong("context-length"), parsing: .unconditional, help: "Context window in tokens (default: the model's, at most 4096)."
    )
    var contextLength: Int?
    @Option(
        name: .customLong("batch-size"), parsing: .unconditional,
        help: "Prompt tokens evaluated per step (default: \(ModelLoadOptions().batchSize)).")
    var batchSize: Int?
    @Flag(
        name: .long,
        help:
            "Greedy output reproducible like seeded output, the same as `serve --reproducible` gives (llama.cpp's batch-invariant configuration)."
    )
    var reproducible = false
    @Option(name: .customLong("flash-attention"), help: "Flash attention: auto, enabled or disabled.")
    var flashAttention: ModelLoadOptions.FlashAttention = .auto
    @Option(
        name: .customLong("gpu-layers"), parsing: .unconditional,
        help:
            "Layers on the GPU; 0 keeps the model on the CPU (default: all when it fits in the GPU's free memory, as many as fit otherwise, none without a GPU)."
    )
    var gpuLayers: Int?
    @Option(
        name: .long,
        help:
            "Speculative decoding by prompt lookup: guess up to N tokens a step from the text so far (1 to \(LLMSpeculation.maxDraftTokens); 0 or unset: off). Same output, faster where the answer repeats its input."
    )
    var speculate: Int?
    @Option(
        name: .customLong("draft-model"),
        help: ArgumentHelp(
            "Speculate with MODEL (a smaller model with the same vocabulary: an id or a GGUF path) guessing ahead, up to --speculate tokens a step (default 8), instead of by prompt lookup.",
            valueName: "MODEL"))
    var draftModel: String?
    @Flag(
        name: .customLong("save-prompts"),
        help:
            "Keep long prompts' state on disk (in the data folder's prompt-states), so that after a restart a prompt that starts the same way reads only what is new."
    )
    var savePrompts = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Apply the LoRA adapter GGUF at PATH, its effect scaled by SCALE (default 1); repeatable.", valueName: "PATH[:SCALE]"),
        transform: LoRAFlag.init(parsing:))
    var lora: [LoRAFlag] = []
    @Option(
        name: .customLong("rpc"),
        help: ArgumentHelp(
            "Place the model's layers on these RPC workers (runanywhere rpc-worker; comma-separated or repeated), --gpu-layers of them (default: all), the rest on this CPU. The model then runs in an engine process of its own, so that a worker lost mid-answer fails the answer, not this command.",
            valueName: "HOST:PORT"))
    var rpc: [String] = []

    /// `--rpc`'s workers, commas split.
    var rpcWorkers: [String] { RPCEndpoint.flag(rpc) }

    /// The settings, `model`'s defaults over them (its system prompt too: it is more particular
    /// than the user's for every model), and these flags on top.
    func options(
        _ settings: GenerationSettings, model: ModelInfo, stopSequences: [String] = [], applyChatTemplate: Bool = true
    ) -> LLMGenerationOptions {
        var options = settings.options
        model.defaults?.apply(to: &options)
        if let system = model.defaults?.systemPrompt { options.systemPrompt = system }
        applySampling(to: &options)
        if let threads { options.threads = threads }
        if let system { options.systemPrompt = system }
        if let seed { options.seed = seed }
        if !stopSequences.isEmpty { options.stopSequences = stopSequences }
        options.applyChatTemplate = applyChatTemplate
        if let speculation = LLMSpeculation(flag: speculate, draftModel: draftModel) { options.speculation = speculation }
        if !lora.isEmpty { options.loraAdapters = lora.map(\.adapter) }
        return options
    }

    /// The load options these flags (and the settings' threads) describe; saved prompts go to
    /// `savedPrompts` when asked for.
    func loadOptions(_ settings: GenerationSettings, savedPrompts: SavedPrompts) -> ModelLoadOptions {
        var options = ModelLoadOptions(contextLength: contextLength, threads: threads ?? settings.threads, flashAttention: flashAttention)
        if let batchSize { options.batchSize = batchSize }
        options.gpuLayers = gpuLayers
        options.rpcWorkers = rpcWorkers
        options.reproducible = reproducible
        if savePrompts { options.savedPrompts = savedPrompts }
        return options
    }

    func validate() throws {
        let limits = SDKConstants.Limits.self
        if let contextLength, !(16...limits.maxContextLength).contains(contextLength) {
            throw ValidationError("--context-length must be 16 to \(limits.maxContextLength)")
        }
        if let threads, !(1...limits.maxThreads).contains(threads) { throw ValidationError("--threads must be 1 to \(limits.maxThreads)") }
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if let gpuLayers, gpuLayers < 0 { throw ValidationError("--gpu-layers cannot be negative") }
        try RPCEndpoint.checkFlag(rpcWorkers)
        try LLMSpeculation.checkFlag(speculate, draftModel: draftModel)
    }

    /// Throws the SDK's error for the first sampling flag out of range, naming the flag as it
    /// was typed (`--top-p must be in (0, 1]`), before any model loads: each command calls it
    /// first thing in its run, where errors are reported as every command's are.
    func checkSampling() throws {
        var options = LLMGenerationOptions()
        applySampling(to: &options)
        if let invalid = options.firstInvalidOption(), let flag = Self.flags[invalid.name] {
            throw SDKError(invalid.error.code, invalid.error.message(calling: invalid.name, flag), category: invalid.error.category)
        }
    }

    /// Sets the sampling flags given on `options`.
    private func applySampling(to options: inout LLMGenerationOptions) {
        if let maxTokens { options.maxTokens = maxTokens }
        if let temperature { options.temperature = temperature }
        if let topP { options.topP = topP }
        if let topK { options.topK = topK }
        if let minP { options.minP = minP }
        if let repeatPenalty { options.repeatPenalty = repeatPenalty }
        if let repeatLastN { options.penaltyLastN = repeatLastN }
    }

    /// The flag of each generation option these flags set.
    private static let flags = [
        "maxTokens": "--max-tokens", "temperature": "--temperature", "topP": "--top-p", "topK": "--top-k", "minP": "--min-p",
        "repeatPenalty": "--repeat-penalty", "penaltyLastN": "--repeat-last-n",
    ]
}

extension LLMSpeculation {
    /// Throws unless `--speculate`'s value is nil or 0 to ``maxDraftTokens`` (not 0 with a
    /// `--draft-model`).
    static func checkFlag(_ draftTokens: Int?, draftModel: String? = nil) throws {
        if let draftTokens, !(0...maxDraftTokens).contains(draftTokens) {
            throw ValidationError("--speculate must be 0 to \(maxDraftTokens)")
        }
        if draftModel != nil, draftTokens == 0 { throw ValidationError("--draft-model guesses at least 1 token a step: not --speculate 0") }
        if draftModel?.isEmpty == true { throw ValidationError("--draft-model needs a model id or a GGUF path") }
    }

    /// What `--speculate` and `--draft-model` ask for; nil when neither is given. A draft model
    /// guesses 8 tokens a step unless `--speculate` says otherwise.
    init?(flag draftTokens: Int?, draftModel: String?) {
        guard draftTokens != nil || draftModel != nil else { return nil }
        self.init(draftTokens: draftTokens ?? 8, draftModel: draftModel)
    }
}

extension ModelLoadOptions.FlashAttention: ExpressibleByArgument {}

extension RPCEndpoint {
    /// The workers `--rpc`'s values name (each repeated or comma-separated).
    static func flag(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",").map(String.init) }
    }

    /// Throws a usage error for the first of `--rpc`'s workers that is not `HOST:PORT`.
    static func checkFlag(_ workers: [String]) throws {
        for worker in workers {
            do { _ = try parse(worker) } catch let error as SDKError { throw ValidationError("--rpc: \(error.message)") }
        }
    }
}

/// `--lora PATH[:SCALE]`: an adapter file and its scale (a path may itself hold colons; only a
/// number after the last one is a scale).
struct LoRAFlag {
    let adapter: LoRAAdapter

    /// `argument` read as PATH[:SCALE]; an empty path, a scale that is not finite, or a word after
    /// the colon of a file that exists (a mistyped scale, where the path would be named missing)
    /// is refused saying which.
    init(parsing argument: String) throws {
        if let colon = argument.lastIndex(of: ":") {
            let (path, suffix) = (String(argument[..<colon]), argument[argument.index(after: colon)...])
            if let scale = Float(suffix) {
                guard !path.isEmpty else { throw ValidationError("no adapter file before the scale \(suffix)") }
                guard scale.isFinite else { throw ValidationError("the scale \(suffix) is not a finite number") }
                adapter = LoRAAdapter(path: path, scale: scale)
                return
            }
            if !FileManager.default.fileExists(atPath: argument), !path.isEmpty, FileManager.default.fileExists(atPath: path) {
                throw ValidationError("'\(suffix)' after the last colon is not a scale (a number such as 0.5)")
            }
        }
        guard !argument.isEmpty else { throw ValidationError("name an adapter file") }
        adapter = LoRAAdapter(path: argument)
    }
}
