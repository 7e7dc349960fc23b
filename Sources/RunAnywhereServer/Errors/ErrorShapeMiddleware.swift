import Hummingbird

/// Answers every error thrown inside it with an ``APIError`` in one ``ErrorShape``: the router's
/// own in OpenAI's shape (unknown paths too), and the Messages routes' and ollama's routes' in
/// theirs, around the origin guard and the API key, whose refusals take the family's shape too
/// (`RunAnywhereServer.router()`). Unexpected errors are logged here and reach the client
/// without their details; so is a full disk (507), which only the server's operator can fix.
struct ErrorShapeMiddleware<Context: RequestContext>: RouterMiddleware {
    let shape: ErrorShape

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = APIError.from(error)
            if answer.status == .internalServerError || answer.status == APIError.insufficientStorage {
                context.logger.error("Request failed", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            }
            return try shape.response(answer)
        }
    }
}
