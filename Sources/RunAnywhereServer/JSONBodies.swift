import Foundation
import Hummingbird
import RunAnywhere

/// Reads a JSON request body of at most `limit` bytes (413 beyond, 415 for another content type)
/// and decodes it (``decodeJSON(_:from:)``).
func decodeJSON<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
    try decodeJSON(T.self, from: Data(buffer: try await collectJSONBody(of: request, limit: limit)))
}

/// Decodes a request body; what does not decode becomes a 400 through ``APIError/from(_:)``, an
/// object naming a field twice a 400 naming it (``DuplicateKeys``),
/// and a body that is not valid JSON a 400 that says why (JSONSerialization's reason, such as half
/// of a surrogate pair, `"\ud800"`, in a string).
func decodeJSON<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
    // JSON between systems is UTF-8 (RFC 8259, 8.1); Foundation's decoder would also read
    // UTF-16 and UTF-32, which every check after it, reading the bytes, would misread. Those hold
    // NUL bytes (mostly ASCII text in UTF-16 is otherwise valid UTF-8), which UTF-8 JSON never does.
    guard !body.contains(0), String(validating: body, as: UTF8.self) != nil else {
        throw APIError(.badRequest, "The request body is not valid JSON: it is not UTF-8 text")
    }
    do {
        let value = try JSONDecoder().decode(T.self, from: body)
        if let (key, path) = DuplicateKeys.first(in: body) {
            let field = path.isEmpty ? key : "\(path).\(key)"
            throw APIError(.badRequest, "The request body names '\(field)' twice; send each field once", param: field)
        }
        return value
    } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
        var reason = "JSONDecoder cannot read it (\(context.debugDescription))"
        do {
            _ = try JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)
        } catch let syntax as NSError {
            reason = syntax.userInfo[NSDebugDescriptionErrorKey] as? String ?? reason
        }
        throw APIError(.badRequest, "The request body is not valid JSON: \(reason)")
    }
}

extension KeyedDecodingContainer {
    /// The value at `key` if it is a `T`; nil if it is of another type, null or absent. Unlike
    /// `try?`, a body that is not valid JSON still throws: JSONDecoder reads a string's escapes
    /// only when it is decoded, so half of a surrogate pair in a field that may be a string or an
    /// array would otherwise be refused as neither.
    /// A number that `T` cannot hold (1.5 or 1e20 where `T` wants an `Int`) is of another type too.
    func decodeIfOfType<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        do {
            return try decode(T.self, forKey: key)
        } catch DecodingError.typeMismatch, DecodingError.valueNotFound, DecodingError.keyNotFound {
            return nil
        } catch let error where !(error is DecodingError) {
            // Foundation's decoder throws an error of its own for such a number: the value is JSON
            // (it reads as a JSONValue), just not a `T`.
            guard (try? decode(JSONValue.self, forKey: key)) != nil else { throw error }
            return nil
        }
    }
}

extension SingleValueDecodingContainer {
    /// The value if it is a `T`; nil if it is of another type or null (as the keyed
    /// container's `decodeIfOfType(_:forKey:)`).
    func decodeIfOfType<T: Decodable>(_ type: T.Type) throws -> T? {
        do {
            return try decode(T.self)
        } catch DecodingError.typeMismatch, DecodingError.valueNotFound, DecodingError.keyNotFound {
            return nil
        } catch let error where !(error is DecodingError) {
            guard (try? decode(JSONValue.self)) != nil else { throw error }
            return nil
        }
    }
}

/// The whole body of a request that must be JSON: a 415 before it is read when its
/// `Content-Type` is anything else, or missing (a browser's `text/plain` or untyped body, which it
/// sends across origins without asking). With `optional`, an empty body may come without a type.
func collectJSONBody(of request: Request, limit: Int, optional: Bool = false) async throws -> ByteBuffer {
    if JSONMediaType.matches(request.headers[.contentType]) { return try await collectBody(of: request, limit: limit) }
    let unsupported = APIError(
        .unsupportedMediaType, "The body must be JSON, sent with 'Content-Type: application/json'", code: "unsupported_media_type"
    )
    guard optional, request.headers[.contentType] == nil else { throw unsupported }
    let body = try await collectBody(of: request, limit: limit)
    guard body.readableBytes == 0 else { throw unsupported }
    return body
}

/// The whole body of `request`, refused with a 413 beyond `limit` bytes.
func collectBody(of request: Request, limit: Int) async throws -> ByteBuffer {
    var request = request
    do {
        return try await request.collectBody(upTo: limit)
    } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
        throw APIError(.contentTooLarge, "The request body is larger than \(limit) bytes")
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

/// JSON text written without JSONEncoder's generic path.
enum JSONText {
    /// `value` as a JSON string, byte for byte as the server's JSONEncoder writes it: as it is,
    /// in quotes, when it holds no quote, backslash or control character; else JSONEncoder's own.
    static func quoted(_ value: String) throws -> String {
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return "\"\(value)\""
        }
        return String(decoding: try JSONEncoder.server.encode(value), as: UTF8.self)
    }
}
