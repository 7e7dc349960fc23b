/// The collector's tables, and the migrations that create them, for both SQL dialects: BenchRunner's
/// runs (1), the SDK backend's devices and analytics events (2, ``BackendSchema``).
enum TelemetrySchema {
    /// The two dialects.
    enum Dialect {
        case sqlite
        case postgres

        func type(_ type: ColumnType) -> String {
            switch (self, type) {
            case (_, .text): "TEXT"
            case (.sqlite, .integer): "INTEGER"
            case (.postgres, .integer): "BIGINT"
            case (.sqlite, .real): "REAL"
            case (.postgres, .real): "DOUBLE PRECISION"
            }
        }

        /// The placeholder for the `index`th (from 1) value bound to a statement.
        func placeholder(_ index: Int) -> String {
            self == .sqlite ? "?" : "$\(index)"
        }
    }

    enum ColumnType {
        case text, integer, real
    }

    /// The table that records which migrations have run.
    static let migrationsTable = "CREATE TABLE IF NOT EXISTS telemetry_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)"

    /// Every migration, by version, as statements for `dialect`. Add new ones at the end; never
    /// change one that has shipped.
    static func migrations(_ dialect: Dialect) -> [(version: Int, statements: [String])] {
        let columns: [(String, ColumnType, nullable: Bool)] = [
            ("platform", .text, false), ("model_id", .text, false), ("run_at", .integer, false), ("timestamp", .text, false),
            ("frames_processed", .integer, false), ("warmup_frames", .integer, false), ("fps_avg", .real, false), ("fps_min", .real, false),
            ("fps_max", .real, false), ("latency_p50_ms", .real, false), ("latency_p95_ms", .real, false), ("cold_start_ms", .real, false),
            ("model_file_mb", .real, false), ("battery_drop_pct_15m", .real, true), ("thermal_state", .text, false),
            ("device_model", .text, false), ("os_version", .text, false), ("backend", .text, false), ("telemetry_post_url", .text, false),
            ("received_at", .integer, false),
        ]
        let definitions = columns.map { "\($0.0) \(dialect.type($0.1))\($0.nullable ? "" : " NOT NULL")" }
        return [
            (
                1,
                [
                    "CREATE TABLE runs (run_id TEXT PRIMARY KEY, \(definitions.joined(separator: ", ")))",
                    "CREATE INDEX runs_by_group ON runs (device_model, os_version, model_id, backend, run_at)",
                    "CREATE INDEX runs_by_time ON runs (run_at, received_at)",
                ]
            ),
            (2, BackendSchema.migration(dialect)),
        ]
    }

    /// The insert of one run that does nothing when its `run_id` is stored, returning the id
    /// only when it stored the run.
    static func insert(_ dialect: Dialect) -> String {
        let placeholders = TelemetryColumns.names.indices.map { dialect.placeholder($0 + 1) }
        return "INSERT INTO runs (\(TelemetryColumns.names.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", "))) "
            + "ON CONFLICT (run_id) DO NOTHING RETURNING run_id"
    }

    /// The `WHERE` clause of `query`'s filters (empty without any), its values bound from `first`.
    static func filter(_ query: TelemetryQuery, _ dialect: Dialect, first: Int = 1) -> String {
        let filters = query.filters.enumerated().map { "\($0.element.column) = \(dialect.placeholder(first + $0.offset))" }
        return filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND ")
    }

    /// The select of `query`'s page of runs, newest first.
    static func select(_ query: TelemetryQuery, _ dialect: Dialect) -> String {
        let count = query.filters.count
        return "SELECT \(TelemetryColumns.names.joined(separator: ", ")) FROM runs\(filter(query, dialect))"
            + " ORDER BY run_at DESC, received_at DESC, run_id LIMIT \(dialect.placeholder(count + 1)) OFFSET \(dialect.placeholder(count + 2))"
    }

    /// The count of `query`'s runs.
    static func count(_ query: TelemetryQuery, _ dialect: Dialect) -> String {
        "SELECT COUNT(*) AS total FROM runs\(filter(query, dialect))"
    }
}
