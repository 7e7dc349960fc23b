import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereServer

/// A running server's connections, driven byte by byte on raw sockets: bytes that are not HTTP get
/// a 400 that closes the connection, a connection left idle is closed (with a 408 when no request
/// came), and a request that runs longer than the idle time is not cut; never a connection left
/// open with no answer. In a lane for its threads: a test on Swift's cooperative pool, busy with
/// the unit tests, could send its request later than the idle time the server gives it.
@Suite(.inProcessLane) struct ServerConnectionTests {
    static let malformed: [(String, [UInt8])] = [
        ("a NUL byte in a header", Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test: a".utf8) + [0] + Array("b\r\n\r\n".utf8)),
        ("a header line without a colon", Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n".utf8)),
        ("a request line that is not HTTP", Array("GARBAGE\r\n\r\n".utf8)),
    ]
    static let health = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Whether they come as the connection's first request or after a good one.
    @Test(.hangLimit(.seconds(60))) func malformedRequestsGetA400AndTheirConnectionClosed() async throws {
        try await Self.serving(ServerConfiguration(port: 0, logger: Self.quiet)) { port in
            for (name, request) in Self.malformed {
                let first = try await Self.exchange(request, port: port)
                #expect(first.hasPrefix("HTTP/1.1 400"), "\(name), as the first request: \(first)")
                #expect(first.lowercased().contains("connection: close"), "\(name), as the first request: \(first)")
                #expect(first.contains(#""code":"malformed_request""#), "\(name), as the first request: \(first)")
                let second = try await Self.exchange(Self.health + request, port: port)
                #expect(second.hasPrefix("HTTP/1.1 200") && second.contains("HTTP/1.1 400"), "\(name), after a good request: \(second)")
            }
            #expect(try await Self.exchange(Self.health, port: port, close: true).hasPrefix("HTTP/1.1 200"), "the server still answers")
        }
    }

    /// An HTTP/1.0 request without `keep-alive`, and one that asks for `Close` in its own letter
    /// case, each get their answer and a closed connection, well before the idle time would
    /// close it; an HTTP/1.0 request with `keep-alive` keeps its connection and is told so.
    @Test(.hangLimit(.seconds(60))) func requestsThatDoNotKeepTheirConnectionHaveItClosed() async throws {
        var configuration = ServerConfiguration(port: 0, logger: Self.quiet)
        configuration.idleTimeout = .seconds(600)
        try await Self.serving(configuration) { port in
            let requests = ["GET /health HTTP/1.0\r\n\r\n", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Close\r\n\r\n"]
            let answers = try await RawConnection.exchanges(requests.map { Array($0.utf8) }, port: port, within: .seconds(30))
            for answer in try #require(answers, "a connection was left open") {
                #expect(answer.hasPrefix("HTTP/1.1 200") && answer.lowercased().contains("\r\nconnection: close\r\n"), "\(answer)")
            }
            // Two requests on one connection, read together: each answer says its own request's word.
            let kept = Array("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /health HTTP/1.0\r\n\r\n".utf8)
            let both = try #require(try await RawConnection.exchanges([kept], port: port, within: .seconds(30))?.first, "left open")
            let heads = both.lowercased().components(separatedBy: "http/1.1 200").dropFirst()
            #expect(heads.count == 2 && heads.first?.contains("connection: keep-alive") == true, "\(both)")
            #expect(heads.last?.contains("connection: close") == true, "\(both)")
        }
    }

    /// With an idle time of two seconds, and answers that take three (five words at 600 ms each).
    @Test(.hangLimit(.seconds(60))) func idleConnectionsAreClosedAndLongRequestsAreNot() async throws {
        var configuration = ServerConfiguration(port: 0, logger: Self.quiet)
        configuration.idleTimeout = .seconds(2)
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(tokenDelay: .milliseconds(600)))
        try await Self.serving(configuration, runtime: runtime) { port in
            let silent = try await Self.exchange([], port: port)
            #expect(silent.hasPrefix("HTTP/1.1 408") && silent.contains(#""code":"request_timeout""#), "no request: \(silent)")
            let half = try await Self.exchange(Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8), port: port)
            #expect(half.hasPrefix("HTTP/1.1 408"), "half a request: \(half)")
            let kept = try await Self.exchange(Self.health, port: port)
            #expect(
                kept.hasPrefix("HTTP/1.1 200") && kept.components(separatedBy: "HTTP/1.1 ").count == 2, "a kept-alive connection: \(kept)")
            for stream in [false, true] {
                let body = #"{"model":"scripted","stream":\#(stream),"messages":[{"role":"user","content":"one two three four five"}]}"#
                let request =
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                let answer = try await Self.exchange(Array(request.utf8), port: port)
                #expect(
                    answer.hasPrefix("HTTP/1.1 200") && answer.contains("five"), "a three-second answer, streamed: \(stream): \(answer)")
                #expect(stream == answer.contains("[DONE]"), "a three-second answer, streamed: \(stream): \(answer)")
            }
        }
    }

    /// Runs a server with `configuration` (and a scripted runtime) while `body` uses its port.
    static func serving(
        _ configuration: ServerConfiguration, runtime: RunAnywhereRuntime? = nil, name: String = #function,
        _ body: (Int) async throws -> Void
    ) async throws {
        let server = RunAnywhereServer(runtime: try runtime ?? scriptedRuntime(name: name), configuration: configuration)
        let (running, started) = AsyncStream.makeStream(of: Int.self)
        let serving = Task { try await server.run { started.yield($0) } }
        var failure: (any Error)?
        for await port in running {
            do { try await body(port) } catch { failure = error }
            break
        }
        serving.cancel()
        _ = try? await serving.value
        if let failure { throw failure }
    }

    /// ``RawConnection/exchange(_:port:)``; with `close`, a `Connection: close` header is added
    /// to a good request, for the server to close the connection after it.
    static func exchange(_ bytes: [UInt8], port: Int, close: Bool = false) async throws -> String {
        var bytes = bytes
        if close { bytes.insert(contentsOf: Array("Connection: close\r\n".utf8), at: bytes.count - 2) }
        return try await RawConnection.exchange(bytes, port: port)
    }
}
