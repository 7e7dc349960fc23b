import Foundation
import NIOCore
import Synchronization
import Testing

/// What a test's requests were answered, in order: each answer's route, status, content type and
/// body, for ``OpenAPIAnswers/check(_:sourceLocation:)``.
package final class RecordedAnswers: Sendable {
    /// One answer: the route (as the document writes it, or the concrete path), its status,
    /// content type and body.
    package struct Answer: Encodable, Sendable {
        let method: String
        let path: String
        let status: Int
        let contentType: String
        var body: Data
    }

    private let answers = Mutex<[Answer]>([])

    /// An empty record.
    package init() {}

    /// Every answer recorded so far.
    package var all: [Answer] { answers.withLock { $0 } }

    /// Starts recording an answer whose body is still to come; returns its place.
    package func start(method: String, path: String, status: Int, contentType: String) -> Int {
        answers.withLock {
            $0.append(Answer(method: method, path: path, status: status, contentType: contentType, body: Data()))
            return $0.count - 1
        }
    }

    /// Adds `bytes` to the body of the answer at `index`.
    package func append(_ bytes: ByteBuffer, to index: Int) {
        answers.withLock { $0[index].body.append(contentsOf: bytes.readableBytesView) }
    }

    /// Records a whole answer.
    package func record(method: String, path: String, status: Int, contentType: String, body: Data) {
        answers.withLock { $0.append(Answer(method: method, path: path, status: status, contentType: contentType, body: body)) }
    }
}

/// Answers checked against the OpenAPI document, closed to the fields it does not name, by
/// `Tests/clients/openapi_validation.py` (jsonschema, draft 2020-12): JSON whole, NDJSON line by
/// line, server-sent events event by event; an undocumented status, content type or field fails
/// the test, naming the route, status and field.
package enum OpenAPIAnswers {
    /// The record a test's helpers add answers to, inside ``checking(sourceLocation:_:)``.
    @TaskLocal package static var recording: RecordedAnswers?

    /// Runs `body` with its answers recorded (helpers add to ``recording``), then checks them.
    package static func checking<Value>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Value) async throws
        -> Value
    {
        let answers = RecordedAnswers()
        let value = try await $recording.withValue(answers) { try await body() }
        try await check(answers.all, sourceLocation: sourceLocation)
        return value
    }

    /// The repository: the document and the validating script beside the clients' checks.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Validates `answers` in a Python process, awaited without holding a thread of the
    /// cooperative pool (on 2 cores, blocking one would stall the other tests' timed requests).
    /// A unit-test run (`RUNANYWHERE_TEST_UNIT=1`) without the tests' Python packages skips it.
    package static func check(_ answers: [RecordedAnswers.Answer], sourceLocation: SourceLocation) async throws {
        guard !answers.isEmpty else { return }
        guard let python = TestEnvironment.venvPython, TestEnvironment.pythonHas("jsonschema", python: python) else {
            if ProcessInfo.processInfo.environment["RUNANYWHERE_TEST_UNIT"] == "1" { return }
            Issue.record(
                "The answers cannot be checked against the OpenAPI document: run scripts/setup --tests (jsonschema)",
                sourceLocation: sourceLocation)
            return
        }
        let name = UUID().uuidString
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("answers-\(name).jsonl")
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("answers-\(name).txt")
        defer { for url in [file, report] { try? FileManager.default.removeItem(at: url) } }
        let lines = try answers.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        _ = FileManager.default.createFile(atPath: report.path, contents: nil)
        let output = try FileHandle(forWritingTo: report)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = python
        process.arguments = [
            root.appendingPathComponent("Tests/clients/openapi_validation.py").path,
            root.appendingPathComponent("Sources/RunAnywhereServer/openapi.json").path, file.path,
        ]
        process.standardOutput = output
        process.standardError = output
        let status = try await withCheckedThrowingContinuation { (finished: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { finished.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                finished.resume(throwing: error)
            }
        }
        if status != 0 {
            let printed = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
            Issue.record("Answers that do not match the OpenAPI document:\n\(printed)", sourceLocation: sourceLocation)
        }
    }
}
