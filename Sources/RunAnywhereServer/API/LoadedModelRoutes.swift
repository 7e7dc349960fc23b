import Foundation
import Hummingbird
import RunAnywhere

/// RunAnywhere's own API for what OpenAI has no word for: `GET /api/ps`, the language models
/// loaded or loading, with their state, memory, requests in use and keep-alive (like ollama's
/// `/api/ps`).
struct LoadedModelRoutes: Sendable {
    let runtime: RunAnywhereRuntime

    struct LoadedModels: Encodable, Sendable {
        let models: [LoadedModelStatus]
        let memoryBudgetBytes: Int64
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("api/ps") { _, _ in
            try jsonResponse(LoadedModels(models: await runtime.loadedModels(), memoryBudgetBytes: await runtime.modelMemoryBudget))
        }
    }
}
