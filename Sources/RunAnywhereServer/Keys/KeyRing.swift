import Foundation
import RunAnywhere

/// The keys a running server checks requests against: the store's keys not revoked, read again
/// whenever the store's file changes (a key created or revoked by `runanywhere keys` or the
/// admin routes counts from the next request) or, in the replicas' database, at most every half
/// second, and the single `--api-key`, which acts as an admin key.
package actor KeyRing {
    /// Who made a request: a key of the store, or the server's single key.
    package enum Holder: Sendable, Equatable {
        case key(APIKeyRecord)
        case serverKey

        /// Whether the holder may make a request that needs `scope`.
        package func allows(_ scope: KeyScope) -> Bool {
            switch self {
            case .key(let record): record.allows(scope)
            case .serverKey: true
            }
        }

        /// The account its requests act for; nil for the server's own.
        package var account: String? {
            switch self {
            case .key(let record): record.account
            case .serverKey: nil
            }
        }

        /// The most requests it may make a minute; nil for no limit.
        package var requestsPerMinute: Int? {
            if case .key(let record) = self { record.requestsPerMinute } else { nil }
        }

        /// The name the server's own key's requests are counted under, which no stored key may take.
        package static let serverKeyName = "server"

        /// The name requests are counted under.
        package var name: String {
            switch self {
            case .key(let record): record.name
            case .serverKey: Self.serverKeyName
            }
        }
    }

    private let store: APIKeyStore
    private let serverKey: String?
    private var keys: [String: (record: APIKeyRecord, hash: String)] = [:]
    private var readFrom: FileIdentity?
    private var readAt: ContinuousClock.Instant?
    /// The read in flight: requests that come meanwhile wait for it instead of reading again
    /// (and an older read never lands after a newer one).
    private var reading: Task<[(record: APIKeyRecord, hash: String)], any Error>?
    /// Each rate-limited key's requests left and when they were counted: a bucket that holds a
    /// minute's requests and refills continuously.
    private var buckets: [String: (left: Double, at: ContinuousClock.Instant)] = [:]

    package init(store: APIKeyStore, serverKey: String?) {
        self.store = store
        self.serverKey = serverKey?.isEmpty == false ? serverKey : nil
    }

    /// Whether requests need a key: the server has its own, or the store has one not revoked.
    package func required() async throws -> Bool {
        try await refresh()
        return serverKey != nil || !keys.isEmpty
    }

    /// Who `presented` belongs to; nil when it is no key of the server's.
    package func holder(of presented: String) async throws -> Holder? {
        if let serverKey, ConstantTime.equal(presented, serverKey) { return .serverKey }
        try await refresh()
        guard let id = APIKeyStore.id(of: presented), let entry = keys[id], ConstantTime.equal(APIKeyStore.hash(presented), entry.hash)
        else { return nil }
        return .key(entry.record)
    }

    /// Counts a request of `holder` against its key's rate limit (in the store, when the servers
    /// on it count together); nil when it may go on, else the seconds until it may.
    package func admit(_ holder: Holder, now: ContinuousClock.Instant = .now) async throws -> Double? {
        guard case .key(let record) = holder, let limit = record.requestsPerMinute else { return nil }
        if let shared = store.sharedRateLimits { return try await shared.admit(record) }
        let rate = Double(limit) / 60
        var bucket = buckets[record.id] ?? (Double(limit), now)
        bucket.left = min(Double(limit), bucket.left + (now - bucket.at).inSeconds * rate)
        bucket.at = now
        defer { buckets[record.id] = bucket }
        guard bucket.left >= 1 else { return (1 - bucket.left) / rate }
        bucket.left -= 1
        return nil
    }

    /// Reads the store again if it changed since it was last read: its file's identity changed,
    /// or (a database) the last read is older than its poll interval.
    private func refresh() async throws {
        let now = ContinuousClock.now
        let identity = store.file.flatMap { FileIdentity(path: $0.path) }
        if let readAt {
            switch store.changes {
            case .file: guard identity != readFrom else { return }
            case .polled(let interval): guard now - readAt >= interval else { return }
            }
        }
        if let reading { return apply(try await reading.value) }
        let read = Task { [store] in try await store.active() }
        reading = read
        defer { reading = nil }
        apply(try await read.value)
        readFrom = identity
        readAt = now
    }

    private func apply(_ active: [(record: APIKeyRecord, hash: String)]) {
        keys = Dictionary(active.map { ($0.record.id, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
