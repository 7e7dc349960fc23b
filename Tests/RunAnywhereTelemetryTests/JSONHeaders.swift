import Hummingbird

extension HTTPFields {
    /// The headers of a JSON request body, which the routes that take JSON require.
    static let json: HTTPFields = [.contentType: "application/json"]
}
