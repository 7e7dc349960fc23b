import Hummingbird

/// The OpenAPI 3.1 document of the whole API, served as it is at `GET /openapi.json`: every route
/// of ``RunAnywhereServer/router()`` with its parameters, bodies, responses and error shapes (a
/// test checks that the two list the same routes). Its one source is `openapi.json` beside this
/// target's sources, which the OpenAPIDocumentEmbedder plugin builds into the binary as
/// ``json``, so that `runanywhere` serves it wherever it is copied.
enum OpenAPIDocument {
    static func register(on router: some RouterMethods<ServerContext>) {
        router.get("openapi.json") { _, _ in bodyResponse(ByteBuffer(string: json), contentType: "application/json") }
    }
}
