import Foundation

/// The HTTP API the SDK calls in staging and production (and `runanywhere telemetry serve`
/// answers), under the environment's base URL, with `Authorization: Bearer API_KEY`:
///
/// - `POST /api/v1/devices/register`: a ``DeviceRegistration``; answers a
///   ``DeviceRegistrationResult`` (201 new, 200 known).
/// - `POST /api/v1/analytics/events`: an ``AnalyticsBatch``; answers an ``AnalyticsBatchResult``
///   that acknowledges each event by id (404 when the device is not registered).
package enum BackendAPI {
    /// Where a device registers.
    package static let registerDevicePath = "/api/v1/devices/register"
    /// Where analytics batches go (and, with GET, are read back from the collector).
    package static let analyticsEventsPath = "/api/v1/analytics/events"
    /// The registered devices, read back from the collector.
    package static let devicesPath = "/api/v1/devices"
    /// The most events the SDK puts in one batch.
    package static let maxBatchEvents = 100
}

/// What a device tells the backend when it registers.
package struct DeviceRegistration: Codable, Sendable, Equatable {
    /// The identifier the SDK generated once for this installation (a UUID).
    package var deviceIdentifier: String
    /// `linux`.
    package var platform: String
    /// The operating system and its version.
    package var osVersion: String
    /// The CPU architecture (`x86_64`, `aarch64`).
    package var architecture: String
    /// The CPU model.
    package var deviceModel: String
    /// The SDK's version.
    package var sdkVersion: String
    /// `staging` or `production`.
    package var environment: String

    /// A registration with these fields.
    package init(
        deviceIdentifier: String, platform: String, osVersion: String, architecture: String, deviceModel: String, sdkVersion: String,
        environment: String
    ) {
        self.deviceIdentifier = deviceIdentifier
        self.platform = platform
        self.osVersion = osVersion
        self.architecture = architecture
        self.deviceModel = deviceModel
        self.sdkVersion = sdkVersion
        self.environment = environment
    }

    enum CodingKeys: String, CodingKey {
        case deviceIdentifier = "device_identifier", platform, osVersion = "os_version", architecture, deviceModel = "device_model"
        case sdkVersion = "sdk_version", environment
    }
}

/// The backend's answer to a registration: the device's id there.
package struct DeviceRegistrationResult: Codable, Sendable, Equatable {
    /// The id the backend knows the device by; analytics batches name it.
    package var deviceID: String
    /// When the device first registered (ISO 8601).
    package var registeredAt: String

    /// A result with these fields.
    package init(deviceID: String, registeredAt: String) {
        self.deviceID = deviceID
        self.registeredAt = registeredAt
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", registeredAt = "registered_at"
    }
}

/// One thing the SDK did, as it reports it: generation, transcription or synthesis metrics,
/// never the text or audio itself.
package struct AnalyticsEvent: Codable, Sendable, Equatable {
    /// Unique (a UUID): the backend stores each id once, so a batch sent twice counts once.
    package var id: String
    /// `generation`, `transcription` or `synthesis`.
    package var type: String
    /// When it happened (ISO 8601 with milliseconds).
    package var occurredAt: String
    /// Its metrics, by name.
    package var properties: [String: AnalyticsValue]

    /// The event types the SDK sends.
    package static let types: Set<String> = ["generation", "transcription", "synthesis"]

    /// An event with these fields.
    package init(id: String, type: String, occurredAt: String, properties: [String: AnalyticsValue]) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
        self.properties = properties
    }

    enum CodingKeys: String, CodingKey {
        case id, type, occurredAt = "occurred_at", properties
    }
}

/// A metric's value: a JSON string, whole number, number or boolean.
package enum AnalyticsValue: Codable, Sendable, Equatable {
    /// A string (a model id, a stop reason).
    case text(String)
    /// A whole number (a token count).
    case integer(Int)
    /// A number (milliseconds, a rate).
    case number(Double)
    /// A boolean.
    case flag(Bool)

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .flag(flag)
        } else if let integer = try? container.decode(Int.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .integer(let integer): try container.encode(integer)
        case .number(let number): try container.encode(number)
        case .flag(let flag): try container.encode(flag)
        }
    }
}

/// Events sent together by one registered device.
package struct AnalyticsBatch: Codable, Sendable, Equatable {
    /// The backend's id of the device (``DeviceRegistrationResult/deviceID``).
    package var deviceID: String
    /// At most ``BackendAPI/maxBatchEvents`` events, oldest first.
    package var events: [AnalyticsEvent]

    /// A batch of `events` from `deviceID`.
    package init(deviceID: String, events: [AnalyticsEvent]) {
        self.deviceID = deviceID
        self.events = events
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", events
    }
}

/// The backend's answer to a batch: every event it has dealt with, by id. The SDK removes these
/// from its outbox and keeps the others.
package struct AnalyticsBatchResult: Codable, Sendable, Equatable {
    /// An event the backend will never store, and why.
    package struct Rejection: Codable, Sendable, Equatable {
        /// The event's id.
        package var id: String
        /// Why, for people.
        package var message: String

        /// A rejection of `id`.
        package init(id: String, message: String) {
            self.id = id
            self.message = message
        }
    }

    /// The ids stored now or before (a retry).
    package var accepted: [String]
    /// How many of them were new.
    package var stored: Int
    /// How many had been stored before.
    package var duplicates: Int
    /// The events refused for good (an unknown type, a malformed field).
    package var rejected: [Rejection]

    /// A result with these fields.
    package init(accepted: [String], stored: Int, duplicates: Int, rejected: [Rejection]) {
        self.accepted = accepted
        self.stored = stored
        self.duplicates = duplicates
        self.rejected = rejected
    }
}
