import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
@testable import RunAnywhereServer
import RunAnywhereTestSupport
import Synchronization
import Testing

extension RunAnywhereServer {
    /// The server's routes and services as ``application()`` serves them, every answer a test receives
    /// checked against the OpenAPI document once the test is done (``ContractCheckedApplication``).
    func checkedApplication() -> ContractCheckedApplication {
        ContractCheckedApplication(server: self)
    }
}

/// An in-process application whose every answer to a documented route (its status, content type
/// and body: JSON whole, NDJSON line by line, server-sent events event by event) is checked
/// against `Sources/RunAnywhereServer/openapi.json` by `Tests/clients/openapi_validation.py`
/// (jsonschema, draft 2020-12) after the test's requests, the document closed to fields it does
/// not name (a field the route writes that the document leaves out fails as a missing one does):
/// a mismatch is a test failure naming the route, status and field. Requests no route matched (404s of unknown paths) are not checked.
/// A unit-test run (`RUNANYWHERE_TEST_UNIT=1`) without the tests' Python packages skips the check.
struct ContractCheckedApplication {
    let server: RunAnywhereServer

    /// Runs `test` against the application, as Hummingbird's `test(_:_:)` does, then checks what it answered.
    func test<Value>(
        _ setup: TestingSetup, sourceLocation: SourceLocation = #_sourceLocation, _ test: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let answers = RecordedAnswers()
        let app = Application(
            responder: RecordingResponder(inner: server.router().buildResponder(), answers: answers),
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "RunAnywhere"),
            services: [MetricsRecorder(runtime: server.runtime, metrics: server.metrics)],
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let value = try await app.test(setup, test)
        try await Self.check(answers.all, sourceLocation: sourceLocation)
        return value
    }

    /// The repository's document, and the validating script beside the other clients' checks.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Validates `answers` in a Python process, awaited without holding a thread of the
    /// cooperative pool (on 2 cores, blocking one would stall the other tests' timed requests).
    static func check(_ answers: [RecordedAnswers.Answer], sourceLocation: SourceLocation) async throws {
        guard !answers.isEmpty else { return }
        guard let python = TestEnvironment.venvPython, TestEnvironment.pythonHas("jsonschema", python: python) else {
            if ProcessInfo.processInfo.environment["RUNANYWHERE_TEST_UNIT"] == "1" { return }
            Issue.record("The answers cannot be checked against the OpenAPI document: run scripts/setup --tests (jsonschema)", sourceLocation: sourceLocation)
            return
        }
        let name = UUID().uuidString
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("answers-\(name).jsonl")
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("answers-\(name).txt")
        defer { for url in [file, report] { try? FileManager.default.removeItem(at: url) } }
        let lines = try answers.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        FileManager.default.createFile(atPath: report.path, contents: nil)
        let output = try FileHandle(forWritingTo: report)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = python
        process.arguments = [
            root.appendingPathComponent("Tests/clients/openapi_validation.py").path, root.appendingPathComponent("Sources/RunAnywhereServer/openapi.json").path, file.path,
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

/// What the routes answered, in order: each answer's body as it is written.
final class RecordedAnswers: Sendable {
    /// One answer: the route as the document writes it, its status, content type and body.
    struct Answer: Encodable, Sendable {
        let method: String
        let path: String
        let status: Int
        let contentType: String
        var body: Data
    }

    private let answers = Mutex<[Answer]>([])

    var all: [Answer] { answers.withLock { $0 } }

    /// Starts recording an answer; returns its place.
    func start(_ answer: Answer) -> Int {
        answers.withLock {
            $0.append(answer)
            return $0.count - 1
        }
    }

    /// Adds `bytes` to the body of the answer at `index`.
    func append(_ bytes: ByteBuffer, to index: Int) {
        answers.withLock { $0[index].body.append(contentsOf: bytes.readableBytesView) }
    }
}

/// The router's responder, each answer's body recorded as it is written.
struct RecordingResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == BasicRequestContext {
    typealias Context = BasicRequestContext
    let inner: Inner
    let answers: RecordedAnswers

    func respond(to request: Request, context: Context) async throws -> Response {
        var response = try await inner.respond(to: request, context: context)
        guard let path = context.endpointPath, path != "NotFound" else { return response }
        let index = answers.start(.init(
            method: request.method.rawValue, path: path, status: response.status.code, contentType: response.headers[.contentType] ?? "", body: Data()
        ))
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { [answers] writer in
            try await body.write(writer.map { buffer in
                answers.append(buffer, to: index)
                return buffer
            })
        }
        return response
    }
}
