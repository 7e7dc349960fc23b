import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// No number in a request can trap the process (issue 38: `"keep_alive": 1e300` ended the server
/// with SIGILL). Every numeric field of every route that takes JSON gets the values that break
/// conversions — beyond Int64 and UInt32, negative, fractional, huge and tiny doubles — one at a
/// time, in process: a trap would end this test binary. Each must get an answer below 500.
@Suite struct RequestNumberFuzzTests {
    /// What breaks a conversion: past every integer type, past `Duration`, sub-normal, negative.
    static let values = [
        "1e300", "-1e300", "1e19", "-1e19", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "4294967296", "2147483648", "-1", "-2147483649", "0.5", "1e-320", "0", "1e308",
        "123456789012345678901234567890",
    ]

    /// Each JSON route with a valid body and the numeric fields in it.
    static let routes: [(method: HTTPRequest.Method, uri: String, body: String, fields: [String])] = [
        (
            .post, "/v1/chat/completions", #"{"model": "scripted", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}"#,
            ["max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k", "seed", "n", "keep_alive"]
        ),
        (
            .post, "/v1/completions", #"{"model": "scripted", "prompt": "hi", "max_tokens": 2}"#,
            ["max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k", "seed", "n", "keep_alive"]
        ),
        (
            .post, "/v1/responses", #"{"model": "scripted", "input": "hi", "max_output_tokens": 2}"#,
            ["max_output_tokens", "temperature", "top_p"]
        ),
        (.post, "/api/models/scripted/load", #"{}"#, ["keepAlive", "gpuLayers", "keep_alive", "gpu_layers"]),
        (.patch, "/api/settings", #"{}"#, ["temperature", "maxTokens", "topP", "topK", "threads"]),
        (.post, "/v1/audio/speech", #"{"model": "scripted", "input": "hi"}"#, ["speed"]),
        (.post, "/v1/images/generations", #"{"prompt": "a red square"}"#, ["n", "steps", "seed", "guidance_scale"]),
        (.post, "/v1/embeddings", #"{"input": "hi"}"#, ["dimensions", "keep_alive"]),
        (.post, "/api/vision/imagine", #"{"prompt": "a red square"}"#, ["width", "height", "steps", "guidanceScale", "seed"]),
        (.post, "/api/benchmarks", #"{"categories": []}"#, ["repetitions", "threads"]),
        (.post, "/api/generate", #"{"model": "scripted", "prompt": "hi", "stream": false, "options": {"num_predict": 2}}"#, ["keep_alive"]),
        (.post, "/api/embed", #"{"model": "scripted", "input": "hi"}"#, ["dimensions", "keep_alive"]),
    ]

    /// ollama's numeric `options`, which `/api/chat` and `/api/generate` read inside `options`.
    static let ollamaOptions = ["num_predict", "temperature", "top_k", "top_p", "seed", "num_ctx", "num_gpu", "num_thread"]

    @Test(arguments: routes.indices)
    func extremeNumbersGetAnAnswerNotATrap(route index: Int) async throws {
        let route = Self.routes[index]
        let app = OpenAIRouteTests.server(try scriptedRuntime(name: "fuzz-\(index)")).checkedApplication()
        try await app.test(.router) { client in
            for field in route.fields {
                for value in Self.values {
                    let body = String(route.body.dropLast()) + (route.body == "{}" ? "" : ", ") + "\"\(field)\": \(value)}"
                    try await client.execute(uri: route.uri, method: route.method, headers: .json, body: ByteBuffer(string: body)) {
                        response in
                        #expect(
                            response.status.code < 500,
                            "\(route.uri) \(field)=\(value): \(response.status) \(String(buffer: response.body).prefix(300))")
                    }
                }
            }
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func extremeOllamaOptionsGetAnAnswerNotATrap() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            for option in Self.ollamaOptions {
                for value in Self.values {
                    let budget = option == "num_predict" ? "" : #""num_predict": 2, "#
                    let body =
                        #"{"model": "scripted", "stream": false, "messages": [{"role": "user", "content": "hi"}], "options": {\#(budget)"\#(option)": \#(value)}}"#
                    try await client.execute(uri: "/api/chat", method: .post, headers: .json, body: ByteBuffer(string: body)) { response in
                        #expect(
                            response.status.code < 500,
                            "options.\(option)=\(value): \(response.status) \(String(buffer: response.body).prefix(300))")
                    }
                }
            }
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
        }
    }
}
