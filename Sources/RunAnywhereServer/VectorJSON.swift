import Foundation
import Hummingbird
import NIOCore

/// A JSON body that carries embedding vectors, written piece by piece: JSONEncoder encodes each
/// `Float` of a vector through the generic `Encodable` path, which perf showed taking about 60% of
/// the server's own time on a `/v1/embeddings` request of 32 texts; here a number is its shortest
/// round-trip text, as JSONEncoder writes it (`0.5`, `1e-05`, and `1` for `1.0`). The routes that
/// answer with vectors (OpenAI's `/v1/embeddings`, ollama's `/api/embed` and `/api/embeddings`)
/// write their fixed shapes with it; the OpenAPI document describes those shapes and the tests
/// read them with the official clients.
struct VectorJSON {
    /// The body written so far.
    private(set) var buffer: ByteBuffer

    /// An empty body with room for about `floats` numbers.
    init(floats: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: 64 + floats * 12)
    }

    /// JSON text written as it is: the keys and punctuation of the route's own shape.
    mutating func raw(_ text: StaticString) {
        buffer.writeStaticString(text)
    }

    /// `value` as a JSON string, as the server's JSONEncoder writes it.
    mutating func string(_ value: String) throws {
        buffer.writeString(try JSONText.quoted(value))
    }

    /// `value` as a JSON number.
    mutating func integer(_ value: some BinaryInteger) {
        buffer.writeString(String(value))
    }

    /// `values` as a JSON array of numbers. A value that is not finite has no JSON number: it is a
    /// 500 naming `what`, as the engine should never give one.
    mutating func vector(_ values: [Float], what: @autoclosure () -> String) throws {
        buffer.writeInteger(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            guard value.isFinite else {
                throw APIError(.internalServerError, "The engine gave \(value) at position \(index) of \(what()), which JSON cannot carry")
            }
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            var text = value.description
            text.withUTF8 { bytes in
                let whole = bytes.count > 2 && bytes[bytes.count - 2] == UInt8(ascii: ".") && bytes[bytes.count - 1] == UInt8(ascii: "0")
                buffer.writeBytes(UnsafeBufferPointer(rebasing: bytes[..<(whole ? bytes.count - 2 : bytes.count)]))
            }
        }
        buffer.writeInteger(UInt8(ascii: "]"))
    }

    /// The body as a 200 response of type `application/json`.
    func response() -> Response {
        bodyResponse(buffer, contentType: "application/json")
    }
}
