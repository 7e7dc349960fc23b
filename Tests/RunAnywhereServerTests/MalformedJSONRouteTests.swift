import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// Bodies that are not valid JSON only inside a string (half of a UTF-16 surrogate pair, as a
/// client that cut an emoji in two sends it; an unknown escape): every route that reads a JSON
/// body answers a 400 in its own error shape that says the body is not valid JSON, not that a
/// field is of the wrong type (JSONDecoder reads a string's escapes only when a field is decoded,
/// and a field that may be a string or an array was refused as neither), and the server answers
/// the next request.
@Suite struct MalformedJSONRouteTests {
    static let strings = [#""x\ud800y""#, #""\udc00""#, #""a\qb""#]

    /// Each route, and a body for it with `text` where a string of the request goes.
    static let routes: [(uri: String, body: @Sendable (String) -> String)] = [
        ("/v1/chat/completions", { #"{"model": "scripted", "messages": [{"role": "user", "content": \#($0)}]}"# }),
        ("/v1/completions", { #"{"model": "scripted", "prompt": \#($0)}"# }),
        ("/v1/messages", { #"{"model": "scripted", "max_tokens": 4, "messages": [{"role": "user", "content": \#($0)}]}"# }),
        ("/v1/messages/count_tokens", { #"{"model": "scripted", "messages": [{"role": "user", "content": \#($0)}]}"# }),
        ("/v1/responses", { #"{"model": "scripted", "input": \#($0)}"# }),
        ("/v1/embeddings", { #"{"model": "scripted", "input": [\#($0)]}"# }),
        ("/api/chat", { #"{"model": "scripted", "stream": false, "messages": [{"role": "user", "content": \#($0)}]}"# }),
        ("/api/generate", { #"{"model": "scripted", "stream": false, "prompt": \#($0)}"# }),
        ("/api/embed", { #"{"model": "scripted", "input": \#($0)}"# }),
        ("/tokenize", { #"{"model": "scripted", "content": \#($0)}"# }),
    ]

    /// The error's message, in whichever of the three shapes the route answers.
    static func message(_ body: [String: Any]) -> String? {
        (body["error"] as? [String: Any])?["message"] as? String ?? body["error"] as? String
    }

    @Test(arguments: strings)
    func aBodyThatIsNotJSONInsideAStringIsToldSo(string: String) async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            for route in Self.routes {
                let (status, response) = try await NumericInputRouteTests.post(client, route.uri, route.body(string))
                #expect(status == .badRequest, "\(route.uri) \(string): \(response)")
                let message = Self.message(response) ?? ""
                #expect(message.hasPrefix("The request body is not valid JSON: "), "\(route.uri) \(string): \(response)")
                let (valid, answer) = try await NumericInputRouteTests.post(client, route.uri, route.body(#""hi""#))
                #expect(
                    valid != .internalServerError && Self.message(answer)?.contains("not valid JSON") != true,
                    "\(route.uri) reads the same body made valid: \(answer)")
            }
        }
    }

    /// JSON in UTF-16, which Foundation's decoder would read but the checks after it would not: refused.
    @Test func aBodyNotInUTF8IsRefused() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let text = #"{"model":"Ģ}}","messages":[{"role":"user","content":"hi"}]}"#
            let body = ByteBuffer(bytes: Array(text.data(using: .utf16LittleEndian) ?? Data()))
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: .json, body: body) { response in
                let message = Self.message(try OpenAIRouteTests.json(response.body))
                #expect(
                    response.status == .badRequest && message == "The request body is not valid JSON: it is not UTF-8 text",
                    "\(message ?? "")")
            }
        }
    }

    /// A field named twice, which parsers read differently (the first, or the last): refused on
    /// every route, named where it stands; the same name in different objects, or inside a string, is not.
    @Test func aFieldNamedTwiceIsRefused() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            for route in Self.routes {
                let twice = route.body(#""hi""#).replacingOccurrences(
                    of: #"{"model": "scripted","#, with: #"{"model": "nope", "model": "scripted","#)
                let (status, response) = try await NumericInputRouteTests.post(client, route.uri, twice)
                #expect(
                    status == .badRequest && Self.message(response) == "The request body names 'model' twice; send each field once",
                    "\(route.uri): \(response)")
            }
            let cases: [(String, String?)] = [
                (#"{"model": "scripted", "messages": [{"role": "user", "content": "hi", "role": "system"}]}"#, "messages.0.role"),
                (#"{"model": "scripted", "mo\u0064el": "x", "messages": [{"role": "user", "content": "hi"}]}"#, "model"),
                (
                    #"{"model": "scripted", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": "{\"role\": 1, \"role\": 2}"}]}"#,
                    nil
                ),
                (
                    #"{"model": "scripted", "metadata": {"a": {"b": 1}, "c": {"b": 2}}, "messages": [{"role": "user", "content": "hi"}]}"#,
                    nil
                ),
            ]
            for (body, field) in cases {
                let (status, response) = try await NumericInputRouteTests.post(client, "/v1/chat/completions", body)
                if let field {
                    #expect(
                        status == .badRequest && Self.message(response) == "The request body names '\(field)' twice; send each field once",
                        "\(body): \(response)")
                } else {
                    #expect(status == .ok, "\(body): \(response)")
                }
            }
        }
    }
}
