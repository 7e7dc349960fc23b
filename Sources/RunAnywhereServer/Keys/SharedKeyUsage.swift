import Foundation
import Logging
import ServiceLifecycle

/// The API keys' usage of every replica, through the replicas' database: this replica adds what
/// it counted (``KeyUsage/takeUnshared()``) every ``interval`` and when it stops, and
/// `GET /api/keys/usage` adds it at once, then reads the totals. Another replica's last
/// second of counts may not be in them yet.
actor SharedKeyUsage {
    /// How often the counts go to the database.
    static let interval: Duration = .seconds(1)

    let usage: KeyUsage
    let store: PostgresKeyUsage
    let logger: Logger

    init(usage: KeyUsage, store: PostgresKeyUsage, logger: Logger) {
        self.usage = usage
        self.store = store
        self.logger = logger
    }

    /// Adds what this replica counted since it last did. Counts the database did not take are
    /// kept for the next time (a write whose answer was lost after it committed counts twice,
    /// which is rarer than a database that is away for a moment).
    func share() async throws {
        let counts = usage.takeUnshared()
        do {
            try await store.add(counts)
        } catch {
            usage.giveBack(counts)
            throw error
        }
    }

    /// Every key's usage over every replica, this one's up to now.
    func listing() async throws -> KeyUsage.Listing {
        try await share()
        return KeyUsage.Listing(keys: try await store.totals())
    }
}

extension SharedKeyUsage: Service {
    /// Shares the counts every ``interval`` until the server shuts down, then once more.
    nonisolated func run() async throws {
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: Self.interval)) != nil {
                do { try await self.share() } catch {
                    self.logger.warning("The keys' usage could not be shared", metadata: ["error": "\(error)"])
                }
            }
        }
        do { try await share() } catch { logger.warning("The keys' last usage could not be shared", metadata: ["error": "\(error)"]) }
    }
}
