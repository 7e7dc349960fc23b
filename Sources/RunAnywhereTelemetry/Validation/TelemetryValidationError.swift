import Foundation

/// Why a POSTed body was not stored: the field at fault (`metrics.fps_avg`) when there is one.
package struct TelemetryValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON path of the field at fault, nil for the body as a whole.
    package var field: String?
    /// What is wrong, for people.
    package var reason: String
    /// Whether the body was refused for its size alone (HTTP 413 rather than 400).
    package var tooLarge = false

    /// An error about `field` (nil: the whole body).
    package init(_ field: String?, _ reason: String, tooLarge: Bool = false) {
        self.field = field
        self.reason = reason
        self.tooLarge = tooLarge
    }

    /// "metrics.fps_avg: must be a number from 0 to 10000000".
    package var description: String {
        field.map { "\($0): \(reason)" } ?? reason
    }
}
