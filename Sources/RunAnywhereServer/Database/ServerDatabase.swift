import Foundation
import Logging
import PostgresNIO
import RunAnywhere
import RunAnywherePostgres
import Synchronization

/// The PostgreSQL database replicas of `runanywhere serve` share (`serve --database`): the state
/// a server otherwise keeps in its data folder's SQLite files, so that any replica behind a load
/// balancer answers for it: API keys (``APIKeyStore``) and their rate limits
/// (``PostgresRateBuckets``), stored responses (``ResponseStore``) and the Conversations API's
/// conversations (``ConversationItemStore``),
/// the generation settings (``ServerSettings``), conversations (``ServerConversations``) and which
/// replica answers in which (``PostgresAnswers``), and the
/// benchmark history (``PostgresBenchmarkHistory``); document collections go to the same
/// database through RunAnywherePostgres's RAG store. Each replica keeps its loaded models.
///
/// The tables are made by numbered migrations, each run once however many replicas start
/// together: every replica takes the same transaction-wide advisory lock, reads the versions
/// `runanywhere_schema` records, and applies only the later ones.
package final class ServerDatabase: Sendable {
    let server: PostgresServer
    let logger: Logger
    /// The advisory lock that orders the migrations.
    static let lock: Int64 = 0x5241_7365_7276  // "RAserv"

    /// Each migration's statements, in order; the version is the position plus one. Never edit
    /// one that has shipped: add another.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE runanywhere_api_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, account TEXT NOT NULL, scopes TEXT NOT NULL,
                rate_limit INTEGER, hash TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, revoked_at DOUBLE PRECISION)
            """,
            "CREATE UNIQUE INDEX runanywhere_api_keys_active_name ON runanywhere_api_keys (name) WHERE revoked_at IS NULL",
            """
            CREATE TABLE runanywhere_responses (account TEXT NOT NULL, id TEXT NOT NULL, created_at BIGINT NOT NULL,
                response TEXT NOT NULL, input TEXT NOT NULL, PRIMARY KEY (account, id))
            """,
            "CREATE INDEX runanywhere_responses_created_at ON runanywhere_responses (created_at)",
        ],
        ["CREATE TABLE runanywhere_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL)"],
        [
            """
            CREATE TABLE runanywhere_conversations (account TEXT NOT NULL, id TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL,
                body TEXT NOT NULL, PRIMARY KEY (account, id))
            """
        ],
        [
            """
            CREATE TABLE runanywhere_benchmark_runs (id TEXT PRIMARY KEY, started_at DOUBLE PRECISION NOT NULL,
                saved_at DOUBLE PRECISION NOT NULL, body TEXT NOT NULL)
            """
        ],
        [
            """
            CREATE TABLE runanywhere_rate_buckets (key_id TEXT PRIMARY KEY, requests_left DOUBLE PRECISION NOT NULL,
                counted_at DOUBLE PRECISION NOT NULL, admitted BOOLEAN NOT NULL)
            """
        ],
        [
            """
            CREATE TABLE runanywhere_answering (account TEXT NOT NULL, id TEXT NOT NULL, replica TEXT NOT NULL,
                seen_at DOUBLE PRECISION NOT NULL, stop_asked BOOLEAN NOT NULL, PRIMARY KEY (account, id))
            """,
            "CREATE INDEX runanywhere_answering_replica ON runanywhere_answering (replica)",
        ],
        [
            """
            CREATE TABLE runanywhere_key_usage (key_name TEXT PRIMARY KEY, requests BIGINT NOT NULL, rate_limited BIGINT NOT NULL,
                prompt_tokens BIGINT NOT NULL, completion_tokens BIGINT NOT NULL, audio_seconds_in DOUBLE PRECISION NOT NULL,
                audio_seconds_out DOUBLE PRECISION NOT NULL)
            """
        ],
        [
            """
            CREATE TABLE runanywhere_item_conversations (account TEXT NOT NULL, id TEXT NOT NULL, created_at BIGINT NOT NULL,
                metadata TEXT NOT NULL, PRIMARY KEY (account, id))
            """,
            """
            CREATE TABLE runanywhere_conversation_items (position BIGSERIAL PRIMARY KEY, account TEXT NOT NULL,
                conversation_id TEXT NOT NULL, id TEXT NOT NULL, item TEXT NOT NULL, UNIQUE (account, conversation_id, id),
                FOREIGN KEY (account, conversation_id) REFERENCES runanywhere_item_conversations (account, id) ON DELETE CASCADE)
            """,
        ],
    ]

    private init(server: PostgresServer, logger: Logger) {
        self.server = server
        self.logger = logger
    }

    /// Connects to the database at `url` (a `postgres://` URL, as ``RAGDatabases`` takes) and
    /// brings its tables up to date; gives up after `timeout` when the server cannot be reached
    /// (long enough for replicas started together to wait on one another's migrations on a busy
    /// machine).
    package static func open(url: String, logger: Logger, timeout: Duration = .seconds(60)) async throws -> ServerDatabase {
        let server = try await PostgresServer.open(url: url, logger: logger, timeout: timeout) { server in
            try await server.client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS runanywhere_schema (version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)",
                    logger: logger)
                var applied = 0
                for try await version in try await connection.query(
                    "SELECT COALESCE(MAX(version), 0) FROM runanywhere_schema", logger: logger
                ).decode(Int.self) {
                    applied = version
                }
                for (index, statements) in migrations.enumerated() where index + 1 > applied {
                    for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                    let version = index + 1
                    try await connection.query(
                        "INSERT INTO runanywhere_schema (version, applied_at) VALUES (\(version), \(Date().timeIntervalSince1970))",
                        logger: logger)
                    logger.info("Database migrated", metadata: ["version": "\(version)", "database": "\(server.location)"])
                }
            }
        }
        return ServerDatabase(server: server, logger: logger)
    }

    /// Where it connects, without the password.
    package var location: String { server.location }

    /// How long a query may wait for a connection and its answer: a database that went away
    /// fails requests within it instead of holding them while the pool retries.
    static let queryTimeout: Duration = .seconds(5)

    /// Throws unless the database answers within `timeout` (`/ready`).
    package func ping(timeout: Duration = .seconds(2)) async throws {
        try await run(timeout: timeout) { connection in _ = try await connection.query("SELECT 1", logger: connection.logger) }
    }

    /// Runs `body` on a connection of the pool within `timeout`
    /// (``PostgresServer/withConnection(timeout:_:)``).
    func run<T: Sendable>(
        timeout: Duration = queryTimeout, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await server.withConnection(timeout: timeout, body)
    }

    /// Runs `query` within ``queryTimeout``; whether it gave any row (an `UPDATE … RETURNING`
    /// that changed something, a `SELECT 1` that found something).
    func returnsRows(_ query: PostgresQuery) async throws -> Bool {
        try await run { connection in
            for try await _ in try await connection.query(query, logger: connection.logger) { return true }
            return false
        }
    }

    /// Runs `body` in one transaction within `timeout` (``PostgresServer/withTransaction(timeout:logger:_:)``).
    func transaction<T: Sendable>(
        timeout: Duration = queryTimeout, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await server.withTransaction(timeout: timeout, logger: logger, body)
    }

    /// Closes its connections.
    package func close() async {
        await server.close()
    }
}
