import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// llama-server's own completion routes, for the clients written against it: `POST /completion`
/// (a prompt read verbatim, text or token ids) and `POST /infill` (a code model fills the gap
/// between `input_prefix` + `prompt` and `input_suffix`, with `input_extra` files as context:
/// what llama.vim and llama.vscode ask at the cursor). Whole, or with `stream` as server-sent
/// events of `{"content", "stop": false}` pieces and the whole answer last (`stop` true).
struct LlamaServerRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("completion") { request, _ in
            let body = try await decodeJSON(LlamaCompletionRequest.self, from: request, limit: configuration.maxBodySize)
            let (model, options, keepAlive) = try settings(body)
            guard let prompt = body.prompt else { throw APIError(.badRequest, "prompt is required", param: "prompt") }
            let generation = try await prompt.generate(
                on: runtime, options: options, model: model, loadOptions: configuration.loadOptions, keepAlive: keepAlive)
            return try await respond(generation, to: body, maxTokens: options.maxTokens)
        }
        router.post("infill") { request, _ in
            let body = try await decodeJSON(LlamaCompletionRequest.self, from: request, limit: configuration.maxBodySize)
            let (model, options, keepAlive) = try settings(body)
            let generation = try await runtime.generateEvents(
                infill: try body.infill(), options: options, model: model, loadOptions: configuration.loadOptions, keepAlive: keepAlive)
            return try await respond(generation, to: body, maxTokens: options.maxTokens)
        }
    }

    /// The model the request names (the default model when none), its options on the server's
    /// threads, and how long the model stays loaded.
    private func settings(_ body: LlamaCompletionRequest) throws -> (String, LLMGenerationOptions, KeepAlive) {
        let model = try runtime.model(id: body.model ?? RunAnywhere.defaultModelID)
        return (model.id, body.options(threads: configuration.threads, defaults: model.defaults), body.keepAlive ?? configuration.keepAlive)
    }

    /// The whole answer (its `response_fields` only, when the request names them), or the stream;
    /// `maxTokens` is the bound it was generated under.
    private func respond(_ generation: GenerationEvents, to body: LlamaCompletionRequest, maxTokens: Int) async throws -> Response {
        guard body.stream else {
            let answer = LlamaCompletion(try await generation.result(), maxTokens: maxTokens, streamed: false)
            guard let fields = body.responseFields else { return try jsonResponse(answer) }
            return try jsonResponse(try LlamaCompletion.picking(fields, from: answer))
        }
        return ServerSentEvents.response { writer in
            var probabilities: [TokenLogprob]?
            try await generation.relay(
                to: &writer,
                event: { event, writer in
                    var events: [ServerSentEvent] = []
                    switch event {
                    case .logprobs(let tokens): probabilities = (probabilities ?? []) + tokens
                    case .text(let piece):
                        events = [try ServerSentEvents.event(LlamaCompletion(piece: piece, probabilities: probabilities))]
                        probabilities = nil
                    case .completed(let result):
                        events = [try ServerSentEvents.event(LlamaCompletion(result, maxTokens: maxTokens, streamed: true))]
                    case .reasoning, .toolCall, .promptLogprobs: break
                    }
                    try await ServerSentEvents.send(&events, to: &writer)
                },
                failure: { error, writer in
                    var events = [try ServerSentEvents.error(error)]
                    try await ServerSentEvents.send(&events, to: &writer)
                })
        }
    }
}
