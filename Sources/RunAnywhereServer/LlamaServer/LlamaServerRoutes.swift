import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// llama-server's own routes, for the clients written against it: `POST /completion` (a prompt
/// read verbatim: text, token ids, or both mixed; or several prompts, answered side by side) and `POST /infill` (a code model fills the gap between
/// `input_prefix` + `prompt` and `input_suffix`, with `input_extra` files as context: what
/// llama.vim and llama.vscode ask at the cursor), whole, or with `stream` as server-sent events
/// of `{"content", "stop": false}` pieces and the whole answer last (`stop` true); `GET /props`
/// (``LlamaProps``) and `POST /apply-template` (a chat request's prompt, as the model would read
/// it). llama-server serves one model: here a request's `model` names one, else the default model.
struct LlamaServerRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("completion") { request, _ in
            let body = try await decodeCompletion(request)
            let (model, options, keepAlive) = try settings(body)
            guard !body.prompts.isEmpty else { throw APIError(.badRequest, "prompt is required", param: "prompt") }
            // Several prompts are generated side by side, as the engine batches any requests.
            var generations: [GenerationEvents] = []
            do {
                for (index, prompt) in body.prompts.enumerated() {
                    do {
                        let resolved = try await prompt.resolved(
                            on: runtime, model: model, loadOptions: configuration.loadOptions, keepAlive: keepAlive)
                        generations.append(
                            try await resolved.generate(
                                on: runtime, options: options, model: model, loadOptions: configuration.loadOptions, keepAlive: keepAlive))
                    } catch let error as SDKError where error.code == .invalidInput {
                        // What the options do not explain is the prompt's (an id outside the vocabulary).
                        throw APIError.from(error).naming(body.prompts.count > 1 ? "prompt.\(index)" : "prompt")
                    }
                }
            } catch {
                generations.forEach { $0.cancel() }
                throw error
            }
            return try await respond(generations, to: body, maxTokens: options.maxTokens)
        }
        router.post("infill") { request, _ in
            let body = try await decodeCompletion(request)
            let (model, options, keepAlive) = try settings(body)
            let generation = try await runtime.generateEvents(
                infill: try body.infill(), options: options, model: model, loadOptions: configuration.loadOptions, keepAlive: keepAlive)
            return try await respond([generation], to: body, maxTokens: options.maxTokens)
        }
        router.get("props") { request, _ in
            let id = request.uri.queryParameters.get("model") ?? RunAnywhere.defaultModelID
            guard let model = try? runtime.model(id: id), model.isDownloaded else {
                throw APIError(.notFound, "The model '\(id)' does not exist or is not installed", param: "model", code: "model_not_found")
            }
            guard [.language, .multimodal].contains(model.category) else {
                throw SDKError(.modelIncompatible, "Model '\(id)' is \(model.category.aModel), not a language model")
            }
            let metadata = try await runBlocking { [runtime] in try runtime.metadata(of: model) }
            let loaded = await runtime.loadedModels().contains { $0.modelId == model.id && $0.state == .loaded }
            return try jsonResponse(LlamaProps(model, metadata: metadata, configuration: configuration, loaded: loaded))
        }
        router.post("apply-template") { request, _ in
            let data = Data(buffer: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            // A chat completion's request, its model optional as on llama-server (the default model).
            var body = try decodeJSON(ChatCompletionRequest.self, from: Self.namingTheDefaultModel(data))
            let ordered = try? JSONValue(parsing: data)
            body.fields.keepSchemaOrder(from: ordered)
            body.tools.keepSchemaOrder(from: ordered)
            var options = try body.fields.options(
                threads: configuration.threads, applyChatTemplate: true, adapters: ServedLoRAAdapters(runtime: runtime),
                defaults: runtime.defaults(of: body.fields.model))
            try body.tools.apply(to: &options)
            let plan = try await runtime.preparePrompt(
                continuing: try body.conversation(), options: options, model: body.fields.model, loadOptions: configuration.loadOptions,
                keepAlive: body.fields.keepAlive?.value ?? configuration.keepAlive)
            return try jsonResponse(["prompt": plan.prompt])
        }
    }

    /// The body of `/completion` or `/infill`, its `json_schema` in the order the client wrote it.
    private func decodeCompletion(_ request: Request) async throws -> LlamaCompletionRequest {
        let data = Data(buffer: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
        var body = try decodeJSON(LlamaCompletionRequest.self, from: data)
        body.keepSchemaOrder(from: try? JSONValue(parsing: data))
        return body
    }

    /// `data` with `"model"` set to the default model when it is a JSON object that names none.
    private static func namingTheDefaultModel(_ data: Data) -> Data {
        guard case .object(var object)? = try? JSONValue(parsing: data), object["model"] == nil else { return data }
        object["model"] = .string(RunAnywhere.defaultModelID)
        return Data(JSONValue.object(object).text.utf8)
    }

    /// The model the request names (the default model when none), its options on the server's
    /// threads, and how long the model stays loaded.
    private func settings(_ body: LlamaCompletionRequest) throws -> (String, LLMGenerationOptions, KeepAlive) {
        let model = try runtime.model(id: body.model ?? RunAnywhere.defaultModelID)
        return (model.id, body.options(threads: configuration.threads, defaults: model.defaults), body.keepAlive ?? configuration.keepAlive)
    }

    /// The answers to one prompt or several, as llama-server gives them: whole, an object (an
    /// array in the prompts' order for several), each with its `index` and only its
    /// `response_fields` when the request names them; streamed, each prompt's pieces and last
    /// event as they come (several interleaved), each with its prompt's `index`. `maxTokens` is
    /// the bound they were generated under.
    private func respond(_ generations: [GenerationEvents], to body: LlamaCompletionRequest, maxTokens: Int) async throws -> Response {
        guard body.stream else {
            var answers: [LlamaCompletion] = []
            do {
                for (index, generation) in generations.enumerated() {
                    var answer = LlamaCompletion(try await generation.result(), maxTokens: maxTokens, streamed: false)
                    answer.index = index
                    answers.append(answer)
                }
            } catch {
                generations.forEach { $0.cancel() }
                throw error
            }
            func whole(_ answers: [some Encodable]) throws -> Response {
                answers.count == 1 ? try jsonResponse(answers[0]) : try jsonResponse(answers)
            }
            guard let fields = body.responseFields else { return try whole(answers) }
            return try whole(answers.map { try LlamaCompletion.picking(fields, from: $0) })
        }
        let start = try LlamaCompletionStream(prompts: generations.count, maxTokens: maxTokens, responseFields: body.responseFields)
        return ServerSentEvents.response { writer in
            var stream = start
            let failure = { (error: APIError, writer: inout any ResponseBodyWriter) in
                var events = [try ServerSentEvents.error(error)]
                try await ServerSentEvents.send(&events, to: &writer)
            }
            // One prompt is relayed on its own, without the merging that several need.
            guard generations.count > 1 else {
                return try await generations[0].relay(
                    to: &writer,
                    event: { event, writer in
                        var events = try stream.events(of: event, prompt: 0)
                        try await ServerSentEvents.send(&events, to: &writer)
                    }, failure: failure)
            }
            try await GenerationEvents.relay(
                generations, to: &writer,
                event: { index, event, writer in
                    var events = try stream.events(of: event, prompt: index)
                    try await ServerSentEvents.send(&events, to: &writer)
                }, failure: failure, closing: { _ in })
        }
    }
}

