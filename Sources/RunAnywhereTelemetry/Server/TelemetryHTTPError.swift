import Foundation
import Hummingbird
import RunAnywhere

/// An error answered as `{"error": {"message": …, "field": …}}` with its status.
package struct TelemetryHTTPError: HTTPResponseError, Sendable {
    package let status: HTTPResponse.Status
    /// What went wrong, for people.
    package let message: String
    /// The request field at fault, when there is one.
    package let field: String?

    /// An error with `status` and `message`, naming `field`.
    package init(_ status: HTTPResponse.Status, _ message: String, field: String? = nil) {
        self.status = status
        self.message = message
        self.field = field
    }

    /// `error` as the collector answers it: its own errors as they are, the store's as 507 (no
    /// space) or 500, anything else as 500.
    static func from(_ error: any Error) -> TelemetryHTTPError {
        if let error = error as? TelemetryHTTPError { return error }
        if let error = error as? any HTTPResponseError {
            return TelemetryHTTPError(
                error.status, error.status == .contentTooLarge ? "The body is too large" : "\(error.status.reasonPhrase)")
        }
        if let error = error as? SDKError {
            return TelemetryHTTPError(
                error.code == .insufficientStorage ? .init(code: 507, reasonPhrase: "Insufficient Storage") : .internalServerError,
                error.message)
        }
        return TelemetryHTTPError(.internalServerError, "The collector failed: \(error)")
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let data = try JSONEncoder().encode(ErrorBody(error: .init(message: message, field: field)))
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// `{"error": {"message": …, "field": …}}`.
private struct ErrorBody: Encodable {
    struct Detail: Encodable {
        let message: String
        let field: String?
    }
    let error: Detail
}

/// Turns every error a route throws into a ``TelemetryHTTPError`` response, logging the server's own.
struct TelemetryErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = TelemetryHTTPError.from(error)
            if answer.status.code >= 500 { context.logger.error("\(request.method) \(request.uri.path): \(answer.message)") }
            return try answer.response(from: request, context: context)
        }
    }
}

/// With an API key, only requests with `Authorization: Bearer <key>` reach `/telemetry…` and the
/// SDK backend's `/api/…` (`/health` stays open for supervisors).
struct TelemetryKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/telemetry") || request.uri.path.hasPrefix("/api/") else {
            return try await next(request, context)
        }
        guard ConstantTime.isBearer(request.headers[.authorization], key: key) else {
            throw TelemetryHTTPError(.unauthorized, "A valid API key is needed: send 'Authorization: Bearer <key>'")
        }
        return try await next(request, context)
    }
}

/// Refuses with a 403 what a web page on another site sent or could read (``RequestOriginPolicy``):
/// the collector's clients are harnesses and scripts, which send no `Origin`.
struct TelemetryOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: RequestOriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = policy.refusal(request) { throw TelemetryHTTPError(.forbidden, refusal.description) }
        return try await next(request, context)
    }
}
