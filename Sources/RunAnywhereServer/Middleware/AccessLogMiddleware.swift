import Hummingbird
import Logging

/// One structured log line per request once its response head is ready: method, path (never the
/// query, which may carry secrets), status and milliseconds; the same request is counted in the
/// server's metrics under its route pattern. Errors are seen after ``ErrorShapeMiddleware`` has
/// turned them into responses, so every request gets its status.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        metrics.started()
        var status = 500
        defer {
            metrics.finished(route: context.endpointPath ?? "unmatched", method: "\(request.method)", status: status, after: .now - start)
        }
        let response = try await next(request, context)
        status = response.status.code
        let milliseconds = (ContinuousClock.now - start).inSeconds * 1000
        context.logger.info(
            "\(request.method) \(request.uri.path) \(status)",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(status)",
                "ms": "\((milliseconds * 10).rounded() / 10)",
            ])
        return response
    }
}
