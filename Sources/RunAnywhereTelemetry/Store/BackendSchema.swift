import Foundation
import RunAnywhere

/// The tables of the SDK backend's calls (registered devices and their analytics events), their
/// statements for both SQL dialects, and the values they bind and read, shared by both stores.
enum BackendSchema {
    typealias Dialect = TelemetrySchema.Dialect
    typealias Value = TelemetryColumns.Value

    /// The migration that creates the tables.
    static func migration(_ dialect: Dialect) -> [String] {
        let integer = dialect.type(.integer)
        return [
            "CREATE TABLE devices (device_identifier TEXT PRIMARY KEY, device_id TEXT NOT NULL UNIQUE, platform TEXT NOT NULL, os_version TEXT NOT NULL, "
                + "architecture TEXT NOT NULL, device_model TEXT NOT NULL, sdk_version TEXT NOT NULL, environment TEXT NOT NULL, "
                + "registered_at \(integer) NOT NULL, last_seen_at \(integer) NOT NULL)",
            "CREATE TABLE analytics_events (event_id TEXT PRIMARY KEY, device_id TEXT NOT NULL, type TEXT NOT NULL, occurred_at \(integer) NOT NULL, "
                + "occurred_at_text TEXT NOT NULL, properties TEXT NOT NULL, received_at \(integer) NOT NULL)",
            "CREATE INDEX analytics_events_by_time ON analytics_events (occurred_at, received_at)",
            "CREATE INDEX analytics_events_by_device ON analytics_events (device_id, occurred_at)",
        ]
    }

    static let deviceColumns = [
        "device_identifier", "device_id", "platform", "os_version", "architecture", "device_model", "sdk_version", "environment",
        "registered_at", "last_seen_at",
    ]
    static let eventColumns = ["event_id", "device_id", "type", "occurred_at", "occurred_at_text", "properties", "received_at"]

    /// The insert of a registration that, for a device identifier registered before, keeps its
    /// id and first registration and updates the rest; returns the stored row.
    static func registerDevice(_ dialect: Dialect) -> String {
        let placeholders = deviceColumns.indices.map { dialect.placeholder($0 + 1) }.joined(separator: ", ")
        let updated = ["platform", "os_version", "architecture", "device_model", "sdk_version", "environment", "last_seen_at"]
            .map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return "INSERT INTO devices (\(deviceColumns.joined(separator: ", "))) VALUES (\(placeholders)) "
            + "ON CONFLICT (device_identifier) DO UPDATE SET \(updated) RETURNING \(deviceColumns.joined(separator: ", "))"
    }

    /// A registration's values, in the order of ``deviceColumns``, proposing `deviceID`.
    static func deviceValues(_ registration: DeviceRegistration, deviceID: String, at date: Date) -> [Value] {
        let now = BackendTime.milliseconds(date)
        return [
            .text(registration.deviceIdentifier), .text(deviceID), .text(registration.platform), .text(registration.osVersion),
            .text(registration.architecture), .text(registration.deviceModel), .text(registration.sdkVersion),
            .text(registration.environment),
            .integer(now), .integer(now),
        ]
    }

    /// Marks the device `$2` seen at `$1`; returns its id when it is registered.
    static func touchDevice(_ dialect: Dialect) -> String {
        "UPDATE devices SET last_seen_at = \(dialect.placeholder(1)) WHERE device_id = \(dialect.placeholder(2)) RETURNING device_id"
    }

    /// The insert of `count` events that skips the ids stored already; returns the ids it stored.
    static func insertEvents(count: Int, _ dialect: Dialect) -> String {
        let width = eventColumns.count
        let rows = (0..<count).map { row in "(" + (1...width).map { dialect.placeholder(row * width + $0) }.joined(separator: ", ") + ")" }
        return "INSERT INTO analytics_events (\(eventColumns.joined(separator: ", "))) VALUES \(rows.joined(separator: ", ")) "
            + "ON CONFLICT (event_id) DO NOTHING RETURNING event_id"
    }

    /// `events`' values, row after row, in the order of ``eventColumns``.
    static func eventValues(_ events: [AnalyticsEvent], deviceID: String, receivedAt: Date) throws -> [Value] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try events.flatMap { event -> [Value] in
            let occurred = TelemetryValidator.date(event.occurredAt) ?? receivedAt
            return [
                .text(event.id), .text(deviceID), .text(event.type), .integer(BackendTime.milliseconds(occurred)), .text(event.occurredAt),
                .text(String(decoding: try encoder.encode(event.properties), as: UTF8.self)),
                .integer(BackendTime.milliseconds(receivedAt)),
            ]
        }
    }

    /// The `WHERE` clause of `query`'s filters (empty without any), its values bound from 1.
    static func filter(_ query: AnalyticsQuery, _ dialect: Dialect) -> String {
        let filters = query.filters.enumerated().map { "\($0.element.column) = \(dialect.placeholder(1 + $0.offset))" }
        return filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND ")
    }

    /// The select of `query`'s page of events, newest first; its filters, then limit and offset, are bound.
    static func selectEvents(_ query: AnalyticsQuery, _ dialect: Dialect) -> String {
        let count = query.filters.count
        return "SELECT \(eventColumns.joined(separator: ", ")) FROM analytics_events\(filter(query, dialect))"
            + " ORDER BY occurred_at DESC, received_at DESC, event_id LIMIT \(dialect.placeholder(count + 1)) OFFSET \(dialect.placeholder(count + 2))"
    }

    /// The count of `query`'s events.
    static func countEvents(_ query: AnalyticsQuery, _ dialect: Dialect) -> String {
        "SELECT COUNT(*) AS total FROM analytics_events\(filter(query, dialect))"
    }

    /// The select of a page of devices (limit, then offset, bound), most recently seen first.
    static func selectDevices(_ dialect: Dialect) -> String {
        "SELECT \(deviceColumns.joined(separator: ", ")) FROM devices ORDER BY last_seen_at DESC, device_id LIMIT \(dialect.placeholder(1)) OFFSET \(dialect.placeholder(2))"
    }

    static let countDevices = "SELECT COUNT(*) AS total FROM devices"

    /// A device from a row's values, read by column name.
    static func device(text: (String) throws -> String, integer: (String) throws -> Int64) throws -> DeviceRecord {
        let registration = DeviceRegistration(
            deviceIdentifier: try text("device_identifier"), platform: try text("platform"), osVersion: try text("os_version"),
            architecture: try text("architecture"), deviceModel: try text("device_model"), sdkVersion: try text("sdk_version"),
            environment: try text("environment")
        )
        return DeviceRecord(
            deviceID: try text("device_id"), registration: registration, registeredAt: BackendTime.date(try integer("registered_at")),
            lastSeenAt: BackendTime.date(try integer("last_seen_at"))
        )
    }

    /// An event from a row's values, read by column name.
    static func event(text: (String) throws -> String, integer: (String) throws -> Int64) throws -> AnalyticsRecord {
        let properties = try JSONDecoder().decode([String: AnalyticsValue].self, from: Data(try text("properties").utf8))
        let event = AnalyticsEvent(
            id: try text("event_id"), type: try text("type"), occurredAt: try text("occurred_at_text"), properties: properties)
        return AnalyticsRecord(event: event, deviceID: try text("device_id"), receivedAt: BackendTime.date(try integer("received_at")))
    }
}
