import Foundation
import Hummingbird
import Testing

@testable import RunAnywhereServer

/// The vectors and strings ``VectorJSON`` writes are what the server's JSONEncoder writes, byte
/// for byte, and read back as the same bits; a value JSON has no number for is a clear 500.
@Suite struct VectorJSONTests {
    static let awkward: [Float] = [
        0, -0.0, 1, -1, 0.5, 0.1, 1e-05, -3.4e-07, 123_456_792, 16_777_216, 1e20, 0.33333334, Float(bitPattern: 0x001B_3D47),
        .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .ulpOfOne,
    ]

    static func body(_ write: (inout VectorJSON) throws -> Void) throws -> Data {
        var json = VectorJSON(floats: 4)
        try write(&json)
        return Data(buffer: json.buffer)
    }

    @Test func numbersAreWhatJSONEncoderWrites() throws {
        let random = (0..<2000).map { _ in Float.random(in: -1...1) * pow(10, Float.random(in: -12...12)) }
        for vector in [Self.awkward, random, []] {
            let written = try Self.body { try $0.vector(vector, what: "the vector") }
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: try JSONEncoder.server.encode(vector), as: UTF8.self))
            let read = try JSONDecoder().decode([Float].self, from: written)
            #expect(read.map(\.bitPattern) == vector.map(\.bitPattern))
        }
    }

    @Test(arguments: [
        "minilm", "", "a \"quoted\" name", "back\\slash", "line\nbreak\tand\u{1}", "path/with/slashes", "é漢字🙂",
        "del \u{7F} and \u{2028}\u{2029}",
    ])
    func stringsAreWhatJSONEncoderWrites(text: String) throws {
        let written = try Self.body { try $0.string(text) }
        #expect(written == (try JSONEncoder.server.encode(text)))
        #expect(try JSONDecoder().decode(String.self, from: written) == text)
    }

    @Test(arguments: [Float.nan, .infinity, -.infinity])
    func aValueJSONCannotCarryIsAServerError(value: Float) throws {
        let error = try #require(throws: APIError.self) {
            var json = VectorJSON(floats: 3)
            try json.vector([0.5, value], what: "vector 7")
        }
        #expect(error.status == .internalServerError)
        #expect(error.message.contains("position 1 of vector 7"))
    }
}
