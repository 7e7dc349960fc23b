import Foundation
import Logging

/// The device's identity for the backends, in `<data>/backend/device.json`: the identifier
/// generated once for this installation, and each backend's id for the device once it has
/// registered there (by base URL, so staging and production each register once). Changes are
/// made under a file lock, so processes sharing the data folder agree on one identifier.
struct DeviceIdentityStore: Sendable {
    struct Contents: Codable, Equatable {
        var deviceIdentifier: String
        var registrations: [String: DeviceRegistrationResult] = [:]

        enum CodingKeys: String, CodingKey {
            case deviceIdentifier = "device_identifier", registrations
        }
    }

    let url: URL
    private let lockURL: URL
    private let logger: Logger

    /// The store of the data folder `dataDirectory`.
    init(dataDirectory: URL, logger: Logger) {
        let folder = dataDirectory.appendingPathComponent(SDKConstants.Files.backend)
        url = folder.appendingPathComponent("device.json")
        lockURL = folder.appendingPathComponent(".device.lock")
        self.logger = logger
    }

    /// What is stored, without creating anything; nil before the first use (or when unreadable).
    func contents() -> Contents? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try? JSONDecoder().decode(Contents.self, from: data)
    }

    /// The installation's identifier, generated and stored the first time.
    func identifier() throws -> String {
        try update { _ in }.deviceIdentifier
    }

    /// The id `target` gave this device, if it has registered there.
    func registration(for target: String) -> DeviceRegistrationResult? {
        contents()?.registrations[target]
    }

    /// Remembers the id `target` gave this device.
    func store(_ registration: DeviceRegistrationResult, for target: String) throws {
        try update { $0.registrations[target] = registration }
    }

    /// Forgets the registration with `target` (which no longer knows the device).
    func forget(_ target: String) throws {
        try update { $0.registrations[target] = nil }
    }

    /// Reads (or creates), changes and writes the file under its lock; returns what it holds now.
    /// An unreadable file is moved aside, logged, and replaced by a new identity.
    @discardableResult
    private func update(_ change: (inout Contents) -> Void) throws -> Contents {
        try FileLock.withLock(at: lockURL) {
            var contents: Contents
            if let data = FileManager.default.contents(atPath: url.path) {
                if let stored = try? JSONDecoder().decode(Contents.self, from: data) {
                    contents = stored
                } else {
                    let aside = try AtomicFile.moveAside(url)
                    logger.warning(
                        "An unreadable device file was moved aside",
                        metadata: [
                            "event": "\(SDKConstants.Events.fileMovedAside)", "file": "\(url.path)", "movedTo": "\(aside.path)",
                        ])
                    contents = Contents(deviceIdentifier: UUID().uuidString.lowercased())
                }
            } else {
                contents = Contents(deviceIdentifier: UUID().uuidString.lowercased())
            }
            let before = contents
            change(&contents)
            if contents != before || !FileManager.default.fileExists(atPath: url.path) {
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    try AtomicFile.write(try encoder.encode(contents), to: url)
                } catch {
                    throw SDKError.writeFailed("Cannot save \(url.path)", error)
                }
            }
            return contents
        }
    }
}
