import Foundation
import Synchronization
import Testing

@testable import RunAnywhere

/// The threads that deliver what a decode loop queues (``DeliveryWake``): every line and event
/// arrives, in order, whether the loop's steps come sooner than the deliverer looks again or
/// later (once it has gone to sleep), with nothing but the loop's own flush to wake it.
@Suite struct DeliveryTests {
    /// Microseconds between a loop's steps: none, shorter than the deliverer's interval, and
    /// longer, so that it goes to sleep and must be woken by the next step.
    static let pauses: [UInt32] = [0, 300, 5_000, 0, 30_000, 1_000, 0, 10_000, 0]

    /// Each step's five tokens, named by step and place.
    static let tokens = pauses.indices.flatMap { step in (0..<5).map { "token \(step).\($0)" } }

    /// Waits until `done()` (a deliverer that loses a wake-up never gets there), at most a minute.
    func waitUntil(_ done: () -> Bool) async throws {
        for _ in 0..<600 where !done() { try await Task.sleep(for: .milliseconds(100)) }
    }

    @Test func aWorkersWriterWritesEveryLineInOrder() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        let writer = LineWriter(fd: writeEnd)
        let received = Mutex<[String]>([])
        Thread { WorkerWire.readLines(from: readEnd) { line in received.withLock { $0.append(String(decoding: line, as: UTF8.self)) } } }
            .start()
        // A decode loop queues a step's tokens and sends them; beside it, answers are written at once.
        Thread {
            for (step, pause) in Self.pauses.enumerated() {
                for place in 0..<5 { writer.queue(Data("token \(step).\(place)\n".utf8)) }
                writer.send()
                usleep(pause)
            }
        }.start()
        let answers = (0..<6).map { "answer \($0)" }
        Thread {
            for answer in answers {
                writer.write(Data("\(answer)\n".utf8))
                usleep(7_000)
            }
        }.start()
        try await waitUntil { received.withLock { $0.count } == Self.tokens.count + answers.count }
        close(writeEnd)
        let lines = received.withLock { $0 }
        #expect(lines.filter { $0.hasPrefix("token") } == Self.tokens)
        #expect(lines.filter { $0.hasPrefix("answer") } == answers)
    }

    @Test func theCourierDeliversEveryEventInOrder() async throws {
        let heard = Mutex<(tokens: [String], ended: Bool)>(([], false))
        let receiver = EventCourier.shared.carrying(
            to: LLMEngineReceiver(
                event: { event in
                    if case .token(let bytes, _) = event { heard.withLock { $0.tokens.append(String(decoding: bytes, as: UTF8.self)) } }
                },
                flush: {},
                end: { _ in heard.withLock { $0.ended = true } }
            ))
        Thread {
            for (step, pause) in Self.pauses.enumerated() {
                for place in 0..<5 { receiver.event(.token(bytes: Array("token \(step).\(place)".utf8), at: .now)) }
                receiver.flush()
                usleep(pause)
            }
            receiver.end(nil)
        }.start()
        try await waitUntil { heard.withLock { $0.ended } }
        let (tokens, ended) = heard.withLock { $0 }
        #expect(ended)
        #expect(tokens == Self.tokens)
    }
}
