import Foundation
import PostgresNIO
import RunAnywhere
import RunAnywherePostgres

/// The SDK backend's devices and analytics events in PostgreSQL (``BackendSchema``).
extension PostgresTelemetryStore {
    package func registerDevice(_ registration: DeviceRegistration, at date: Date) async throws -> (device: DeviceRecord, created: Bool) {
        let proposed = UUID().uuidString.lowercased()
        let rows = try await run(
            BackendSchema.registerDevice(.postgres), BackendSchema.deviceValues(registration, deviceID: proposed, at: date))
        guard let row = rows.first else { throw SDKError(.fileWriteFailed, "PostgreSQL at \(location) stored no device") }
        let device = try Self.device(row)
        return (device, device.deviceID == proposed)
    }

    package func touchDevice(_ deviceID: String, at date: Date) async throws -> Bool {
        try await !run(BackendSchema.touchDevice(.postgres), [.integer(BackendTime.milliseconds(date)), .text(deviceID)]).isEmpty
    }

    package func insertEvents(_ events: [AnalyticsEvent], deviceID: String, receivedAt: Date) async throws -> Set<String> {
        guard !events.isEmpty else { return [] }
        let rows = try await run(
            BackendSchema.insertEvents(count: events.count, .postgres),
            try BackendSchema.eventValues(events, deviceID: deviceID, receivedAt: receivedAt))
        return Set(try rows.map { try $0.makeRandomAccess()["event_id"].decode(String.self) })
    }

    package func analyticsEvents(_ query: AnalyticsQuery) async throws -> [AnalyticsRecord] {
        let values =
            query.filters.map { TelemetryColumns.Value.text($0.value) } + [.integer(Int64(query.limit)), .integer(Int64(query.offset))]
        return try await run(BackendSchema.selectEvents(query, .postgres), values).map { row in
            let cells = row.makeRandomAccess()
            return try BackendSchema.event(text: { try cells[$0].decode(String.self) }, integer: { try cells[$0].decode(Int64.self) })
        }
    }

    package func analyticsEventCount(_ query: AnalyticsQuery) async throws -> Int {
        let rows = try await run(BackendSchema.countEvents(query, .postgres), query.filters.map { .text($0.value) })
        return Int(try rows.first?.makeRandomAccess()["total"].decode(Int64.self) ?? 0)
    }

    package func devices(limit: Int, offset: Int) async throws -> [DeviceRecord] {
        try await run(BackendSchema.selectDevices(.postgres), [.integer(Int64(limit)), .integer(Int64(offset))]).map(Self.device)
    }

    package func deviceCount() async throws -> Int {
        Int(try await run(BackendSchema.countDevices, []).first?.makeRandomAccess()["total"].decode(Int64.self) ?? 0)
    }

    /// Runs a statement with `values` bound, reading every row (``rows(_:)``).
    private func run(_ statement: String, _ values: [TelemetryColumns.Value]) async throws -> [PostgresRow] {
        var binds = PostgresBindings()
        for value in values {
            switch value {
            case .text(let text): binds.append(text)
            case .integer(let integer): binds.append(integer)
            case .real(let real): binds.append(real)
            case .null: binds.appendNull()
            }
        }
        return try await rows(PostgresQuery(unsafeSQL: statement, binds: binds))
    }

    private static func device(_ row: PostgresRow) throws -> DeviceRecord {
        let cells = row.makeRandomAccess()
        return try BackendSchema.device(text: { try cells[$0].decode(String.self) }, integer: { try cells[$0].decode(Int64.self) })
    }
}
