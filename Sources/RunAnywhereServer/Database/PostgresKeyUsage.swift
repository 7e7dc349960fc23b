import Foundation
import PostgresNIO

/// Each API key's usage over every replica (`runanywhere_key_usage`), by key name as `/metrics`
/// labels it: every replica adds what it counted, and the totals hold from the table's making on,
/// through restarts.
struct PostgresKeyUsage: Sendable {
    let database: ServerDatabase

    /// Adds `counts` to the totals, all keys in one statement.
    func add(_ counts: [String: KeyUsage.Counts]) async throws {
        guard !counts.isEmpty else { return }
        let entries = Array(counts)
        let (names, rows) = (entries.map(\.key), entries.map(\.value))
        let (requests, limited) = (rows.map(\.requests), rows.map(\.rateLimited))
        let (prompt, completion) = (rows.map(\.promptTokens), rows.map(\.completionTokens))
        let (heard, spoken) = (rows.map(\.audioSecondsIn), rows.map(\.audioSecondsOut))
        _ = try await database.returnsRows(
            """
            INSERT INTO runanywhere_key_usage AS total
                (key_name, requests, rate_limited, prompt_tokens, completion_tokens, audio_seconds_in, audio_seconds_out)
            SELECT * FROM unnest(\(names)::text[], \(requests)::bigint[], \(limited)::bigint[], \(prompt)::bigint[],
                \(completion)::bigint[], \(heard)::double precision[], \(spoken)::double precision[])
            ON CONFLICT (key_name) DO UPDATE SET
                requests = total.requests + EXCLUDED.requests, rate_limited = total.rate_limited + EXCLUDED.rate_limited,
                prompt_tokens = total.prompt_tokens + EXCLUDED.prompt_tokens,
                completion_tokens = total.completion_tokens + EXCLUDED.completion_tokens,
                audio_seconds_in = total.audio_seconds_in + EXCLUDED.audio_seconds_in,
                audio_seconds_out = total.audio_seconds_out + EXCLUDED.audio_seconds_out
            """)
    }

    /// Every key's totals.
    func totals() async throws -> [String: KeyUsage.Counts] {
        try await database.run { connection in
            var totals: [String: KeyUsage.Counts] = [:]
            let rows = try await connection.query(
                """
                SELECT key_name, requests, rate_limited, prompt_tokens, completion_tokens, audio_seconds_in, audio_seconds_out
                FROM runanywhere_key_usage
                """, logger: connection.logger)
            for try await (name, requests, limited, prompt, completion, heard, spoken) in rows.decode(
                (String, Int, Int, Int, Int, Double, Double).self)
            {
                totals[name] = KeyUsage.Counts(
                    requests: requests, rateLimited: limited, promptTokens: prompt, completionTokens: completion, audioSecondsIn: heard,
                    audioSecondsOut: spoken)
            }
            return totals
        }
    }
}
