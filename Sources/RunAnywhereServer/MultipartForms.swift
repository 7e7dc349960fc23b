import Foundation
import Hummingbird
import MultipartKit
import RunAnywhere

/// A form read from multipart/form-data: its fields are its `CodingKeys`, each sent once (a
/// list's parts are named `name[]`); its files are ``UploadedFile``s.
protocol MultipartForm: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable
}

/// Reads a multipart/form-data body of at most `limit` bytes (413 beyond) into `T`; a missing
/// field, a field sent twice or a body that is not a form is a 400.
func decodeMultipartForm<T: MultipartForm>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
    guard let header = request.headers[.contentType], let mediaType = MediaType(from: header), mediaType.isType(.multipartForm),
        let boundary = mediaType.parameter.flatMap({ $0.name.lowercased() == "boundary" ? $0.value : nil })
    else {
        throw APIError(.badRequest, "The body must be multipart/form-data with a boundary")
    }
    let body = try await collectBody(of: request, limit: limit)
    // MultipartKit's decoding takes time that grows with the square of the parts: a form of ours
    // has a few fields and files, and one of tens of thousands of tiny parts would hold a thread
    // for minutes.
    let (names, closed, notUTF8) = multipartParts(of: body, boundary: boundary)
    guard names.count <= maxMultipartParts else { throw APIError(.badRequest, "The form has more than \(maxMultipartParts) parts") }
    // MultipartKit reads a body with no part, or one cut short, as a form without fields.
    guard !names.isEmpty, closed else {
        throw APIError(
            .badRequest,
            "The body is not well-formed multipart/form-data: \(names.isEmpty ? "it has no part" : "its last part never ends") (boundary '\(boundary)')"
        )
    }
    // MultipartKit reads headers as UTF-8 only, and would say only that the body is no form.
    if let part = notUTF8 {
        throw APIError(
            .badRequest,
            "The headers of the form's part \(part + 1) are not UTF-8 (a file name in another encoding?); send names in UTF-8, or as filename*=ISO-8859-1''…"
        )
    }
    // MultipartKit keeps the last of two parts of one name (parts of no field of the form are not read).
    let fields = Set(T.CodingKeys.allCases.map(\.stringValue))
    var seen = Set<String>()
    if let repeated = names.first(where: { name in name.map { fields.contains($0) && !seen.insert($0).inserted } ?? false }) ?? nil {
        throw APIError(.badRequest, "The form has more than one part named '\(repeated)'; send one", param: repeated)
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

/// The names of the parts of `body` (nil for a part whose headers name none), found in one pass
/// (`memchr` to each `-`, then a comparison with the boundary delimiter; counted until past
/// ``maxMultipartParts``), whether it has the closing delimiter (`--boundary--`) that ends a form,
/// and the index of the first part whose headers are not UTF-8, if one is not.
func multipartParts(of body: ByteBuffer, boundary: String) -> (names: [String?], closed: Bool, notUTF8: Int?) {
    let delimiter = Array("--\(boundary)".utf8)
    return body.withUnsafeReadableBytes { bytes in
        guard let base = bytes.baseAddress, bytes.count >= delimiter.count else { return ([], false, nil) }
        var names: [String?] = []
        var closed = false
        var notUTF8: Int?
        var offset = 0
        let last = bytes.count - delimiter.count
        while !closed, names.count <= maxMultipartParts + 1, offset <= last,
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
                let headers = partHeaders(in: UnsafeRawBufferPointer(rebasing: bytes[offset..<min(bytes.count, offset + 4_096)]))
                if headers == nil, notUTF8 == nil { notUTF8 = names.count }
                names.append(headers.flatMap { $0 })
            }
        }
        return (names, closed, notUTF8)
    }
}

/// The `name` of the part whose headers begin `bytes` (after its delimiter), from its
/// Content-Disposition header (`.some(nil)`: none); nil when the headers are not UTF-8.
private func partHeaders(in bytes: UnsafeRawBufferPointer) -> String?? {
    var end = 0
    while end + 4 <= bytes.count, !(bytes[end] == 13 && bytes[end + 1] == 10 && bytes[end + 2] == 13 && bytes[end + 3] == 10) {
        end += 1
    }
    if end + 4 > bytes.count { end = bytes.count }
    guard let block = String(validating: bytes[..<end], as: UTF8.self) else { return nil }
    for line in block.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
        return .some(UploadedFile.parameter("name", inDisposition: String(line)))
    }
    return .some(nil)
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

    /// The file's audio, decoded by `runtime`'s audio decoder; a file it cannot read (or longer
    /// than `maxDuration`) is a 400 naming the form's `file`.
    func audio(decodedBy runtime: RunAnywhereRuntime, maxDuration: TimeInterval?) async throws -> AudioSamples {
        do {
            return try await runtime.decodeAudio(data, name: displayName, maxDuration: maxDuration)
        } catch let error as SDKError where error.code == .invalidInput || error.code == .emptyInput {
            throw APIError.from(error).naming("file")
        }
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.typeMismatch(
            UploadedFile.self, .init(codingPath: decoder.codingPath, debugDescription: "A file is read from a multipart form only"))
    }

    /// The file's name as the client gave it, or "The upload": at most 100 Unicode scalars, with each
    /// control, format or line-breaking character as "?" so that it cannot break a message or a log line.
    var displayName: String {
        guard let filename, !filename.isEmpty else { return "The upload" }
        // Counted in scalars: one letter may carry any number of combining marks.
        var name = String.UnicodeScalarView()
        name.append(contentsOf: filename.unicodeScalars.prefix(100))
        return String(String(name).map { $0.isPrintableInLine ? $0 : "?" })
    }

    /// The file name in a Content-Disposition header: RFC 5987's `filename*=UTF-8''…` or
    /// `ISO-8859-1''…` (as browsers and HTTP libraries write a name that is not ASCII), else
    /// `filename="…"`.
    static func filename(inDisposition header: String) -> String? {
        if let extended = parameter("filename*", inDisposition: header) {
            let parts = extended.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
            if parts.count == 3, let bytes = percentDecoded(parts[2]) {
                switch parts[0].lowercased() {
                case "utf-8": if let name = String(bytes: bytes, encoding: .utf8) { return name }
                case "iso-8859-1": if let name = String(bytes: bytes, encoding: .isoLatin1) { return name }
                default: break
                }
            }
        }
        return parameter("filename", inDisposition: header)
    }

    /// The bytes `text` stands for with its `%XX` escapes read; nil where an escape is not one.
    private static func percentDecoded(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var rest = text.utf8[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard rest.count >= 2, let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            rest = rest.dropFirst(2)
        }
        return bytes
    }

    /// The parameter `key` of a Content-Disposition header, unquoted (a quoted string's `\"` and
    /// `\\` read as the characters they escape).
    static func parameter(_ key: String, inDisposition header: String) -> String? {
        for parameter in header.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == key else { continue }
            let value = pair[1]
            guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
            var unquoted = ""
            var escaped = false
            for character in value.dropFirst().dropLast() {
                if !escaped, character == "\\" {
                    escaped = true
                    continue
                }
                unquoted.append(character)
                escaped = false
            }
            return unquoted
        }
        return nil
    }
}
