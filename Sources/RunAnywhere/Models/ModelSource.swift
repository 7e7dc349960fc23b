/// Where a model's entry came from: the built-in catalog (`remote`) or the user (`local`).
public enum ModelSource: String, Codable, Sendable {
    /// From the built-in catalog.
    case remote
    /// Registered by the user (imported or added by URL).
    case local
}
