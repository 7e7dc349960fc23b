/// Which RunAnywhere backend the SDK talks to: in staging and production it registers the device
/// and sends its analytics there (inference itself stays on the device); in development no key
/// is needed and no network call is ever made.
public enum SDKEnvironment: String, CaseIterable, Codable, Sendable {
    /// Local use: no backend, no API key.
    case development
    /// The staging backend; needs an API key.
    case staging
    /// The production backend; needs an API key.
    case production

    /// A name for people.
    public var description: String {
        switch self {
        case .development: "Development Environment"
        case .staging: "Staging Environment"
        case .production: "Production Environment"
        }
    }

    /// Whether an API key and a base URL must be given.
    public var requiresAuthentication: Bool { self != .development }
}
