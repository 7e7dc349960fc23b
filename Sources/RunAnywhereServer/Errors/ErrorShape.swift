import Foundation
import Hummingbird

/// The shape in which an API family answers a failure: the body its official clients read, sent
/// with the failure's status. OpenAI's is the server's own, also for its internal routes;
/// Anthropic's Messages routes and ollama's routes answer in theirs (``ErrorShapeMiddleware``).
package enum ErrorShape: Sendable {
    /// `{"error": {"message", "type", "param", "code"}}` (``OpenAIErrorBody``).
    case openAI
    /// `{"type": "error", "error": {"type", "message"}}` (``AnthropicError``).
    case anthropic
    /// `{"error": "…"}` (``OllamaError``).
    case ollama

    /// The JSON body of `error` in this shape; a stream that fails after it began sends it too.
    func body(_ error: APIError) -> any Encodable & Sendable {
        switch self {
        case .openAI: OpenAIErrorBody(error)
        case .anthropic: AnthropicError(error)
        case .ollama: OllamaError(error)
        }
    }

    /// The response to `error`: its body in this shape with its status; a busy server's answer
    /// says when to try again (`Retry-After`).
    func response(_ error: APIError) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if error.status == .serviceUnavailable || error.status == .tooManyRequests { headers[.retryAfter] = "1" }
        let json = try JSONEncoder.server.encode(body(error))
        return Response(status: error.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
    }
}
