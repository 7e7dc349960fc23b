import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `POST /tokenize` and `POST /detokenize` of `runanywhere serve`, in llama-server's shapes,
/// through the real default model, and every bad request answered with a 400 in the server's
/// error envelope.
@Suite(
    .serverLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct TokenizeRouteTests {
    /// The status and JSON body of a POST of `body` (sent as JSON unless `contentType` says
    /// otherwise), the answer recorded for the check against the OpenAPI document when the test
    /// runs inside ``OpenAPIAnswers/checking(sourceLocation:_:)``.
    static func post(_ url: String, _ body: String, contentType: String = "application/json") async throws -> (
        status: Int, json: [String: Any]
    ) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: contentType)
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        OpenAPIAnswers.recording?.record(
            method: "POST", path: URL(string: url)?.path ?? url, status: Int(response.status.code),
            contentType: response.headers.first(name: "Content-Type") ?? "", body: data
        )
        return (
            Int(response.status.code),
            try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(String(decoding: data, as: UTF8.self))")
        )
    }

    static func jsonString(_ value: some Encodable) throws -> String { String(decoding: try JSONEncoder().encode(value), as: UTF8.self) }

    @Test(.hangLimit(.seconds(900))) func tokenizeAndDetokenizeRoundTripInLlamaServersShapes() async throws {
        try await OpenAPIAnswers.checking {
            try await CLIRunner.withData { runner, _ in
                let server = try ServeProcess(runner, arguments: ["--threads", "1", "--context-length", "256", "--parallel", "1"])
                defer { _ = server.stop() }
                let root = "http://127.0.0.1:\(server.port)"
                let text = "Hello, naïve world 🐱! <|im_start|>user"
                let tokenized = try await Self.post("\(root)/tokenize", Self.jsonString(["content": text]))
                #expect(tokenized.status == 200, "\(tokenized.json)")
                let ids = try #require(tokenized.json["tokens"] as? [Int])
                #expect(!ids.isEmpty)
                let back = try await Self.post("\(root)/detokenize", "{\"tokens\": \(ids)}")
                #expect(back.status == 200 && back.json["content"] as? String == text, "\(back.json)")

                // The same tokens as the SDK's own call with llama-server's defaults (no special tokens
                // added, special-token text parsed), and its flags change what they say they change.
                let sdk = try runner.run(["tokenize", "--json", "--no-special", text]).json()
                #expect(sdk["tokens"] as? [Int] == ids)
                let plain = try await Self.post("\(root)/tokenize", "{\"content\": \"<|im_start|>\", \"parse_special\": false}")
                #expect((plain.json["tokens"] as? [Int])?.count ?? 0 > 1, "\(plain.json)")
                let special = try await Self.post(
                    "\(root)/tokenize", "{\"content\": \"<|im_start|>\", \"model\": \"\(RunAnywhere.defaultModelID)\"}")
                #expect((special.json["tokens"] as? [Int])?.count == 1, "\(special.json)")

                // Ids and strings mixed, as llama-server's tokenize_mixed reads them: each string where it stands.
                let (hello, world) = (
                    try #require(try await Self.post("\(root)/tokenize", "{\"content\": \"Hello\"}").json["tokens"] as? [Int]),
                    try #require(try await Self.post("\(root)/tokenize", "{\"content\": \" world\"}").json["tokens"] as? [Int])
                )
                let marker = try #require((special.json["tokens"] as? [Int])?.first)
                let mixed = try await Self.post("\(root)/tokenize", "{\"content\": [\"Hello\", \(marker), \" world\"]}")
                #expect(mixed.json["tokens"] as? [Int] == hello + [marker] + world, "\(mixed.json)")
                let mixedPieces = try await Self.post(
                    "\(root)/tokenize", "{\"content\": [\(marker), \"Hi\"], \"with_pieces\": true}")
                let mixedEntries = try #require(mixedPieces.json["tokens"] as? [[String: Any]], "\(mixedPieces.json)")
                #expect(mixedEntries.first?["piece"] as? String == "<|im_start|>" && mixedEntries.last?["piece"] as? String == "Hi")

                let pieces = try await Self.post("\(root)/tokenize", "{\"content\": \"Hi 🐱\", \"with_pieces\": true}")
                let entries = try #require(pieces.json["tokens"] as? [[String: Any]], "\(pieces.json)")
                #expect(entries.first?["piece"] as? String == "Hi", "\(entries)")
                #expect(entries.allSatisfy { $0["id"] is Int })
                let bytes = entries.flatMap { entry -> [UInt8] in
                    if let text = entry["piece"] as? String { return Array(text.utf8) }
                    return (entry["piece"] as? [Int] ?? []).map { UInt8($0) }
                }
                #expect(bytes == Array("Hi 🐱".utf8), "pieces that are not whole UTF-8 come as their bytes: \(entries)")
                #expect(entries.contains { $0["piece"] is [Int] })
            }
        }
    }

    @Test(.hangLimit(.seconds(900))) func badRequestsAreRefusedWithTheErrorEnvelope() async throws {
        try await OpenAPIAnswers.checking {
            try await CLIRunner.withData { runner, _ in
                let server = try ServeProcess(runner, arguments: ["--threads", "1", "--context-length", "256", "--parallel", "1"])
                defer { _ = server.stop() }
                let root = "http://127.0.0.1:\(server.port)"
                let file = try #require(TestEnvironment.defaultModelFile)
                let size = try #require(try GGUFReader.read(file).vocabularySize)
                let cases: [(route: String, body: String, status: Int, message: String)] = [
                    ("tokenize", "{}", 400, "'content' is required"),
                    ("tokenize", "{\"content\": 42}", 400, "content"),
                    ("tokenize", "{\"content\": \"Hi\", \"with_pieces\": \"yes\"}", 400, "with_pieces"),
                    (
                        "tokenize", "{\"content\": {\"text\": \"Hi\"}}", 400,
                        "content must be a string, or an array of token ids and strings"
                    ),
                    ("tokenize", "{\"content\": [\"Hi\", 2.5]}", 400, "content.1 must be a token id"),
                    ("tokenize", "{\"content\": [\"Hi\", \(size)]}", 400, "is not in the model's vocabulary of \(size) tokens"),
                    ("tokenize", "not json", 400, "The request body is not valid JSON: "),
                    ("tokenize", "{\"content\": \"Hi\", \"model\": \"no-such-model\"}", 404, "not found"),
                    (
                        "tokenize", "{\"content\": \"Hi\", \"model\": \"\(SDKConstants.Models.defaultSpeechRecognitionModelID)\"}", 400,
                        "only language models"
                    ),
                    ("detokenize", "{}", 400, "'tokens' is required"),
                    ("detokenize", "{\"tokens\": \"1 2 3\"}", 400, "tokens"),
                    ("detokenize", "{\"tokens\": [1, 2.5]}", 400, "tokens.1 must be a whole number"),
                    ("detokenize", "{\"tokens\": [1, \"two\"]}", 400, "tokens.1 must be a whole number"),
                    ("detokenize", "{\"tokens\": [1, null]}", 400, "tokens.1 must be a token id"),
                    ("detokenize", "{\"tokens\": [1, 4294967296]}", 400, "tokens.1 is too large"),
                    (
                        "detokenize", "{\"tokens\": [1, 2, \(size)]}", 400,
                        "Token \(size) (at position 2) is not in the model's vocabulary of \(size) tokens"
                    ),
                    ("detokenize", "{\"tokens\": [-1]}", 400, "is not in the model's vocabulary"),
                    ("detokenize", "{\"tokens\": [2147483647]}", 400, "is not in the model's vocabulary"),
                ]
                for (route, body, status, message) in cases {
                    let answer = try await Self.post("\(root)/\(route)", body)
                    let error = answer.json["error"] as? [String: Any]
                    #expect(answer.status == status, "\(route) \(body): \(answer.json)")
                    #expect((error?["message"] as? String)?.contains(message) == true, "\(route) \(body): \(answer.json)")
                    #expect(error?["type"] is String, "\(route) \(body): the error envelope")
                }
                let outside = try await Self.post("\(root)/detokenize", "{\"tokens\": [1, -1]}").json["error"] as? [String: Any]
                #expect(outside?["param"] as? String == "tokens.1", "an id outside the vocabulary names its element: \(outside ?? [:])")
                let mixedOutside = try await Self.post("\(root)/tokenize", "{\"content\": [-1]}").json["error"] as? [String: Any]
                #expect(mixedOutside?["param"] as? String == "content.0", "\(mixedOutside ?? [:])")
                let beyond = try await Self.post("\(root)/tokenize", "{\"content\": [\(size)]}").json["error"] as? [String: Any]
                #expect(beyond?["param"] as? String == "content.0", "\(beyond ?? [:])")
                let among = try await Self.post("\(root)/tokenize", "{\"content\": [\"Hi there\", 5, \(size + 1), \(size)]}")
                #expect((among.json["error"] as? [String: Any])?["param"] as? String == "content.2", "\(among.json)")
                let notJSON = try await Self.post("\(root)/detokenize", "{\"tokens\": [1]}", contentType: "text/plain")
                #expect(notJSON.status == 415 && notJSON.json["error"] != nil)
                let hello = try #require(try await Self.post("\(root)/tokenize", "{\"content\": \"Hello\"}").json["tokens"] as? [Int])
                let still = try await Self.post("\(root)/detokenize", "{\"tokens\": \(hello)}")
                #expect(still.status == 200 && still.json["content"] as? String == "Hello", "the server still answers: \(still.json)")
                #expect(server.stop() == 0, "\(server.standardError.suffix(4000))")
            }
        }
    }
}
