import Foundation
import Logging
import RunAnywhereTelemetry
import RunAnywhereTestSupport
import Testing

/// `runanywhere telemetry serve`'s connections on raw sockets: one a sender opens and leaves
/// idle is closed, before its first request or after its last, so that open connections cannot
/// use up the collector's file descriptors. In a lane for its threads, as the server's
/// connection tests: a request sent late on a busy machine could meet the short idle time.
@Suite(.inProcessLane) struct CollectorConnectionTests {
    static let health = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

    /// With an idle time of two seconds.
    @Test(.hangLimit(.seconds(60))) func idleConnectionsAreClosed() async throws {
        let store = try await TelemetryStoreKind.sqlite.make()
        var collector = TelemetryCollector(store: store, port: 0, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        collector.idleTimeout = .seconds(2)
        let (running, started) = AsyncStream.makeStream(of: Int.self)
        let serving = Task { [collector] in try await collector.run { started.yield($0) } }
        for await port in running {
            let silent = try await RawConnection.exchange([], port: port)
            #expect(silent.isEmpty, "a connection that sends nothing is closed with no answer: \(silent)")
            let kept = try await RawConnection.exchange(Self.health, port: port)
            #expect(
                kept.hasPrefix("HTTP/1.1 200") && kept.components(separatedBy: "HTTP/1.1 ").count == 2,
                "a kept-alive connection is answered, then closed: \(kept)")
            break
        }
        serving.cancel()
        _ = try? await serving.value
    }
}
