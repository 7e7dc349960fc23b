import Foundation
import Hummingbird

/// Reads a request body of at most `limit` bytes (413 beyond) and decodes it as JSON; what does
/// not decode becomes a 400 through ``OpenAIError/from(_:)``.
func decodeJSON<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
    try JSONDecoder().decode(T.self, from: Data(buffer: try await collectBody(of: request, limit: limit)))
}

/// The whole body of `request`, refused with a 413 beyond `limit` bytes.
func collectBody(of request: Request, limit: Int) async throws -> ByteBuffer {
    var request = request
    do {
        return try await request.collectBody(upTo: limit)
    } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
        throw OpenAIError(.contentTooLarge, "The request body is larger than \(limit) bytes")
    }
}

/// A JSON response.
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    bodyResponse(ByteBuffer(bytes: try JSONEncoder.server.encode(value)), contentType: "application/json", status: status)
}

/// A response of `contentType` holding `body`; with `attachment`, a file the browser saves under that name.
func bodyResponse(_ body: ByteBuffer, contentType: String, status: HTTPResponse.Status = .ok, attachment: String? = nil) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = contentType
    if let attachment { headers[.contentDisposition] = "attachment; filename=\"\(attachment)\"" }
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
}

extension JSONEncoder {
    /// How the server writes JSON: dates as ISO-8601 text, slashes unescaped.
    static var server: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}
