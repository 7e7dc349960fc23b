import Hummingbird

/// An error as OpenAI's API reports it: `{"error": {"message", "type", "param", "code"}}`, the
/// server's own shape (``ErrorShape/openAI``).
struct OpenAIErrorBody: Encodable, Sendable {
    struct Detail: Encodable, Sendable {
        let message: String
        let type: String
        let param: String?
        let code: String?
    }
    let error: Detail

    /// The same failure as `error`, with OpenAI's error class for its status.
    init(_ error: APIError) {
        self.error = Detail(message: error.message, type: Self.type(for: error.status), param: error.param, code: error.code)
    }

    /// OpenAI's error class for a status, such as `invalid_request_error`.
    static func type(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 401: "authentication_error"
        case 403: "permission_error"
        case 404: "not_found_error"
        case 429, 503: "rate_limit_error"
        case 400..<500: "invalid_request_error"
        default: "server_error"
        }
    }
}
