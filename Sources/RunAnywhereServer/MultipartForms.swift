import Foundation
import Hummingbird
import MultipartKit

/// Reads a multipart/form-data body of at most `limit` bytes (413 beyond) into `T`, whose file
/// fields are ``UploadedFile``s; a missing field or a body that is not a form is a 400.
func decodeMultipartForm<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
    guard let header = request.headers[.contentType], let mediaType = MediaType(from: header), mediaType.isType(.multipartForm),
        let boundary = mediaType.parameter.flatMap({ $0.name.lowercased() == "boundary" ? $0.value : nil })
    else {
        throw APIError(.badRequest, "The body must be multipart/form-data with a boundary")
    }
    let body = try await collectBody(of: request, limit: limit)
    // MultipartKit's decoding takes time that grows with the square of the parts: a form of ours
    // has a few fields and files, and one of tens of thousands of tiny parts would hold a thread
    // for minutes.
    let (parts, closed) = multipartParts(of: body, boundary: boundary)
    guard parts <= maxMultipartParts else { throw APIError(.badRequest, "The form has more than \(maxMultipartParts) parts") }
    // MultipartKit reads a body with no part, or one cut short, as a form without fields.
    guard parts > 0, closed else {
        throw APIError(
            .badRequest,
            "The body is not well-formed multipart/form-data: \(parts == 0 ? "it has no part" : "its last part never ends") (boundary '\(boundary)')"
        )
    }
    do {
        return try FormDataDecoder().decode(T.self, from: body, boundary: boundary)
    } catch let error as APIError {
        throw error  // a field refused by name (NumberField)
    } catch let error as DecodingError {
        if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
            throw APIError(.badRequest, "The body is not well-formed multipart/form-data")
        }
        throw error  // a 400 naming the field
    } catch {
        throw APIError(.badRequest, "The body is not well-formed multipart/form-data")
    }
}

/// The most parts a form may have (the largest, a RAG upload, has a part per document).
let maxMultipartParts = 1_000

/// How many parts `body` has at most (the boundary delimiters in it, found in one pass: `memchr`
/// to each `-`, then a comparison; counted until past ``maxMultipartParts``), and whether it has
/// the closing delimiter (`--boundary--`) that ends a form.
func multipartParts(of body: ByteBuffer, boundary: String) -> (parts: Int, closed: Bool) {
    let delimiter = Array("--\(boundary)".utf8)
    return body.withUnsafeReadableBytes { bytes in
        guard let base = bytes.baseAddress, bytes.count >= delimiter.count else { return (0, false) }
        var count = 0
        var closed = false
        var offset = 0
        let last = bytes.count - delimiter.count
        while !closed, count <= maxMultipartParts + 1, offset <= last,
            let found = memchr(base + offset, Int32(UInt8(ascii: "-")), last - offset + 1)
        {
            let position = base.distance(to: UnsafeRawPointer(found))
            guard memcmp(found, delimiter, delimiter.count) == 0 else {
                offset = position + 1
                continue
            }
            offset = position + delimiter.count
            if offset + 2 <= bytes.count, bytes[offset] == UInt8(ascii: "-"), bytes[offset + 1] == UInt8(ascii: "-") {
                closed = true
            } else {
                count += 1
            }
        }
        return (count, closed)
    }
}

/// A file part of a form: its bytes and the name the client gave it (shown in errors only,
/// never used as a path).
struct UploadedFile: Decodable, Sendable, MultipartPartConvertible {
    let data: Data
    let filename: String?

    var multipart: MultipartPart? { MultipartPart(body: data) }

    init?(multipart: MultipartPart) {
        data = Data(buffer: multipart.body)
        filename = multipart.headers.first(name: "Content-Disposition").flatMap(Self.filename(inDisposition:))
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.typeMismatch(
            UploadedFile.self, .init(codingPath: decoder.codingPath, debugDescription: "A file is read from a multipart form only"))
    }

    /// The file's name as the client gave it, or "The upload".
    var displayName: String {
        guard let filename, !filename.isEmpty else { return "The upload" }
        return String(filename.prefix(100).map { $0.isASCII && !$0.isNewline ? $0 : "?" })
    }

    /// `filename="…"` in a Content-Disposition header.
    static func filename(inDisposition header: String) -> String? {
        for parameter in header.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "filename" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}
