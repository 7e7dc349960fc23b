import Foundation
import Hummingbird

/// An error as ollama's API reports it: `{"error": "…"}` with the failure's HTTP status, which
/// ollama's clients raise (the Python package's `ResponseError`): the shape of every failure on
/// ollama's routes (``ErrorShape/ollama``), also the API key's and the body's. A failure after a
/// stream has begun is the stream's last line, in the same shape.
struct OllamaError: Encodable, Sendable {
    let error: String

    /// The same failure as `error`, with its message.
    init(_ error: APIError) {
        self.error = error.message
    }
}
