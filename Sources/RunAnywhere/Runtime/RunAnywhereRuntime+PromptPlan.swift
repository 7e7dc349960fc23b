extension RunAnywhereRuntime {
    /// The prompt the model `model` would read to write the assistant's next message in
    /// `context`, as ``generateEvents(continuing:options:model:loadOptions:keepAlive:)`` plans it:
    /// formatted with its chat template (with the tools' or the output schema's instruction),
    /// fitted to its context window, and its length in tokens (each image counted as the tokens
    /// it becomes). The model is loaded as generation loads it; nothing is generated. `whole`
    /// keeps every message however long the prompt is, for counting what a request holds.
    package func preparePrompt(
        continuing context: Context, options: LLMGenerationOptions?, model: String, loadOptions: ModelLoadOptions,
        keepAlive: KeepAlive? = nil, whole: Bool = false
    ) async throws -> PromptPlan {
        let (history, turn) = try Self.split(context)
        let model = try catalog.model(id: model)
        let options = options ?? model.generationOptions
        try options.validate()
        let lease = try await acquire(model, options: loadOptions, keepAlive: keepAlive)
        defer { release(lease) }
        let loaded = try Self.images(newImages: turn.flatMap(\.images), context: history, service: lease.engine, model: lease.info)
        return try Self.plan(
            turn, loaded: loaded, context: history, options: options, model: lease.info, service: lease.engine, whole: whole
        )
        .plan
    }
}
