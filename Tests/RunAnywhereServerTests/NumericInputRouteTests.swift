import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// Numbers no conversion can hold (issue 38: `"keep_alive": 1e300` ended the server with
/// SIGILL): each is a 400 naming its field, or is clamped where that is the documented meaning,
/// and the server answers the next request.
@Suite struct NumericInputRouteTests {
    static let hi = #""messages": [{"role": "user", "content": "hi"}]"#

    /// POSTs `body` to `uri` and returns the status and JSON body.
    static func post(_ client: some TestClientProtocol, _ uri: String, _ body: String) async throws -> (HTTPResponse.Status, [String: Any])
    {
        try await client.execute(uri: uri, method: .post, headers: .json, body: ByteBuffer(string: body)) { response in
            (response.status, try OpenAIRouteTests.json(response.body))
        }
    }

    /// The cache's entry for the scripted model, from `/api/models/loaded`.
    static func loaded(_ client: some TestClientProtocol) async throws -> [String: Any] {
        try await client.execute(uri: "/api/models/loaded", method: .get) { response in
            try #require((try OpenAIRouteTests.json(response.body)["models"] as? [[String: Any]])?.first)
        }
    }

    @Test(arguments: ["1e300", "-1e300", #""1e300h""#, "1.7976931348623157e308"])
    func aHugeKeepAliveKeepsTheModelForEver(keepAlive: String) async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, body) = try await Self.post(
                client, "/v1/chat/completions", #"{"model": "scripted", "keep_alive": \#(keepAlive), \#(Self.hi)}"#)
            #expect(status == .ok, "\(body)")
            let model = try await Self.loaded(client)
            #expect(model["keepAliveSeconds"] == nil && model["expiresAt"] == nil, "kept for ever: \(model)")
        }
    }

