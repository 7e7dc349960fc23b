import Foundation
import RunAnywhere

/// A device registered with the collector (``BackendAPI/registerDevicePath``).
package struct DeviceRecord: Encodable, Sendable, Equatable {
    /// The collector's id for the device, which its analytics batches name.
    package var deviceID: String
    /// What the device sent when it registered (its last registration).
    package var registration: DeviceRegistration
    /// When it first registered.
    package var registeredAt: Date
    /// When it last registered or sent analytics.
    package var lastSeenAt: Date

    /// A record with these fields.
    package init(deviceID: String, registration: DeviceRegistration, registeredAt: Date, lastSeenAt: Date) {
        self.deviceID = deviceID
        self.registration = registration
        self.registeredAt = registeredAt
        self.lastSeenAt = lastSeenAt
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", registeredAt = "registered_at", lastSeenAt = "last_seen_at"
    }

    /// The registration's keys with `device_id`, `registered_at` and `last_seen_at` beside them.
    package func encode(to encoder: any Encoder) throws {
        try registration.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encode(BackendTime.text(registeredAt), forKey: .registeredAt)
        try container.encode(BackendTime.text(lastSeenAt), forKey: .lastSeenAt)
    }
}

/// An analytics event the collector stored (``BackendAPI/analyticsEventsPath``).
package struct AnalyticsRecord: Encodable, Sendable, Equatable {
    /// The event as the device sent it.
    package var event: AnalyticsEvent
    /// The collector's id of the device that sent it.
    package var deviceID: String
    /// When the collector stored it.
    package var receivedAt: Date

    /// A record with these fields.
    package init(event: AnalyticsEvent, deviceID: String, receivedAt: Date) {
        self.event = event
        self.deviceID = deviceID
        self.receivedAt = receivedAt
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", receivedAt = "received_at"
    }

    /// The event's keys with `device_id` and `received_at` beside them.
    package func encode(to encoder: any Encoder) throws {
        try event.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encode(BackendTime.text(receivedAt), forKey: .receivedAt)
    }
}

/// Which analytics events to read: equal to every filter given, newest first.
package struct AnalyticsQuery: Sendable, Equatable {
    /// Only events from this device (the collector's id).
    package var deviceID: String?
    /// Only events of this type.
    package var type: String?
    /// At most this many events, after skipping `offset`.
    package var limit: Int
    /// How many of the newest events to skip.
    package var offset: Int

    /// A query for the newest `limit` events after `offset`, with the given filters.
    package init(deviceID: String? = nil, type: String? = nil, limit: Int = 100, offset: Int = 0) {
        self.deviceID = deviceID
        self.type = type
        self.limit = limit
        self.offset = offset
    }

    /// The filters as column names and values, in a fixed order.
    var filters: [(column: String, value: String)] {
        [("device_id", deviceID), ("type", type)].compactMap { column, value in value.map { (column, $0) } }
    }
}

/// Times as the collector's answers write them, and as it stores them.
enum BackendTime {
    /// ISO 8601 with milliseconds.
    static func text(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// Milliseconds since 1970, for sorting.
    static func milliseconds(_ date: Date) -> Int64 {
        TelemetryColumns.milliseconds(date)
    }

    /// The date of `milliseconds` since 1970.
    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
