import Foundation
import HTTPTypes

/// What a key may do. `admin` may do everything; the others only what they name.
package enum KeyScope: String, Codable, Sendable, CaseIterable, Comparable {
    /// Run models: every route that generates, transcribes, speaks, embeds, ranks, answers from
    /// documents, or reads what the server has (models, conversations, settings).
    case inference
    /// Call the tools the server runs (`serve --mcp`, ``ServerConfiguration/chatTools``) in
    /// conversations' answers, and list them: they act as the server's user, on its machine.
    case tools
    /// Add, download, delete, load and unload models.
    case modelsManage = "models:manage"
    /// Everything, keys and the server's settings included.
    case admin

    /// The scopes in `text`, space-separated as the stores keep them; unknown names are left out.
    static func parse(_ text: String) -> [KeyScope] {
        text.split(separator: " ").compactMap { KeyScope(rawValue: String($0)) }
    }

    package static func < (a: KeyScope, b: KeyScope) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The scope a request needs: changing keys, settings, the environment, the server's LoRA
    /// scales or benchmarks is `admin`; adding, downloading, deleting, copying, making, loading
    /// or unloading models is `models:manage`; listing the server's tools is `tools` (an answer
    /// that may call them checks it too: ``RequestAccount/allows(_:)``); the rest is `inference`. `path` is best the route's
    /// template (what the router matched); a request's own path is read as the router reads it,
    /// empty components (`//api/keys`, a trailing `/`) and percent-encoding left out.
    package static func required(method: HTTPRequest.Method, path: String) -> KeyScope {
        let parts = path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        let path = parts.joined(separator: "/")
        let reads = method == .get || method == .head
        if path.hasPrefix("api/keys") { return .admin }
        if path == "api/tools" { return .tools }
        if !reads, ["api/settings", "api/environment", "lora-adapters"].contains(path) || path.hasPrefix("api/benchmarks") {
            return path.hasSuffix("/export") ? .inference : .admin
        }
        if !reads {
            // ollama's pull, delete, copy, create and blob uploads; our model routes: add, pull,
            // delete, load and unload.
            if ["api/pull", "api/delete", "api/copy", "api/create", "api/models"].contains(path) { return .modelsManage }
            if parts.count >= 3, parts[0] == "api", parts[1] == "blobs" || (parts[1] == "models" && parts[2] != "check") {
                return .modelsManage
            }
        }
        return .inference
    }
}

/// A key of the server's key store, as listed: never its secret, which is stored only as a hash.
package struct APIKeyRecord: Codable, Sendable, Equatable {
    /// The key's id, also the part of the key before its secret (`ra_<id>_<secret>`).
    package let id: String
    /// A name for people, unique among the keys not revoked.
    package let name: String
    /// The account the key's requests act for (its conversations, responses and collections).
    package let account: String
    /// What the key may do.
    package let scopes: [KeyScope]
    /// The most requests it may make a minute; nil for no limit.
    package var requestsPerMinute: Int?
    /// When it was created and, if it was, revoked.
    package let createdAt: Date
    package let revokedAt: Date?

    /// Whether the key may make a request that needs `scope`.
    package func allows(_ scope: KeyScope) -> Bool { scopes.contains(.admin) || scopes.contains(scope) }
}
