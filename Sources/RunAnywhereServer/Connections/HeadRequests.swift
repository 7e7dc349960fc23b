import HTTPTypes
import Hummingbird

/// HEAD answered as GET would be, without the body, where no route answers HEAD itself: a server
/// that answers GET answers HEAD (RFC 9110, 9.3.2), and clients probe with it (ollama's CLI sends
/// `HEAD /` before its commands).
struct HeadRequests<Inner: HTTPResponder>: HTTPResponder where Inner.Context == ServerContext {
    let inner: Inner

    func respond(to request: Request, context: ServerContext) async throws -> Response {
        let answer = try await inner.respond(to: request, context: context)
        guard request.method == .head, [.notFound, .methodNotAllowed].contains(answer.status) else { return answer }
        var head = request.head
        head.method = .get
        var response = try await inner.respond(to: Request(head: head, body: request.body), context: context)
        response.body = ResponseBody()
        return response
    }
}
