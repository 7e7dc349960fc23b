import Foundation
import Hummingbird

/// An error as Anthropic's Messages API reports it: `{"type": "error", "error": {"type", "message"}}`
/// with the matching HTTP status. The Messages routes (``isMessagesPath(_:)``) answer every
/// failure in this shape, also the API key's and the body's, which ``OpenAIErrorMiddleware``
/// turns into it from the ``OpenAIError`` the rest of the server throws.
struct AnthropicError: Encodable, Sendable {
    struct Detail: Encodable, Sendable {
        let type: String
        let message: String
    }
    var type = "error"
    let error: Detail
    let status: HTTPResponse.Status

    private enum CodingKeys: String, CodingKey { case type, error }

    /// The same failure as `error`: its status, its message, and Anthropic's error type for the status.
    init(_ error: OpenAIError) {
        status = error.status
        self.error = Detail(type: Self.type(for: error.status), message: error.message)
    }

    /// Whether `path` is one of the Messages routes, whose errors take this shape.
    static func isMessagesPath(_ path: String) -> Bool {
        path == "/v1/messages" || path.hasPrefix("/v1/messages/")
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

    /// The response: the JSON body with the error's status.
    func response() throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if status == .serviceUnavailable || status == .tooManyRequests { headers[.retryAfter] = "1" }
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder.server.encode(self))))
    }
}
