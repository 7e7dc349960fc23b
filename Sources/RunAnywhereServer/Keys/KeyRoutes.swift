import Foundation
import Hummingbird
import RunAnywhere

/// The key store over HTTP, for an admin key (``KeyScope/admin``; or anyone on loopback while no
/// key exists, as `runanywhere keys` there):
/// - `GET /api/keys`: every key, revoked ones too, never a secret;
/// - `POST /api/keys` with `name`, optional `scopes` (default `["inference"]`), `account`
///   (default the name) and `requestsPerMinute` (default no limit): the new key's record and,
///   this once, the key;
/// - `DELETE /api/keys/{id}`: revokes the key (by id or name); 404 when no active key has it;
/// - `GET /api/keys/usage`: what each key used since the server started (``KeyUsage``); with the
///   replicas' database, on every replica since the database was made (``SharedKeyUsage``).
struct KeyRoutes: Sendable {
    let store: APIKeyStore
    let usage: KeyUsage
    let sharedUsage: SharedKeyUsage?
    let maxBodySize: Int

    struct Creation: Decodable, Sendable {
        let name: String
        let scopes: [KeyScope]?
        let account: String?
        /// A whole number: 1.5 or 1e20 is a 400 that names the field.
        @NumberField var requestsPerMinute: Int?
    }

    struct Created: Encodable, Sendable {
        let record: APIKeyRecord
        let key: String
    }

    struct Listing: Encodable, Sendable { let keys: [APIKeyRecord] }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("api/keys") { [store] _, _ in try jsonResponse(Listing(keys: try await store.list())) }
        router.get("api/keys/usage") { [usage, sharedUsage] _, _ in
            guard let sharedUsage else { return try jsonResponse(usage.listing) }
            do {
                return try jsonResponse(try await sharedUsage.listing())
            } catch {
                throw APIError(
                    .serviceUnavailable, "The keys' usage cannot be read from the database: \(error)", code: "database_unavailable")
            }
        }
        router.post("api/keys") { [store, maxBodySize] request, _ in
            let creation = try await decodeJSON(Creation.self, from: request, limit: maxBodySize)
            let (record, key): (APIKeyRecord, String)
            do {
                (record, key) = try await store.create(
                    name: creation.name, account: creation.account ?? creation.name, scopes: creation.scopes ?? [.inference],
                    requestsPerMinute: creation.requestsPerMinute)
            } catch let error as SDKError where error.code == .modelAlreadyExists {
                throw APIError(.conflict, error.message, param: "name", code: "key_name_taken")
            } catch let error as SDKError where error.code == .invalidInput {
                let param =
                    error.message.contains("account")
                    ? "account"
                    : error.message.contains("scope") ? "scopes" : error.message.contains("rate limit") ? "requestsPerMinute" : "name"
                throw APIError(.badRequest, error.message, param: param, code: "invalid_key")
            }
            return try jsonResponse(Created(record: record, key: key), status: .created)
        }
        router.delete("api/keys/:id") { [store] _, context in
            let id = try context.pathParameter("id")
            guard try await store.revoke(id) else {
                throw APIError(.notFound, "No active key has the id or name '\(id)'", code: "key_not_found")
            }
            return Response(status: .noContent)
        }
    }
}
