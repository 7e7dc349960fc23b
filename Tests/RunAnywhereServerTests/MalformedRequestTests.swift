import Logging
import NIOCore
import NIOPosix
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereServer

/// Bytes that are not HTTP, sent to a running server on a raw connection: whether they come as the
/// connection's first request or after a good one, the answer is a 400 that closes the connection,
/// never a connection left open with no answer; the server goes on answering.
@Suite struct MalformedRequestTests {
    static let malformed: [(String, [UInt8])] = [
        ("a NUL byte in a header", Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test: a".utf8) + [0] + Array("b\r\n\r\n".utf8)),
        ("a header line without a colon", Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n".utf8)),
        ("a request line that is not HTTP", Array("GARBAGE\r\n\r\n".utf8)),
    ]

    @Test(.timeLimit(.minutes(1))) func malformedRequestsGetA400AndTheirConnectionClosed() async throws {
        let runtime = try scriptedRuntime()
        let server = RunAnywhereServer(
            runtime: runtime,
            configuration: ServerConfiguration(port: 0, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        let (running, started) = AsyncStream.makeStream(of: Int.self)
        let serving = Task { try await server.run { started.yield($0) } }
        defer { serving.cancel() }
        var port = 0
        for await value in running {
            port = value
            break
        }
        let health = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        for (name, request) in Self.malformed {
            let first = try await Self.exchange(request, port: port)
            #expect(first.hasPrefix("HTTP/1.1 400"), "\(name), as the first request: \(first)")
            #expect(first.lowercased().contains("connection: close"), "\(name), as the first request: \(first)")
            let second = try await Self.exchange(health + request, port: port)
            #expect(second.hasPrefix("HTTP/1.1 200") && second.contains("HTTP/1.1 400"), "\(name), after a good request: \(second)")
        }
        #expect(try await Self.exchange(health, port: port, close: true).hasPrefix("HTTP/1.1 200"), "the server still answers")
    }

    /// Sends `bytes` on a new connection and returns all that comes back until the server closes
    /// the connection (with `close`, a `Connection: close` header is added to a good request for it).
    static func exchange(_ bytes: [UInt8], port: Int, close: Bool = false) async throws -> String {
        var bytes = bytes
        if close { bytes.insert(contentsOf: Array("Connection: close\r\n".utf8), at: bytes.count - 2) }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) {
            channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: bytes))
            var answer = ByteBuffer()
            for try await var part in inbound { answer.writeBuffer(&part) }
            return String(buffer: answer)
        }
    }
}
