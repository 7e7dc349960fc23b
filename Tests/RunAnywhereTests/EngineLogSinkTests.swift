import Logging
import Testing

@testable import RunAnywhere

/// An engine's failure is explained by the error lines logged since its work began, not by those
/// another request's work left (a cancelled decode logs errors nobody reads).
@Suite struct EngineLogSinkTests {
    let sink = EngineLogSink(logger: Logger(label: "engine-log-sink-tests", factory: { _ in SwiftLogNoOpLogHandler() }), prefix: "test")

    @Test func aFailureIsExplainedByTheLinesLoggedSinceItsWorkBegan() {
        sink.receive(level: 4, text: "llama_decode: failed to decode\n")
        let mark = sink.mark()
        sink.receive(level: 4, text: "failed to parse ")
        sink.receive(level: 5, text: "grammar\n")
        sink.receive(level: 2, text: "an info line\n")
        #expect(
            sink.explain("The grammar is not one llama.cpp can use", since: mark)
                == "The grammar is not one llama.cpp can use: failed to parse grammar")
        #expect(sink.explain("Again", since: mark) == "Again", "reported once")
    }

    @Test func withoutAMarkTheLatestLinesExplainIt() {
        sink.receive(level: 4, text: "one\n")
        sink.receive(level: 4, text: "two\n")
        #expect(sink.explain("Failed") == "Failed: one; two")
        let mark = sink.mark()
        #expect(sink.explain("Failed", since: mark) == "Failed")
    }
}
