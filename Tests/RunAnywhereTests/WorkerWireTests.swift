import Foundation
import Testing

@testable import RunAnywhere

/// The lines between the runtime and an engine worker: a token's line carries any bytes (a
/// newline, a byte that is not UTF-8 alone, none at all) and leaves nothing JSON-shaped to it.
@Suite struct WorkerWireTests {
    @Test func aTokenLineCarriesItsBytesExactly() {
        for bytes in [[], Array(" hello".utf8), [0x0A, 0x00, 0xFF, 0x80, 0x7B], Array(0...255)] as [[UInt8]] {
            let line = WorkerTokenLine.encode(id: 18_446_744_073_709_551_615, bytes: bytes)
            #expect(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A })
            let read = WorkerTokenLine.decode(line.dropLast())
            #expect(read?.id == UInt64.max && read?.bytes == bytes)
            #expect(WorkerTokenLine.isTokenLine(line))
        }
        for malformed in ["T", "T x 00", "T 1 0", "T 1 zz", "T -1 00", "{\"event\":1}"] {
            #expect(WorkerTokenLine.decode(Data(malformed.utf8)) == nil, "\(malformed)")
        }
    }

    /// A log-probability's line carries the token's and each alternative's id, exact log-probability
    /// (-infinity and the least subnormal included) and bytes.
    @Test func aLogprobLineCarriesItsTokensExactly() {
        let alternatives = [
            TokenLogprob(id: 0, bytes: [], logprob: -.infinity), TokenLogprob(id: 49_151, bytes: [0x0A, 0x2C, 0x20], logprob: -9999),
            TokenLogprob(id: Int32.max, bytes: Array(0...255), logprob: -.leastNonzeroMagnitude),
        ]
        for logprob in [
            TokenLogprob(id: 504, bytes: Array("The".utf8), logprob: -0.6411),
            TokenLogprob(id: 7, bytes: [0xC3], logprob: 0, topLogprobs: alternatives),
        ] {
            let line = WorkerLogprobLine.encode(id: UInt64.max, logprob: logprob)
            #expect(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A } && WorkerLogprobLine.isLogprobLine(line))
            let read = WorkerLogprobLine.decode(line.dropLast())
            #expect(read?.id == UInt64.max && read?.logprob == logprob)
        }
        for malformed in ["L", "L 1", "L 1 5,0", "L 1 5,zz,00", "L 1 5,0,0", "L x 5,0,00", "T 1 00"] {
            #expect(WorkerLogprobLine.decode(Data(malformed.utf8)) == nil, "\(malformed)")
        }
    }

    /// Lines cut from reads that hold many, one split across reads, and a last one without its newline.
    @Test func linesAreCutWhereverTheReadsEnd() throws {
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        let (readEnd, writeEnd) = (pipe[0], pipe[1])
        let lines = (0..<2000).map { "line \($0) " + String(repeating: "x", count: $0 % 97) }
        let writer = Thread {
            var text = Data(lines.joined(separator: "\n").utf8)
            while !text.isEmpty {
                let size = min(text.count, 1 + text.count % 4093)
                WorkerWire.write(text.prefix(size), to: writeEnd)
                text = text.dropFirst(size)
            }
            close(writeEnd)
        }
        writer.start()
        var read: [String] = []
        WorkerWire.readLines(from: readEnd) { read.append(String(decoding: $0, as: UTF8.self)) }
        close(readEnd)
        #expect(read == lines)
    }
}
