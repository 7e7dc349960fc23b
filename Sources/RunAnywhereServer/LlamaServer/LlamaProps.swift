import Foundation
import RunAnywhere

/// llama-server's `GET /props` for one model (llama-server serves one; here `?model=` names it,
/// else the default model): what its web UI and clients read before they ask anything — the
/// context each request gets, the sampling a `/completion` that sets none gets (the model's own,
/// a Modelfile's, over llama-server's defaults), the parallel slots, the chat template, the
/// beginning- and end-of-text tokens and what the model reads. Answered from the model file's header, without loading it.
struct LlamaProps: Encodable, Sendable {
    struct GenerationSettings: Encodable, Sendable {
        let nCtx: Int
        let params: Sampling

        enum CodingKeys: String, CodingKey { case nCtx = "n_ctx", params }
    }

    /// The sampling settings by llama-server's names.
    struct Sampling: Encodable, Sendable {
        let nPredict: Int
        let temperature: Float
        let topK: Int
        let topP: Float
        let minP: Float
        let repeatPenalty: Float
        let repeatLastN: Int
        let presencePenalty: Float
        let frequencyPenalty: Float
        let seed: Int64
        let stop: [String]

        enum CodingKeys: String, CodingKey {
            case nPredict = "n_predict", temperature, topK = "top_k", topP = "top_p", minP = "min_p", repeatPenalty = "repeat_penalty"
            case repeatLastN = "repeat_last_n", presencePenalty = "presence_penalty", frequencyPenalty = "frequency_penalty", seed, stop
        }

        /// `options` as llama-server writes its defaults: -1 for an unbounded answer and no seed,
        /// the engine's values (1, 64, 0) for the penalties a request leaves off.
        init(_ options: LLMGenerationOptions) {
            nPredict = options.maxTokens == LLMGenerationOptions.untilContextFull ? -1 : options.maxTokens
            temperature = options.temperature
            topK = options.topK
            topP = options.topP
            minP = options.minP ?? 0
            repeatPenalty = options.repeatPenalty ?? 1
            repeatLastN = options.penaltyLastN.map { $0 == Int.max ? -1 : $0 } ?? 64
            presencePenalty = options.presencePenalty ?? 0
            frequencyPenalty = options.frequencyPenalty ?? 0
            seed = options.seed.map(Int64.init) ?? -1
            stop = options.stopSequences
        }
    }

    struct Modalities: Encodable, Sendable {
        let vision: Bool
        let video = false
        let audio = false
    }

    let defaultGenerationSettings: GenerationSettings
    let totalSlots: Int
    let modelAlias: String
    let modelPath: String
    let modalities: Modalities
    let chatTemplate: String
    /// The texts of the vocabulary's beginning- and end-of-text tokens ("" when the file names none).
    let bosToken: String
    let eosToken: String
    let buildInfo: String
    let isSleeping: Bool
    let endpointSlots = false
    let endpointProps = false
    let endpointMetrics = true

    enum CodingKeys: String, CodingKey {
        case defaultGenerationSettings = "default_generation_settings", totalSlots = "total_slots", modelAlias = "model_alias"
        case modelPath = "model_path", modalities, chatTemplate = "chat_template", buildInfo = "build_info", isSleeping = "is_sleeping"
        case bosToken = "bos_token", eosToken = "eos_token"
        case endpointSlots = "endpoint_slots", endpointProps = "endpoint_props", endpointMetrics = "endpoint_metrics"
    }

    /// The properties of `model` (whose GGUF header is `metadata`) as `configuration` serves it;
    /// `loaded` says whether it is in memory now (llama-server's `is_sleeping` is its opposite).
    init(_ model: ModelInfo, metadata: GGUFMetadata?, configuration: ServerConfiguration, loaded: Bool) {
        var options = LlamaCompletionRequest.serverDefaults
        model.defaults?.apply(to: &options)
        defaultGenerationSettings = GenerationSettings(
            nCtx: configuration.loadOptions.resolvedContextLength(for: model, trainedContext: metadata?.contextLength ?? 0),
            params: Sampling(options))
        totalSlots = configuration.loadOptions.parallel
        modelAlias = model.id
        modelPath = model.primaryFile?.path ?? ""
        modalities = Modalities(vision: model.projectorFile != nil)
        chatTemplate = metadata?.chatTemplate ?? ""
        bosToken = metadata?.bosToken ?? ""
        eosToken = metadata?.eosToken ?? ""
        buildInfo = "RunAnywhere \(RunAnywhere.version)"
        isSleeping = !loaded
    }
}
