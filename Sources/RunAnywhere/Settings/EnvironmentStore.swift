import Foundation
import Logging

/// One environment as the user configured it; the API key only ever appears masked.
package struct EnvironmentStatus: Codable, Sendable, Equatable {
    /// The environment described.
    package let environment: SDKEnvironment
    /// Whether this is the environment the SDK starts in.
    package let isSelected: Bool
    /// The backend URL stored for the environment, if any.
    package let baseURL: String?
    /// The API key with all but its last 4 characters hidden, or nil when none is stored.
    package let maskedAPIKey: String?
}

/// The runtime environment switcher (spec issue 63): the selected environment and each one's
/// base URL in `<data>/environment.json`, the API keys in `<data>/credentials.json`, readable
/// only by the user (mode 0600). Keys are never logged or returned unmasked except to
/// initialize the SDK. Changes are made under a file lock, so two processes storing different
/// environments at once both keep theirs.
package struct EnvironmentStore: Sendable {
    private struct Selection: Codable {
        var selected: SDKEnvironment = .development
        var baseURLs: [String: String] = [:]
    }

    private let environmentURL: URL
    private let credentialsURL: URL
    private let lockURL: URL
    private let logger: Logger

    /// Base URLs used when the user has set none.
    package static let defaultBaseURLs: [SDKEnvironment: String] = [.development: "localhost", .production: "https://api.runanywhere.ai"]

    /// A store in `dataDirectory`.
    package init(dataDirectory: URL, logger: Logger = Logger(label: "runanywhere", factory: { _ in SwiftLogNoOpLogHandler() })) {
        environmentURL = dataDirectory.appendingPathComponent(SDKConstants.Files.environment)
        credentialsURL = dataDirectory.appendingPathComponent(SDKConstants.Files.credentials)
        lockURL = dataDirectory.appendingPathComponent(".environment.lock")
        self.logger = logger
    }

    /// The selected environment.
    package func selected() throws -> SDKEnvironment { try readSelection().selected }

    /// Every environment with its base URL and masked key.
    package func statuses() throws -> [EnvironmentStatus] {
        let selection = try readSelection()
        let keys = try readCredentials()
        return SDKEnvironment.allCases.map { environment in
            EnvironmentStatus(
                environment: environment, isSelected: environment == selection.selected,
                baseURL: selection.baseURLs[environment.rawValue] ?? Self.defaultBaseURLs[environment],
                maskedAPIKey: keys[environment.rawValue].map(Self.mask)
            )
        }
    }

    /// Selects `environment`, optionally storing its base URL and API key, after checking that
    /// the SDK can be initialized with them (staging and production need both; development
    /// needs neither and makes no network call). An unreadable environment or credentials file
    /// is moved aside (kept, and logged) and replaced, so this is always the way to repair them.
    @discardableResult
    package func use(_ environment: SDKEnvironment, baseURL: String? = nil, apiKey: String? = nil) throws -> EnvironmentStatus {
        try FileLock.withLock(at: lockURL) { try change(environment, baseURL: baseURL, apiKey: apiKey) }
    }

    private func change(_ environment: SDKEnvironment, baseURL: String?, apiKey: String?) throws -> EnvironmentStatus {
        var selection = try readSelection(replacingUnreadable: true)
        var keys = try readCredentials(replacingUnreadable: true)
        if let baseURL { selection.baseURLs[environment.rawValue] = baseURL }
        if let apiKey {
            let trimmed = apiKey.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw SDKError(.invalidConfiguration, "The API key is empty") }
            keys[environment.rawValue] = trimmed
        }
        let url = selection.baseURLs[environment.rawValue] ?? Self.defaultBaseURLs[environment]
        try RunAnywhere.validate(apiKey: keys[environment.rawValue], baseURL: url, environment: environment)
        selection.selected = environment
        if apiKey != nil { try write(keys, to: credentialsURL, permissions: 0o600) }
        try write(selection, to: environmentURL, permissions: nil)
        logger.info(
            "Environment selected",
            metadata: ["event": "\(SDKConstants.Events.environmentChanged)", "environment": "\(environment.rawValue)"])
        return try statuses().first { $0.environment == environment }!
    }

    /// The selected environment's API key and base URL, for initializing the SDK.
    package func credentials() throws -> (environment: SDKEnvironment, apiKey: String?, baseURL: String?) {
        let selection = try readSelection()
        let key = try readCredentials()[selection.selected.rawValue]
        return (selection.selected, key, selection.baseURLs[selection.selected.rawValue] ?? Self.defaultBaseURLs[selection.selected])
    }

    /// `••••abcd`: only the last 4 characters of a key long enough to spare them.
    package static func mask(_ key: String) -> String {
        key.count > 8 ? "••••" + key.suffix(4) : "••••"
    }

    private func readSelection(replacingUnreadable: Bool = false) throws -> Selection {
        guard let data = FileManager.default.contents(atPath: environmentURL.path) else { return Selection() }
        do {
            return try JSONDecoder.runAnywhere.decode(Selection.self, from: data)
        } catch {
            guard replacingUnreadable else {
                throw SDKError(
                    .invalidConfiguration, "\(environmentURL.path) is unreadable; fix it or run `runanywhere env use development`")
            }
            try moveAside(environmentURL)
            return Selection()
        }
    }

    private func readCredentials(replacingUnreadable: Bool = false) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: credentialsURL.path) else { return [:] }
        if let mode = try? FileManager.default.attributesOfItem(atPath: credentialsURL.path)[.posixPermissions] as? Int, mode & 0o077 != 0 {
            chmod(credentialsURL.path, 0o600)
            logger.warning(
                "The credentials file was readable by others; its mode is now 0600", metadata: ["file": "\(credentialsURL.path)"])
        }
        do {
            return try JSONDecoder.runAnywhere.decode([String: String].self, from: data)
        } catch {
            guard replacingUnreadable else {
                throw SDKError(
                    .invalidConfiguration,
                    "\(credentialsURL.path) is unreadable; store the keys again with `runanywhere env use ENV --api-key-stdin`")
            }
            try moveAside(credentialsURL)
            return [:]
        }
    }

    private func moveAside(_ url: URL) throws {
        let aside = try AtomicFile.moveAside(url)
        logger.warning(
            "An unreadable environment file was moved aside",
            metadata: [
                "event": "\(SDKConstants.Events.fileMovedAside)", "file": "\(url.path)", "movedTo": "\(aside.path)",
            ])
    }

    private func write<T: Encodable>(_ value: T, to url: URL, permissions: Int?) throws {
        do {
            try AtomicFile.write(try JSONEncoder.runAnywhere.encode(value), to: url, permissions: permissions)
        } catch {
            throw SDKError.writeFailed("Cannot save \(url.path)", error)
        }
    }
}
