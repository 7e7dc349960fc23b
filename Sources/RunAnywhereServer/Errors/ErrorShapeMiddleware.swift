import Hummingbird

/// Answers every error thrown inside it with an ``APIError`` in one ``ErrorShape``: the router's
/// own in OpenAI's shape (an unknown path with its method and path named, in ollama's shape
/// under `/api/` and Anthropic's under `/v1/messages`), and the Messages routes' and ollama's routes' in
/// theirs, around the origin guard and the API key, whose refusals take the family's shape too
/// (`RunAnywhereServer.router()`). Unexpected errors are logged here and reach the client
/// without their details; so is a full disk (507), which only the server's operator can fix.
struct ErrorShapeMiddleware<Context: RequestContext>: RouterMiddleware {
    let shape: ErrorShape

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && error.body == nil {
            // Hummingbird's answer when no route matched (the routes throw APIErrors, which say
            // what is missing): name the request that has none. ollama's clients are the ones that
            // ask for what is not here under /api (`/api/push`), and read ollama's shape; Anthropic's
            // ask under /v1/messages (`/v1/messages/batches`), and read Anthropic's.
            let path = request.uri.path
            let shape =
                path.hasPrefix("/api/")
                ? ErrorShape.ollama : path == "/v1/messages" || path.hasPrefix("/v1/messages/") ? ErrorShape.anthropic : shape
            return try shape.response(APIError(.notFound, "This server has no route \(request.method) \(request.uri.path)"))
        } catch {
            let answer = APIError.from(error)
            if answer.status == .internalServerError || answer.status == APIError.insufficientStorage {
                context.logger.error("Request failed", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            }
            return try shape.response(answer)
        }
    }
}
