import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereServer

/// `runanywhere keys …`: the API keys of a shared server, each with its name, account and scopes.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Create, list and revoke the API keys `serve` accepts.",
        discussion: """
            Once any key exists, every request to `serve` needs one (Authorization: Bearer KEY, or \
            x-api-key: KEY), on every route but /health, loopback included; with none, a server on \
            loopback lets everyone in, as before. A key is shown once, when it is made: the data \
            folder's keys.sqlite keeps only its hash. Scopes: \(APIKeyStore.scopeNames) (admin may \
            do everything). A running server sees a new or revoked key from its next request.
            """,
        subcommands: [Create.self, List.self, Revoke.self], defaultSubcommand: List.self
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Make a key and print it, once.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: ServerDatabaseOption
        @Argument(help: "A name for the key, unique among the keys not revoked.") var name: String
        @Option(name: .long, help: "What the key may do (repeatable): \(APIKeyStore.scopeNames).") var scope: [String] = ["inference"]
        @Option(name: .long, help: "The account the key acts for (default: its name).") var account: String?
        @Option(name: .customLong("rate-limit"), help: "The most requests the key may make a minute (default: no limit).")
        var rateLimit: Int?
        @Flag(name: .long, help: "Print one JSON object: the key's record and the key.") var json = false

        func validate() throws {
            for name in scope where KeyScope(rawValue: name) == nil {
                throw ValidationError("Unknown scope '\(name)'; the scopes are \(APIKeyStore.scopeNames)")
            }
            if let rateLimit, !(1...1_000_000).contains(rateLimit) { throw ValidationError("--rate-limit must be 1 to 1000000") }
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let (record, key) = try await database.withKeys(context) { store in
                    try await store.create(
                        name: name, account: account ?? name, scopes: scope.compactMap(KeyScope.init(rawValue:)),
                        requestsPerMinute: rateLimit)
                }
                if json { return try JSONOutput.print(Created(record: record, key: key)) }
                Terminal.write(
                    "\(key)\n\nKey '\(record.name)' (id \(record.id)) for account '\(record.account)', scopes \(record.scopes.map(\.rawValue).joined(separator: " ")). It is not shown again: keep it now.\n"
                )
            }
        }

        struct Created: Encodable {
            let record: APIKeyRecord
            let key: String
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the keys (never their secrets).")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: ServerDatabaseOption
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { context in
                let keys = try await database.withKeys(context) { try await $0.list() }
                if json { return try JSONOutput.print(keys) }
                guard !keys.isEmpty else {
                    return Terminal.write("No keys: a server on loopback lets everyone in. Make one with 'runanywhere keys create NAME'.\n")
                }
                for key in keys {
                    let state = key.revokedAt.map { "revoked \($0.formatted(.iso8601))" } ?? "active"
                    let limit = key.requestsPerMinute.map { "  \($0)/min" } ?? ""
                    Terminal.write(
                        "\(key.id)  \(key.name)  account \(key.account)  \(key.scopes.map(\.rawValue).joined(separator: " "))\(limit)  \(state)\n"
                    )
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a key, by id or name.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: ServerDatabaseOption
        @Argument(help: "The key's id or name.") var key: String

        func run() async throws {
            try await CLIContext.run(global) { context in
                guard try await database.withKeys(context, { try await $0.revoke(key) }) else {
                    throw SDKError(.invalidInput, "No key not yet revoked has the id or name '\(key)'")
                }
                Terminal.write("Revoked '\(key)': servers refuse it from their next request.\n")
            }
        }
    }
}
