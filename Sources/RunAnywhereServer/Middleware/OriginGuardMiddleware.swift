import Hummingbird
import RunAnywhere
import RunAnywhereTelemetry

/// Refuses, with a 403 and before any other work, requests that a web page on another site made
/// or could read: a `Host` that is not the server's address (DNS rebinding), an `Origin` that is
/// neither the server's own nor on `--cors`, a browser's cross-site request without one. The
/// rules are ``RequestOriginPolicy``'s; curl, the CLI and the official clients send no `Origin`
/// and pass.
struct OriginGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: RequestOriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = policy.refusal(request) { throw APIError(.forbidden, refusal.description, code: refusal.code) }
        return try await next(request, context)
    }
}

extension RequestOriginPolicy.Refusal {
    /// The machine-readable code of its 403.
    var code: String {
        switch self {
        case .host: "host_not_allowed"
        case .origin, .crossSite: "origin_not_allowed"
        }
    }
}
