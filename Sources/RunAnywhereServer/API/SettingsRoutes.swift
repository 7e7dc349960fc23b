import Foundation
import Hummingbird
import RunAnywhere

/// RunAnywhere's settings API, which the web app's Settings page uses (the same files as
/// `runanywhere settings` and `runanywhere env`):
/// - `GET /api/settings`: the generation defaults; `PATCH /api/settings` with some of
///   `temperature`, `maxTokens`, `topP`, `topK`, `systemPrompt`, `streaming`, `threads`,
///   `speculate`, `draftModel` (null clears `systemPrompt`, `threads`, `speculate` and
///   `draftModel`; a draft model must be a GGUF file or a language model's id) checks and saves
///   them; `DELETE /api/settings` restores
///   the defaults;
/// - `GET /api/environment`: each environment with its base URL and its API key masked;
///   `PUT /api/environment` with `environment` and optional `baseURL` and `apiKey` selects it
///   (the key is stored readable only by the user and only ever returned masked); a refusal
///   names the field to correct (`apiKey` or `baseURL`) in `param`.
final class SettingsRoutes: Sendable {
    let settings: ServerSettings
    let environments: EnvironmentStore
    let maxBodySize: Int
    /// Where a draft model's id is looked up.
    let catalog: @Sendable (String) throws -> ModelInfo

    init(dataDirectory: URL, configuration: ServerConfiguration, catalog: @escaping @Sendable (String) throws -> ModelInfo) {
        self.catalog = catalog
        settings = ServerSettings(dataDirectory: dataDirectory, configuration: configuration)
        let maxBodySize = configuration.maxBodySize
        environments = EnvironmentStore(dataDirectory: dataDirectory)
        self.maxBodySize = maxBodySize
    }

    struct Environments: Encodable, Sendable { let environments: [EnvironmentStatus] }

    struct EnvironmentChange: Decodable, Sendable {
        let environment: SDKEnvironment
        let baseURL: String?
        let apiKey: String?
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("api/settings") { [self] _, _ in try jsonResponse(try await settings.load()) }
        router.patch("api/settings") { [self] request, _ in
            let changes = try await decodeJSON([String: SettingValue].self, from: request, limit: maxBodySize)
            return try jsonResponse(
                try await settings.update { updated in
                    for key in changes.keys.sorted() {
                        do {
                            try updated.set(key, to: changes[key]!.text(clearing: key))
                        } catch let error as SDKError {
                            throw APIError(.badRequest, error.message, param: key)
                        }
                    }
                    do {
                        // Only a draft model being set: one saved before and deleted since refuses no other change.
                        if changes["draftModel"] != nil { try updated.checkDraftModel(model: self.catalog) }
                    } catch let error as SDKError {
                        throw APIError(.badRequest, error.message, param: "draftModel")
                    }
                })
        }
        router.delete("api/settings") { [self] _, _ in
            try await settings.reset()
            return try jsonResponse(GenerationSettings())
        }
        router.get("api/environment") { [self] _, _ in try jsonResponse(Environments(environments: try environments.statuses())) }
        router.put("api/environment") { [self] request, _ in
            let change = try await decodeJSON(EnvironmentChange.self, from: request, limit: maxBodySize)
            do {
                try environments.use(change.environment, baseURL: change.baseURL, apiKey: change.apiKey)
            } catch let error as SDKError where error.code == .invalidConfiguration {
                // A key is checked first, then the base URL: name the field to correct.
                let stored = try environments.statuses().first { $0.environment == change.environment }?.maskedAPIKey != nil
                let given = change.apiKey.map { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
                throw APIError(.badRequest, error.message, param: given ?? stored ? "baseURL" : "apiKey", code: error.code.rawValue)
            }
            return try jsonResponse(Environments(environments: try environments.statuses()))
        }
    }
}

/// A setting's new value as JSON gives it: a number, a boolean, a string, or null.
enum SettingValue: Decodable, Sendable {
    case number(Double)
    case bool(Bool)
    case string(String)
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// The value as ``RunAnywhere/GenerationSettings/set(_:to:)`` reads it; null clears `key`.
    func text(clearing key: String) -> String {
        switch self {
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .bool(let value): value ? "on" : "off"
        case .string(let value): value
        case .null: ["threads", "speculate"].contains(key) ? "auto" : ""
        }
    }
}
