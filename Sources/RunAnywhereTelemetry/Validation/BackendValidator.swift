import Foundation
import RunAnywhere

/// Checks what the SDK sends to its backend (``BackendAPI``) before anything is stored: size,
/// nesting, JSON syntax, exactly the known keys, and each value's type and range. A body that is
/// not a registration or a batch at all is refused whole, naming its first bad field; in a batch,
/// an event with a usable id but a bad field is rejected alone, so the device can drop it.
package enum BackendValidator {
    /// The largest registration accepted.
    package static let maxRegistrationBytes = 16 * 1024
    /// The largest batch accepted.
    package static let maxBatchBytes = 1 << 20
    /// The most events a batch may hold.
    package static let maxBatchEvents = 500
    /// The most properties an event may have.
    package static let maxProperties = 64
    /// The environments a device may register from.
    package static let environments: Set<String> = ["staging", "production"]

    /// A batch as the collector takes it: the events fit to store, and those refused with why.
    package struct Batch: Sendable, Equatable {
        /// The collector's id of the device that sent it.
        package var deviceID: String
        /// The events to store, each id once.
        package var events: [AnalyticsEvent]
        /// The events refused for good.
        package var rejected: [AnalyticsBatchResult.Rejection]
    }

    /// The registration in `body`, or the first reason it cannot be stored.
    package static func registration(_ body: Data) throws(TelemetryValidationError) -> DeviceRegistration {
        let object = try parse(body, limit: maxRegistrationBytes)
        let keys: Set<String> = [
            "device_identifier", "platform", "os_version", "architecture", "device_model", "sdk_version", "environment",
        ]
        try checkKeys(Set(object.keys), known: keys, required: keys, prefix: "")
        let registration = DeviceRegistration(
            deviceIdentifier: try identifier(object["device_identifier"], "device_identifier"),
            platform: try text(object["platform"], "platform"),
            osVersion: try text(object["os_version"], "os_version"), architecture: try text(object["architecture"], "architecture"),
            deviceModel: try text(object["device_model"], "device_model"), sdkVersion: try text(object["sdk_version"], "sdk_version"),
            environment: try text(object["environment"], "environment")
        )
        guard TelemetryValidator.platforms.contains(registration.platform) else {
            throw TelemetryValidationError("platform", "must be one of \(TelemetryValidator.platforms.sorted().joined(separator: ", "))")
        }
        guard environments.contains(registration.environment) else {
            throw TelemetryValidationError("environment", "must be one of \(environments.sorted().joined(separator: ", "))")
        }
        return registration
    }

    /// The batch in `body`, or the first reason it is not a batch.
    package static func batch(_ body: Data) throws(TelemetryValidationError) -> Batch {
        let object = try parse(body, limit: maxBatchBytes)
        try checkKeys(Set(object.keys), known: ["device_id", "events"], required: ["device_id", "events"], prefix: "")
        let deviceID = try identifier(object["device_id"], "device_id")
        guard let items = object["events"] as? [Any], (1...maxBatchEvents).contains(items.count) else {
            throw TelemetryValidationError("events", "must be an array of 1 to \(maxBatchEvents) events")
        }
        var batch = Batch(deviceID: deviceID, events: [], rejected: [])
        var seen = Set<String>()
        for (index, item) in items.enumerated() {
            guard let fields = item as? [String: Any] else { throw TelemetryValidationError("events[\(index)]", "must be an object") }
            let id = try identifier(fields["id"], "events[\(index)].id")
            guard seen.insert(id).inserted else { continue }
            do throws(TelemetryValidationError) {
                batch.events.append(try event(fields, id: id))
            } catch {
                batch.rejected.append(.init(id: id, message: error.description))
            }
        }
        return batch
    }

    /// One event's fields, checked.
    private static func event(_ fields: [String: Any], id: String) throws(TelemetryValidationError) -> AnalyticsEvent {
        try checkKeys(
            Set(fields.keys), known: ["id", "type", "occurred_at", "properties"], required: ["id", "type", "occurred_at", "properties"],
            prefix: "")
        guard let type = fields["type"] as? String, AnalyticsEvent.types.contains(type) else {
            throw TelemetryValidationError("type", "must be one of \(AnalyticsEvent.types.sorted().joined(separator: ", "))")
        }
        guard let occurred = fields["occurred_at"] as? String, let date = TelemetryValidator.date(occurred),
            date > Date(timeIntervalSince1970: 946_684_800), date < Date().addingTimeInterval(86_400)
        else {
            throw TelemetryValidationError("occurred_at", "must be an ISO 8601 time between 2000 and tomorrow")
        }
        guard let values = fields["properties"] as? [String: Any], values.count <= maxProperties else {
            throw TelemetryValidationError("properties", "must be an object of at most \(maxProperties) values")
        }
        var properties: [String: AnalyticsValue] = [:]
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard (1...64).contains(name.count),
                name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
            else {
                throw TelemetryValidationError("properties", "names must be 1 to 64 lower-case letters, digits or '_'")
            }
            properties[name] = try property(value, "properties.\(name)")
        }
        return AnalyticsEvent(id: id, type: type, occurredAt: occurred, properties: properties)
    }

    /// A property's value: a short string, a finite number or a boolean.
    private static func property(_ value: Any, _ field: String) throws(TelemetryValidationError) -> AnalyticsValue {
        if value is String { return .text(try text(value, field)) }
        // A JSON true or false arrives as a number whose type is char.
        guard let number = value as? NSNumber else { throw TelemetryValidationError(field, "must be a string, a number or a boolean") }
        switch String(cString: number.objCType) {
        case "c": return .flag(number.boolValue)
        case "d", "f":
            guard number.doubleValue.isFinite else { throw TelemetryValidationError(field, "must be a finite number") }
            return .number(number.doubleValue)
        default: return .integer(number.intValue)
        }
    }

    /// The JSON object in `body`, at most `limit` bytes and as shallow as the API's bodies.
    private static func parse(_ body: Data, limit: Int) throws(TelemetryValidationError) -> [String: Any] {
        guard body.count <= limit else {
            throw TelemetryValidationError(nil, "the body is \(body.count) bytes; at most \(limit) are accepted", tooLarge: true)
        }
        try TelemetryValidator.checkNesting(body)
        guard let object = try? JSONSerialization.jsonObject(with: body) else {
            throw TelemetryValidationError(nil, "the body is not valid JSON")
        }
        guard let fields = object as? [String: Any] else { throw TelemetryValidationError(nil, "the body must be a JSON object") }
        return fields
    }

    private static func checkKeys(_ keys: Set<String>, known: Set<String>, required: Set<String>, prefix: String)
        throws(TelemetryValidationError)
    {
        if let unknown = keys.subtracting(known).sorted().first { throw TelemetryValidationError(prefix + unknown, "is not a known field") }
        if let missing = required.subtracting(keys).sorted().first { throw TelemetryValidationError(prefix + missing, "is required") }
    }

    /// An id: 1 to 128 letters, digits, '-', '_', '.' or ':' (a UUID).
    private static func identifier(_ value: Any?, _ field: String) throws(TelemetryValidationError) -> String {
        guard let text = value as? String, (1...128).contains(text.count),
            text.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.:".unicodeScalars.contains($0)) }
            )
        else {
            throw TelemetryValidationError(field, "must be 1 to 128 letters, digits, '-', '_', '.' or ':' (a UUID)")
        }
        return text
    }

    /// Plain text: 1 to 200 characters without control characters, quotes, ';', '\\', '<' or '>'.
    private static func text(_ value: Any?, _ field: String) throws(TelemetryValidationError) -> String {
        let forbidden = Set("'\";\\`<>".unicodeScalars)
        guard let text = value as? String, (1...200).contains(text.count),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || forbidden.contains($0) })
        else {
            throw TelemetryValidationError(field, "must be 1 to 200 characters without control characters, quotes, ';', '\\', '<' or '>'")
        }
        return text
    }
}
