import Foundation
import Hummingbird

/// An error as ollama's API reports it: `{"error": "…"}` with the failure's HTTP status, which
/// ollama's clients raise (the Python package's `ResponseError`). The ollama routes
/// (``isOllamaPath(_:)``) answer every failure in this shape, also the API key's and the body's:
/// ``OpenAIErrorMiddleware`` turns the ``OpenAIError`` the rest of the server throws into it. A
/// failure after a stream has begun is the stream's last line, in the same shape.
struct OllamaError: Encodable, Sendable {
    let error: String

    /// The same failure as `error`, with its message.
    init(_ error: OpenAIError) {
        self.error = error.message
    }

    /// The paths of ollama's API that this server answers.
    static let paths: Set<String> = [
        "/api/chat", "/api/generate", "/api/embed", "/api/embeddings", "/api/tags", "/api/show", "/api/ps", "/api/pull", "/api/delete",
        "/api/version",
    ]

    /// Whether `path` is one of ollama's routes, whose errors take this shape.
    static func isOllamaPath(_ path: String) -> Bool { paths.contains(path) }

    /// The response to `error`: this body with the error's status.
    static func response(_ error: OpenAIError) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if error.status == .serviceUnavailable || error.status == .tooManyRequests { headers[.retryAfter] = "1" }
        return Response(
            status: error.status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder.server.encode(Self(error)))))
    }
}
