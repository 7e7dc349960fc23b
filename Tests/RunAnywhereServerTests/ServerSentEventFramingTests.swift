import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenAPIRuntime
import RunAnywhere
import Testing

@testable import RunAnywhereServer

/// The server frames its events itself, and byte for byte as OpenAPIRuntime's encoder frames them:
/// names and ids with their newlines dropped, data split at CR LF, CR and LF, empty lines kept.
@Suite struct ServerSentEventFramingTests {
    static let events: [ServerSentEvent] = [
        ServerSentEvent(data: #"{"choices":[{"text":"Hi"}]}"#),
        ServerSentEvent(data: "[DONE]"),
        ServerSentEvent(event: "delta", data: #"{"content":"é漢字🙂"}"#),
        ServerSentEvent(id: "7", event: "message_start", data: "{}", retry: 1500),
        ServerSentEvent(id: "a\r\nb\rc\nd", event: "na\nme\r", data: "x"),
        ServerSentEvent(data: "one\ntwo\r\nthree\rfour"),
        ServerSentEvent(data: "ends with a newline\n"),
        ServerSentEvent(data: "\r\n\r\n\n\r"),
        ServerSentEvent(data: ""),
        ServerSentEvent(event: "ping"),
        ServerSentEvent(retry: 0),
        ServerSentEvent(),
    ]

    @Test func framedAsOpenAPIRuntimeFramesThem() async throws {
        for event in Self.events {
            var ours = ByteBuffer()
            ServerSentEvents.frame(event, into: &ours)
            var theirs: [UInt8] = []
            for try await slice in [event].async.asEncodedServerSentEvents() { theirs += slice }
            #expect(Array(ours.readableBytesView) == theirs, "\(event)")
        }
    }

    @Test func aStreamOfThemReadsBackAsTheEvents() async throws {
        var framed = ByteBuffer()
        for event in Self.events { ServerSentEvents.frame(event, into: &framed) }
        var read: [ServerSentEvent] = []
        for try await event in [ArraySlice(framed.readableBytesView)].async.asDecodedServerSentEvents() { read.append(event) }
        // A reader sees names without their newlines and data with LF line ends.
        func withoutNewlines(_ text: String?) -> String? { text.map { $0.filter { $0 != "\r" && $0 != "\n" && $0 != "\r\n" } } }
        #expect(read.map(\.event) == Self.events.map { withoutNewlines($0.event) })
        #expect(read.map(\.id) == Self.events.map { withoutNewlines($0.id) })
        #expect(read.map(\.retry) == Self.events.map(\.retry))
        #expect(
            read.map(\.data)
                == Self.events.map { $0.data?.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") })
    }

    /// The streams that are not a generation's (an image's steps, a transcription, a voice turn):
    /// whatever ends the work, an SDK error or any other, is the stream's last event, in the
    /// route's shape; a cancelled one ends with no event.
    @Test func aStreamThatFailsEndsWithItsErrorAndACancelledOneJustEnds() async throws {
        struct Unforeseen: Error {}
        let progress = ServerSentEvent(event: "progress", data: "{}")
        let router = Router()
        for (path, failure) in [
            ("sdk", SDKError.llm(.generationFailed, "the engine gave up") as any Error), ("other", Unforeseen()),
            ("cancelled", CancellationError()),
        ] {
            router.get(RouterPath(path)) { _, _ in
                ServerSentEvents.response { send in
                    try await send([progress])
                    throw failure
                }
            }
        }
        router.get("shaped") { _, _ in
            ServerSentEvents.response(failure: { _ in ServerSentEvent(data: "shaped") }) { _ in throw Unforeseen() }
        }
        func events(_ path: String) async throws -> [ServerSentEvent] {
            try await Application(router: router).test(.router) { client in
                try await client.execute(uri: path, method: .get) { response in
                    var read: [ServerSentEvent] = []
                    for try await event in [ArraySlice(response.body.readableBytesView)].async.asDecodedServerSentEvents() {
                        read.append(event)
                    }
                    return read
                }
            }
        }
        let sdk = try await events("/sdk")
        #expect(sdk.map(\.event) == ["progress", "error"])
        #expect(sdk.last?.data?.contains("the engine gave up") == true)
        let other = try await events("/other")
        #expect(other.map(\.event) == ["progress", "error"])
        #expect(other.last?.data?.contains("server_error") == true)
        // No error event: the stream ends as its task does (by a client that hung up).
        await #expect(throws: CancellationError.self) { try await events("/cancelled") }
        #expect(try await events("/shaped").map(\.data) == ["shaped"])
    }
}
