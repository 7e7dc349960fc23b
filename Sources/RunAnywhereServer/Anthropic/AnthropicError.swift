import Foundation
import Hummingbird

/// An error as Anthropic's Messages API reports it: `{"type": "error", "error": {"type", "message"}}`,
/// the shape of every failure on the Messages routes (``ErrorShape/anthropic``), also the API key's
/// and the body's, and of a stream's `error` event.
struct AnthropicError: Encodable, Sendable {
    struct Detail: Encodable, Sendable {
        let type: String
        let message: String
    }
    var type = "error"
    let error: Detail

    /// The same failure as `error`: its message, and Anthropic's error type for its status.
    init(_ error: APIError) {
        self.error = Detail(type: Self.type(for: error.status), message: error.message)
    }

    /// Anthropic's error type for a status.
    static func type(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 401: "authentication_error"
        case 403: "permission_error"
        case 404: "not_found_error"
        case 413: "request_too_large"
        case 429, 503, 529: "overloaded_error"
        case 400..<500: "invalid_request_error"
        default: "api_error"
        }
    }
}