    @Test func aHugeKeepAliveOnTheLoadRouteKeepsTheModelForEver() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, model) = try await Self.post(client, "/api/models/scripted/load", #"{"keepAlive": 1e300}"#)
            #expect(status == .ok, "\(model)")
            #expect(model["state"] as? String == "loaded" && model["keepAliveSeconds"] == nil, "\(model)")
            let (again, _) = try await Self.post(client, "/api/models/scripted/load", #"{"keep_alive": 300}"#)
            #expect(again == .ok)
            #expect(
                try await Self.loaded(client)["keepAliveSeconds"] as? Double == 300,
                "the server still answers, and a later keep-alive applies")
        }
    }

    @Test(arguments: [
        ("/v1/chat/completions", #"{"model": "scripted", "keep_alive": 1e400, \#(hi)}"#, "keep_alive"),
        ("/v1/chat/completions", #"{"model": "scripted", "keep_alive": "nan", \#(hi)}"#, "keep_alive"),
        ("/v1/chat/completions", #"{"model": "scripted", "keep_alive": "inf", \#(hi)}"#, "keep_alive"),
        ("/v1/chat/completions", #"{"model": "scripted", "keep_alive": "-infs", \#(hi)}"#, "keep_alive"),
        ("/v1/completions", #"{"model": "scripted", "prompt": "hi", "keep_alive": -1e400}"#, "keep_alive"),
        ("/api/models/scripted/load", #"{"keep_alive": 1e400}"#, "keep_alive"),
        ("/api/models/scripted/load", #"{"keepAlive": "nan"}"#, "keepAlive"),
        ("/api/models/scripted/load", #"{"gpuLayers": 1e300}"#, "gpuLayers"),
        ("/api/models/scripted/load", #"{"gpuLayers": 9223372036854775808}"#, "gpuLayers"),
        ("/v1/chat/completions", #"{"model": "scripted", "max_tokens": 1e300, \#(hi)}"#, "max_tokens"),
        ("/v1/chat/completions", #"{"model": "scripted", "max_tokens": 9223372036854775808, \#(hi)}"#, "max_tokens"),
        ("/v1/chat/completions", #"{"model": "scripted", "temperature": 1e300, \#(hi)}"#, "temperature"),
        ("/v1/chat/completions", #"{"model": "scripted", "top_p": -1e39, \#(hi)}"#, "top_p"),
        ("/v1/chat/completions", #"{"model": "scripted", "top_k": 1e19, \#(hi)}"#, "top_k"),
        ("/v1/chat/completions", #"{"model": "scripted", "seed": 4294967296, \#(hi)}"#, "seed"),
        ("/v1/chat/completions", #"{"model": "scripted", "seed": 1e300, \#(hi)}"#, "seed"),
        ("/v1/chat/completions", #"{"model": "scripted", "n": 1e300, \#(hi)}"#, "n"),
        ("/v1/images/generations", #"{"prompt": "a cat", "n": 2, "seed": 9223372036854775807}"#, "seed"),
        ("/v1/images/generations", #"{"prompt": "a cat", "steps": 1e300}"#, "steps"),
        ("/v1/audio/speech", #"{"model": "espeak-ng-en-us", "input": "hi", "speed": 1e300}"#, "speed"),
        ("/api/benchmarks", #"{"threads": 4294967297}"#, "threads"),
    ])
    func numbersNoTypeHoldsAreRefusedNamingTheirField(uri: String, body: String, param: String) async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, response) = try await Self.post(client, uri, body)
            #expect(status == .badRequest, "\(body): \(response)")
            let error = try #require(response["error"] as? [String: Any], "\(response)")
            #expect((error["param"] as? String)?.hasPrefix(param) == true, "\(body): \(error)")
            let (next, _) = try await Self.post(client, "/v1/chat/completions", #"{"model": "scripted", \#(Self.hi)}"#)
            #expect(next == .ok, "the server answers the next request")
        }
    }

    /// A fraction where a whole number goes is told as such, not as a range it lies within, and a
    /// value of another kind as what it is, in JSON's words rather than Swift's.
    @Test(arguments: [
        ("/v1/images/generations", #"{"prompt": "a cat", "steps": 1.5}"#, "steps must be a whole number, not 1.5"),
        ("/v1/chat/completions", #"{"model": "scripted", "max_tokens": 2.25, \#(hi)}"#, "max_tokens must be a whole number, not 2.25"),
        (
            "/v1/chat/completions", #"{"model": "scripted", "max_tokens": "5", \#(hi)}"#,
            #"max_tokens must be a whole number, not the text "5""#
        ),
        ("/v1/chat/completions", #"{"model": "scripted", "temperature": true, \#(hi)}"#, "temperature must be a number, not true"),
        // Beyond the type's range: the side it is on, not the type's whole range.
        (
            "/v1/chat/completions", #"{"model": "scripted", "max_tokens": 99999999999999999999, \#(hi)}"#,
            "max_tokens is too large"
        ),
        ("/api/models/scripted/load", #"{"gpuLayers": -1e20}"#, "gpuLayers is too small"),
        (
            "/v1/chat/completions", #"{"model": "scripted", "messages": "hi"}"#,
            "The request body is not valid: messages must be an array, not a string"
        ),
        ("/v1/chat/completions", #"{"model": true, \#(hi)}"#, "The request body is not valid: model must be a string, not true or false"),
        (
            "/v1/chat/completions", #"{"model": "scripted", "messages": {}}"#,
            "The request body is not valid: messages must be an array, not an object"
        ),
    ])
    func aFractionWhereAWholeNumberGoesIsSaidSo(uri: String, body: String, message: String) async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, response) = try await Self.post(client, uri, body)
            let error = try #require(response["error"] as? [String: Any], "\(response)")
            #expect(status == .badRequest && error["message"] as? String == message, "\(error)")
        }
    }

    /// Limits far beyond any model are what they say: as many tokens as the context holds, every token.
    /// A number too small in size for a Float's normal range (which Foundation will not read as
    /// a Float) is the smallest normal Float of its sign: a `top_p` "more than 0" stays so.
    @Test func aNumberBelowAFloatsNormalRangeIsTakenAsItsSmallestNormal() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let (status, body) = try await Self.post(
                client, "/v1/chat/completions", #"{"model": "scripted", "top_p": 5e-324, "max_tokens": 2, \#(Self.hi)}"#)
            #expect(status == .ok, "\(body)")
            let settings = try await client.execute(
                uri: "/api/settings", method: .patch, headers: .json, body: ByteBuffer(string: #"{"topP": 5e-324}"#)
            ) { response in
                (response.status, try OpenAIRouteTests.json(response.body))
            }
            #expect(settings.0 == .ok && (settings.1["topP"] as? Double ?? 0) > 0, "\(settings.1)")
        }
    }

    @Test func theLargestLimitsAreHonouredNotOverflowed() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let request =
                #"{"model": "scripted", "max_tokens": 9223372036854775807, "top_k": 9223372036854775807, "seed": 4294967295, \#(Self.hi)}"#
            let (status, body) = try await Self.post(client, "/v1/chat/completions", request)
            #expect(status == .ok, "\(body)")
            let choice = try #require((body["choices"] as? [[String: Any]])?.first)
            #expect((choice["message"] as? [String: Any])?["content"] as? String == "hi")
            let (completion, _) = try await Self.post(
                client, "/v1/completions", #"{"model": "scripted", "prompt": "hi", "max_tokens": 9223372036854775807}"#)
            #expect(completion == .ok)
        }
    }

    /// Form fields are text: `1e300` reads as an infinite Float, `nan` as NaN, both refused.
    @Test(arguments: ["1e300", "nan", "-inf"])
    func aTranscriptionTemperatureNoNumberHoldsIsRefused(temperature: String) async throws {
        let app = OpenAIRouteTests.server(try TranscriptionRouteTests.runtime()).checkedApplication()
        try await app.test(.router) { client in
            try await TranscriptionRouteTests.transcribe(client, [("model", "scripted-stt"), ("temperature", temperature)]) { response in
                let error = try OpenAIRouteTests.error(response.body)
                #expect(response.status == .badRequest && error["param"] as? String == "temperature", "\(error)")
            }
        }
    }

    @Test(arguments: [("maxTokens", "1e300"), ("maxTokens", "9223372036854775808"), ("temperature", "1e300"), ("temperature", "nan")])
    func describeOptionsNoNumberHoldsAreRefused(field: String, value: String) async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let body = TranscriptionRouteTests.form([("prompt", "what is it?"), (field, value)], file: (name: "x.png", data: png))
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/vision/describe", method: .post, headers: TranscriptionRouteTests.multipart, body: body) {
                response in
                let error = try OpenAIRouteTests.error(response.body)
                #expect(response.status == .badRequest, "\(field)=\(value)")
                #expect(error["param"] as? String == field, "refused before any model is looked for: \(error)")
            }
        }
    }

    @Test func hugeSettingsAreRefusedNamingTheSetting() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            for (body, param) in [
                (#"{"temperature": 1e300}"#, "temperature"), (#"{"maxTokens": 1e300}"#, "maxTokens"), (#"{"threads": 1e18}"#, "threads"),
                (#"{"topK": 9223372036854775808}"#, "topK"),
            ] {
                try await client.execute(uri: "/api/settings", method: .patch, headers: .json, body: ByteBuffer(string: body)) { response in
                    let error = try OpenAIRouteTests.error(response.body)
                    #expect(response.status == .badRequest, "\(body)")
                    #expect(error["param"] as? String == param, "\(body): \(error)")
                }
            }
        }
    }
}
