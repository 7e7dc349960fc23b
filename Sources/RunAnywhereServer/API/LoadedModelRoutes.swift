import Foundation
import Hummingbird
import RunAnywhere

/// RunAnywhere's own API for what OpenAI has no word for: `GET /api/models/loaded`, the language
/// models loaded or loading, with their state, memory, requests in use and keep-alive (ollama's
/// `/api/ps` is served in ollama's shape by ``OllamaModelRoutes``); `POST /api/models/{id}/load`
/// (optional `keepAlive`, as the completion routes take `keep_alive`, and `gpuLayers`, the layers
/// to place on a GPU, 0 for the CPU) loads a language model so that the next request starts at once, and answers with its status (a model already loaded
/// keeps where it runs); `DELETE /api/models/{id}/load` unloads it once its requests end (204).
struct LoadedModelRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    /// `keepAlive` and `gpuLayers`, camelCase as the rest of RunAnywhere's `/api`; `keep_alive`
    /// and `gpu_layers`, this route's older spelling, are read too.
    struct LoadRequest: Decodable, Sendable {
        let keepAlive: KeepAliveField?
        let gpuLayers: Int?
        enum CodingKeys: String, CodingKey { case keepAlive, gpuLayers, olderKeepAlive = "keep_alive", olderGPULayers = "gpu_layers" }

        init() {
            (keepAlive, gpuLayers) = (nil, nil)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            keepAlive =
                try container.decodeIfPresent(KeepAliveField.self, forKey: .keepAlive)
                ?? container.decodeIfPresent(KeepAliveField.self, forKey: .olderKeepAlive)
            gpuLayers =
                try container.decode(NumberField<Int>.self, forKey: .gpuLayers).wrappedValue
                ?? container.decode(NumberField<Int>.self, forKey: .olderGPULayers).wrappedValue
        }
    }

    struct LoadedModels: Encodable, Sendable {
        let models: [LoadedModelStatus]
        let memoryBudgetBytes: Int64
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("api/models/loaded") { _, _ in
            try jsonResponse(LoadedModels(models: await runtime.loadedModels(), memoryBudgetBytes: await runtime.modelMemoryBudget))
        }
        router.post("api/models/:id/load") { request, context in
            let id = try context.pathParameter("id")
            let bytes = try await collectJSONBody(of: request, limit: configuration.maxBodySize, optional: true)
            let body = bytes.readableBytes == 0 ? LoadRequest() : try decodeJSON(LoadRequest.self, from: Data(buffer: bytes))
            var options = configuration.loadOptions
            if let layers = body.gpuLayers {
                guard layers >= 0 else { throw APIError(.badRequest, "gpuLayers cannot be negative", param: "gpuLayers") }
                options.gpuLayers = layers
            }
            let keepAlive = body.keepAlive?.value ?? configuration.keepAlive
            if keepAlive == .duration(.zero) {
                // Loading only to unload at once is a no-op; ollama's way to unload is DELETE here.
                throw APIError(
                    .badRequest, "keepAlive 0 would unload the model as soon as it is loaded; DELETE /api/models/\(id)/load unloads it",
                    param: "keepAlive")
            }
            try await runtime.preloadModel(id, options: options, keepAlive: keepAlive)
            guard let status = await runtime.loadedModels().first(where: { $0.modelId == id }) else {
                throw APIError(
                    .serviceUnavailable, "Model '\(id)' was unloaded again at once: another model needed its memory", code: "busy")
            }
            return try jsonResponse(status)
        }
        router.delete("api/models/:id/load") { _, context in
            let id = try context.pathParameter("id")
            _ = try runtime.model(id: id)
            await runtime.unloadModel(id: id)
            return Response(status: .noContent)
        }
    }
}
