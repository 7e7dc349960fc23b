import Foundation
import RunAnywhere

/// A `response` object: the request's settings echoed, the `output` items, `status`
/// (`queued` and `in_progress` until it ends `completed`, `incomplete` with
/// `incomplete_details.reason` `max_output_tokens`, `failed` with `error`, or `cancelled`) and
/// `usage`. Stored responses are kept as this JSON.
struct ResponseObject: Codable, Sendable {
    /// `usage`: tokens read (`cached_tokens` of them from the prompt cache) and written (`reasoning_tokens` of them thinking).
    struct ResponseUsage: Codable, Sendable {
        struct InputDetails: Codable, Sendable {
            let cachedTokens: Int
            enum CodingKeys: String, CodingKey { case cachedTokens = "cached_tokens" }
        }
        struct OutputDetails: Codable, Sendable {
            let reasoningTokens: Int
            enum CodingKeys: String, CodingKey { case reasoningTokens = "reasoning_tokens" }
        }
        let inputTokens: Int
        let inputTokensDetails: InputDetails
        let outputTokens: Int
        let outputTokensDetails: OutputDetails
        let totalTokens: Int

        enum CodingKeys: String, CodingKey {
            case inputTokens = "input_tokens", inputTokensDetails = "input_tokens_details", outputTokens = "output_tokens"
            case outputTokensDetails = "output_tokens_details", totalTokens = "total_tokens"
        }

        init(_ result: LLMGenerationResult) {
            inputTokens = result.inputTokens
            inputTokensDetails = InputDetails(cachedTokens: result.cachedInputTokens)
            outputTokens = result.tokensUsed
            outputTokensDetails = OutputDetails(reasoningTokens: result.thinkingTokens ?? 0)
            totalTokens = result.inputTokens + result.tokensUsed
        }
    }

    /// `incomplete_details`.
    struct IncompleteDetails: Codable, Sendable { let reason: String }
    /// `error` of a failed response.
    struct ResponseError: Codable, Sendable {
        let code: String
        let message: String
    }

    let id: String
    var object = "response"
    let createdAt: Int
    var status: String
    var completedAt: Int?
    var error: ResponseError?
    var incompleteDetails: IncompleteDetails?
    let instructions: String?
    let maxOutputTokens: Int?
    var model: String
    var output: [ResponseItem]
    let parallelToolCalls: Bool
    let previousResponseID: String?
    /// The conversation it continued, if it did.
    let conversation: ConversationReference?
    let reasoning: JSONValue?
    let store: Bool
    /// Whether it is made in the background; nil in responses stored before there was background mode.
    let background: Bool?
    let temperature: Float?
    let text: JSONValue
    let toolChoice: JSONValue
    let tools: [JSONValue]
    let topP: Float?
    /// `auto` or `disabled`, as the request asked (``ResponseRequest/truncation``).
    let truncation: String
    var usage: ResponseUsage?
    let metadata: [String: String]

    enum CodingKeys: String, CodingKey {
        case id, object, createdAt = "created_at", status, completedAt = "completed_at", error, incompleteDetails = "incomplete_details"
        case instructions, maxOutputTokens = "max_output_tokens", model, output, parallelToolCalls = "parallel_tool_calls"
        case previousResponseID = "previous_response_id", conversation, reasoning, store, background, temperature, text, toolChoice =
            "tool_choice", tools
        case topP = "top_p", truncation, usage, metadata
    }

    /// The response `request` starts, in progress (queued in the background) with no output yet;
    /// `ordered` is the request body parsed with its keys in order, for the echoed tools and text format.
    init(id: String, request: ResponseRequest, ordered: JSONValue?) {
        self.id = id
        createdAt = Int(Date().timeIntervalSince1970)
        status = request.background ? "queued" : "in_progress"
        background = request.background
        instructions = request.instructions
        maxOutputTokens = request.maxOutputTokens
        model = request.model
        output = []
        parallelToolCalls = request.parallelToolCalls ?? false
        previousResponseID = request.previousResponseID
        conversation = request.conversation
        reasoning = request.reasoning == .null ? nil : request.reasoning
        store = request.store
        temperature = request.temperature
        text = ordered?["text"].flatMap { $0.objectValue == nil ? nil : $0 } ?? ["format": ["type": "text"]]
        toolChoice = request.toolChoice ?? "auto"
        tools = ordered?["tools"]?.arrayValue ?? []
        topP = request.topP
        truncation = request.truncation
        metadata = request.metadata ?? [:]
    }

    /// Finished with `result` and its `output` items: `incomplete` when it stopped at
    /// `max_output_tokens`, `completed` otherwise.
    mutating func finish(_ result: LLMGenerationResult, output: [ResponseItem]) {
        self.output = output
        model = result.modelUsed
        usage = ResponseUsage(result)
        completedAt = Int(Date().timeIntervalSince1970)
        if result.stopReason == .length {
            status = "incomplete"
            incompleteDetails = IncompleteDetails(reason: "max_output_tokens")
        } else {
            status = "completed"
        }
    }

    /// Failed with `error`, keeping the `output` items made before it.
    mutating func fail(_ error: APIError, output: [ResponseItem]) {
        self.output = output
        status = "failed"
        self.error = ResponseError(code: error.code ?? "server_error", message: error.message)
    }

    /// Cancelled, keeping the `output` items made before it.
    mutating func cancel(output: [ResponseItem]) {
        self.output = output
        status = "cancelled"
    }

    /// Whether it has ended: no longer `queued` or `in_progress`.
    var hasEnded: Bool { status != "queued" && status != "in_progress" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(object, forKey: .object)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(completedAt, forKey: .completedAt)
        // null rather than absent, as OpenAI sends them.
        try container.encode(error, forKey: .error)
        try container.encode(incompleteDetails, forKey: .incompleteDetails)
        try container.encode(instructions, forKey: .instructions)
        try container.encode(maxOutputTokens, forKey: .maxOutputTokens)
        try container.encode(model, forKey: .model)
        try container.encode(output, forKey: .output)
        try container.encode(parallelToolCalls, forKey: .parallelToolCalls)
        try container.encode(previousResponseID, forKey: .previousResponseID)
        try container.encodeIfPresent(conversation, forKey: .conversation)
        try container.encode(reasoning, forKey: .reasoning)
        try container.encode(store, forKey: .store)
        try container.encode(background ?? false, forKey: .background)
        try container.encode(temperature, forKey: .temperature)
        try container.encode(text, forKey: .text)
        try container.encode(toolChoice, forKey: .toolChoice)
        try container.encode(tools, forKey: .tools)
        try container.encode(topP, forKey: .topP)
        try container.encode(truncation, forKey: .truncation)
        try container.encode(usage, forKey: .usage)
        try container.encode(metadata, forKey: .metadata)
    }
}
