import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Synchronization
import Testing

@testable import RunAnywhereServer

extension RunAnywhereServer {
    /// The server's routes and services as ``application()`` serves them, every answer a test receives
    /// checked against the OpenAPI document once the test is done (``ContractCheckedApplication``).
    func checkedApplication() -> ContractCheckedApplication {
        ContractCheckedApplication(server: self)
    }
}

/// An in-process application whose every answer to a documented route (its status, content type
/// and body: JSON whole, NDJSON line by line, server-sent events event by event) is checked
/// against `Sources/RunAnywhereServer/openapi.json` after the test's requests (``OpenAPIAnswers``:
/// the document closed to fields it does not name, so a field the route writes that the document
/// leaves out fails as a missing one does). Requests no route matched (404s of unknown paths) are not checked.
struct ContractCheckedApplication {
    let server: RunAnywhereServer

    /// Runs `test` against the application, as Hummingbird's `test(_:_:)` does, then checks what it answered.
    func test<Value>(
        _ setup: TestingSetup, sourceLocation: SourceLocation = #_sourceLocation,
        _ test: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let answers = RecordedAnswers()
        let app = Application(
            responder: RecordingResponder(inner: server.router().buildResponder(), answers: answers),
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "RunAnywhere"),
            services: server.services,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let value = try await app.test(setup, test)
        try await OpenAPIAnswers.check(answers.all, sourceLocation: sourceLocation)
        return value
    }
}

/// The router's responder, each answer's body recorded as it is written.
struct RecordingResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == ServerContext {
    typealias Context = ServerContext
    let inner: Inner
    let answers: RecordedAnswers

    func respond(to request: Request, context: Context) async throws -> Response {
        var response = try await inner.respond(to: request, context: context)
        guard let path = context.endpointPath, path != "NotFound" else { return response }
        let index = answers.start(
            method: request.method.rawValue, path: path, status: Int(response.status.code),
            contentType: response.headers[.contentType] ?? "")
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { [answers] writer in
            try await body.write(
                writer.map { buffer in
                    answers.append(buffer, to: index)
                    return buffer
                })
        }
        return response
    }
}
