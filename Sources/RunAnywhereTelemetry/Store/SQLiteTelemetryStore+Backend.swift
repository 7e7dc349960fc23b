import Foundation
import RunAnywhere
import SQLiteNIO

/// The SDK backend's devices and analytics events in SQLite (``BackendSchema``).
extension SQLiteTelemetryStore {
    package func registerDevice(_ registration: DeviceRegistration, at date: Date) async throws -> (device: DeviceRecord, created: Bool) {
        let proposed = UUID().uuidString.lowercased()
        let rows = try await run(
            BackendSchema.registerDevice(.sqlite), BackendSchema.deviceValues(registration, deviceID: proposed, at: date))
        guard let row = rows.first else { throw SDKError(.fileWriteFailed, "The telemetry database \(url.path) stored no device") }
        let device = try BackendSchema.device(text: { try Self.text(row, $0) }, integer: { try Self.integer(row, $0) })
        return (device, device.deviceID == proposed)
    }

    package func touchDevice(_ deviceID: String, at date: Date) async throws -> Bool {
        try await !run(BackendSchema.touchDevice(.sqlite), [.integer(BackendTime.milliseconds(date)), .text(deviceID)]).isEmpty
    }

    package func insertEvents(_ events: [AnalyticsEvent], deviceID: String, receivedAt: Date) async throws -> Set<String> {
        guard !events.isEmpty else { return [] }
        let rows = try await run(
            BackendSchema.insertEvents(count: events.count, .sqlite),
            try BackendSchema.eventValues(events, deviceID: deviceID, receivedAt: receivedAt))
        return Set(rows.compactMap { $0.column("event_id")?.string })
    }

    package func analyticsEvents(_ query: AnalyticsQuery) async throws -> [AnalyticsRecord] {
        let binds = query.filters.map { SQLiteData.text($0.value) } + [.integer(query.limit), .integer(query.offset)]
        return try await connection.query(BackendSchema.selectEvents(query, .sqlite), binds).map { row in
            try BackendSchema.event(text: { try Self.text(row, $0) }, integer: { try Self.integer(row, $0) })
        }
    }

    package func analyticsEventCount(_ query: AnalyticsQuery) async throws -> Int {
        let rows = try await connection.query(BackendSchema.countEvents(query, .sqlite), query.filters.map { .text($0.value) })
        return rows.first?.column("total")?.integer ?? 0
    }

    package func devices(limit: Int, offset: Int) async throws -> [DeviceRecord] {
        try await connection.query(BackendSchema.selectDevices(.sqlite), [.integer(limit), .integer(offset)]).map { row in
            try BackendSchema.device(text: { try Self.text(row, $0) }, integer: { try Self.integer(row, $0) })
        }
    }

    package func deviceCount() async throws -> Int {
        try await connection.query(BackendSchema.countDevices).first?.column("total")?.integer ?? 0
    }

    /// Runs a statement that writes, with the store's error for a full disk.
    private func run(_ statement: String, _ values: [TelemetryColumns.Value]) async throws -> [SQLiteRow] {
        do {
            return try await connection.query(statement, values.map(Self.data))
        } catch {
            throw Self.error(error, url: url)
        }
    }

    private static func text(_ row: SQLiteRow, _ name: String) throws -> String {
        guard let text = row.column(name)?.string else {
            throw SDKError(.modelStorageCorrupted, "The telemetry database has no text column \(name)")
        }
        return text
    }

    private static func integer(_ row: SQLiteRow, _ name: String) throws -> Int64 {
        guard let integer = row.column(name)?.integer else {
            throw SDKError(.modelStorageCorrupted, "The telemetry database has no integer column \(name)")
        }
        return Int64(integer)
    }
}
