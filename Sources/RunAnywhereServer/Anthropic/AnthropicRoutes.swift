import Foundation
import Hummingbird
import RunAnywhere

/// Anthropic's Messages API: `POST /v1/messages` (an answer, whole or streamed as Anthropic's
/// events) and `POST /v1/messages/count_tokens`. The request maps onto the same SDK calls as
/// chat completions, and the SDK's one stream of typed events onto Anthropic's content blocks:
/// nothing parses the model's output again. Errors take Anthropic's shape (``ErrorShape/anthropic``).
struct AnthropicRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    func register(on router: some RouterMethods<ServerContext>) {
        let v1 = router.group("v1")
        v1.post("messages") { request, _ in
            let data = Data(buffer: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            var body = try decodeJSON(AnthropicMessagesRequest.self, from: data)
            body.prompt.keepSchemaOrder(from: try? JSONValue(parsing: data))
            return try await answer(body)
        }
        v1.post("messages/count_tokens") { request, _ in
            let data = Data(buffer: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            var prompt = try decodeJSON(AnthropicPrompt.self, from: data)
            prompt.keepSchemaOrder(from: try? JSONValue(parsing: data))
            var options = LLMGenerationOptions(maxTokens: 1, threads: configuration.threads)
            try prompt.apply(to: &options)
            let plan = try await runtime.preparePrompt(
                continuing: try prompt.conversation(), options: options, model: prompt.model, loadOptions: configuration.loadOptions,
                keepAlive: configuration.keepAlive, whole: true  // a count says whether a prompt fits: never refused for not fitting
            )
            return try jsonResponse(AnthropicTokenCount(inputTokens: plan.inputTokens))
        }
    }

    /// Generates the assistant's next message, and answers with it whole or streams it.
    private func answer(_ body: AnthropicMessagesRequest) async throws -> Response {
        let generation = try await runtime.generateEvents(
            continuing: try body.prompt.conversation(),
            options: try body.options(threads: configuration.threads, defaults: runtime.defaults(of: body.prompt.model)),
            model: body.prompt.model,
            loadOptions: configuration.loadOptions, keepAlive: configuration.keepAlive
        )
        let id = "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        guard body.stream else {
            return try jsonResponse(
                AnthropicMessage(id: id, result: try await generation.result(), showsThinking: body.prompt.showsThinking))
        }
        let events = AnthropicEventWriter(
            id: id, model: body.prompt.model, showsThinking: body.prompt.showsThinking, generation: generation)
        return ServerSentEvents.response { writer in try await events.write(to: &writer) }
    }
}