/// The events a `/completion` or `/infill` stream sends for its prompts' generation events: a
/// piece of text each (from a template while no probabilities go with it), and each prompt's
/// last event, with only its `response_fields` when the request names them (llama-server cuts
/// the last chunk as it cuts a whole answer).
private struct LlamaCompletionStream {
    let pieces: [EventTemplate]
    let maxTokens: Int
    let responseFields: [String]?
    /// The probabilities of each prompt's tokens not yet sent with their text.
    var probabilities: [Int: [TokenLogprob]] = [:]

    init(prompts: Int, maxTokens: Int, responseFields: [String]?) throws {
        pieces = try (0..<prompts).map { index in
            try EventTemplate {
                var piece = LlamaCompletion(piece: $0, probabilities: nil)
                piece.index = index
                return piece
            }
        }
        self.maxTokens = maxTokens
        self.responseFields = responseFields
    }

    mutating func events(of event: GenerationEvent, prompt index: Int) throws -> [ServerSentEvent] {
        switch event {
        case .logprobs(let tokens): probabilities[index, default: []] += tokens
        case .text(let text) where probabilities[index] == nil: return [try pieces[index].event(text)]
        case .text(let text):
            var piece = LlamaCompletion(piece: text, probabilities: probabilities.removeValue(forKey: index))
            piece.index = index
            return [try ServerSentEvents.event(piece)]
        case .completed(let result):
            var answer = LlamaCompletion(result, maxTokens: maxTokens, streamed: true)
            answer.index = index
            guard let responseFields else { return [try ServerSentEvents.event(answer)] }
            return [try ServerSentEvents.event(try LlamaCompletion.picking(responseFields, from: answer))]
        case .reasoning, .toolCall, .promptLogprobs: break
        }
        return []
    }
}
