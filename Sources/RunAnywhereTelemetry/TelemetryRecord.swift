import Foundation
import RunAnywhereBenchRunner

/// A run the collector keeps: the payload as it was sent, and when it arrived.
package struct TelemetryRecord: Codable, Sendable, Equatable {
    /// The payload (validated).
    package var payload: TelemetryPayload
    /// When the collector stored it.
    package var receivedAt: Date

    /// A record of `payload`, received at `receivedAt`.
    package init(payload: TelemetryPayload, receivedAt: Date) {
        self.payload = payload
        self.receivedAt = receivedAt
    }

    /// When the run finished, from its payload's timestamp (validated, so it parses).
    package var runDate: Date {
        TelemetryValidator.date(payload.metrics.timestamp) ?? receivedAt
    }

    enum CodingKeys: String, CodingKey {
        case receivedAt = "received_at"
    }

    /// The payload's own keys (`platform`, `metrics`) with `received_at` beside them.
    package func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(receivedAt.formatted(.iso8601), forKey: .receivedAt)
    }

    package init(from decoder: any Decoder) throws {
        payload = try TelemetryPayload(from: decoder)
        let text = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .receivedAt)
        guard let date = TelemetryValidator.date(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [CodingKeys.receivedAt], debugDescription: "not an ISO 8601 time: \(text)"))
        }
        receivedAt = date
    }
}
