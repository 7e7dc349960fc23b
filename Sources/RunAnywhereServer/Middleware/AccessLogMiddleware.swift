import Hummingbird
import Logging

/// One structured log line per request once its response head is ready: method, path (never the
/// query, which may carry secrets), status and milliseconds. Errors are logged after
/// ``OpenAIErrorMiddleware`` has turned them into responses, so every request gets its status.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info("\(request.method) \(request.uri.path) \(response.status.code)", metadata: [
            "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
            "ms": "\((milliseconds * 10).rounded() / 10)",
        ])
        return response
    }
}
