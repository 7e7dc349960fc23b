import Hummingbird

/// Answers every error a route throws, and unknown routes, with an OpenAI-style JSON error (on
/// the Messages routes, Anthropic's: ``AnthropicError``; on ollama's, ollama's: ``OllamaError``). Unexpected errors are logged here and
/// reach the client without their details.
struct OpenAIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = OpenAIError.from(error)
            if answer.status == .internalServerError {
                context.logger.error("Request failed", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            }
            if AnthropicError.isMessagesPath(request.uri.path) { return try AnthropicError(answer).response() }
            if OllamaError.isOllamaPath(request.uri.path) { return try OllamaError.response(answer) }
            return try answer.response(from: request, context: context)
        }
    }
}
