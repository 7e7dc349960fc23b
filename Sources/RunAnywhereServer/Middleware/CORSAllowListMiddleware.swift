import HTTPTypes
import Hummingbird

/// CORS for the listed origins only: their requests and preflights get Hummingbird's CORS
/// headers; any other origin gets none, so browsers keep other sites' pages out.
struct CORSAllowListMiddleware<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>
    private let cors = CORSMiddleware<Context>(
        // Anthropic's clients send their key and API version in headers of their own.
        allowOrigin: .originBased, allowHeaders: [.accept, .authorization, .contentType, .origin, Self.apiKey, Self.anthropicVersion],
        allowMethods: [.get, .post, .put, .patch, .delete, .options], maxAge: .seconds(600)
    )

    private static var apiKey: HTTPField.Name { HTTPField.Name("x-api-key")! }
    private static var anthropicVersion: HTTPField.Name { HTTPField.Name("anthropic-version")! }

    init(origins: [String]) { self.origins = Set(origins) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains(origin) else { return try await next(request, context) }
        return try await cors.handle(request, context: context, next: next)
    }
}
