/// Where a model's entry came from: the built-in catalog (`remote`) or the user (`local`).
public enum ModelSource: String, Codable, Sendable {
    case remote
    case local
}
