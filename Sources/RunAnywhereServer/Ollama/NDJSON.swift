import Foundation
import Hummingbird

/// Newline-delimited JSON streams (`application/x-ndjson`), as ollama streams its answers: one
/// JSON object per line, written as soon as it is known.
enum NDJSON {
    /// A streaming response whose body `write` produces; if the client goes away, writing throws.
    static func response(_ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) -> Response {
        streamingResponse(contentType: "application/x-ndjson", write)
    }

    /// Writes `lines`, JSON texts, a line each.
    static func write(lines: [String], to writer: inout any ResponseBodyWriter) async throws {
        guard !lines.isEmpty else { return }
        var buffer = ByteBuffer()
        for line in lines {
            buffer.writeString(line)
            buffer.writeInteger(UInt8(ascii: "\n"))
        }
        try await writer.write(buffer)
    }

    /// Writes `values`, a line each.
    static func write(_ values: [some Encodable], to writer: inout any ResponseBodyWriter) async throws {
        guard !values.isEmpty else { return }
        var bytes: [UInt8] = []
        let encoder = JSONEncoder.server
        for value in values {
            bytes += try encoder.encode(value)
            bytes.append(UInt8(ascii: "\n"))
        }
        try await writer.write(ByteBuffer(bytes: bytes))
    }
}
