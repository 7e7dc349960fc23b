import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// LoRA adapters through `runanywhere serve --lora` and `generate --lora`, in llama-server's
/// shapes (`GET`/`POST /lora-adapters`, a request's `lora` list), on the real default model with
/// a generated adapter (random weights, no training): an adapter changes the greedy answer, the
/// server's scales decide what a request without `lora` applies, and a scale of 0 answers as the
/// base model.
@Suite(
    .serverLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct LoRARouteTests {
    /// The status and JSON body of a GET, recorded for the OpenAPI check.
    static func get(_ url: String) async throws -> (status: Int, json: Any) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        OpenAPIAnswers.recording?.record(
            method: "GET", path: URL(string: url)?.path ?? url, status: Int(response.status.code),
            contentType: response.headers.first(name: "Content-Type") ?? "", body: data)
        return (Int(response.status.code), try JSONSerialization.jsonObject(with: data))
    }

    /// A greedy chat completion's text, with `lora` as the request's field when given.
    static func answer(_ root: String, lora: String? = nil) async throws -> String {
        let field = lora.map { ", \"lora\": \($0)" } ?? ""
        let body = """
            {"model": "\(RunAnywhere.defaultModelID)", "max_tokens": 10, "temperature": 0, \
            "messages": [{"role": "user", "content": "Name three colours."}]\(field)}
            """
        let answer = try await TokenizeRouteTests.post("\(root)/v1/chat/completions", body)
        #expect(answer.status == 200, "\(answer.json)")
        let choices = try #require(answer.json["choices"] as? [[String: Any]])
        return try #require((choices.first?["message"] as? [String: Any])?["content"] as? String)
    }

    @Test(.hangLimit(.seconds(900))) func adaptersAreListedRescaledAndChosenPerRequest() async throws {
        try await OpenAPIAnswers.checking {
            try await CLIRunner.withData { runner, folder in
                let adapter = folder.appendingPathComponent("adapter.gguf")
                try GGUFWriter.loraFixture(for: try #require(TestEnvironment.defaultModelFile)).write(to: adapter)
                let server = try ServeProcess(
                    runner, arguments: ["--threads", "1", "--context-length", "256", "--parallel", "2", "--lora", "\(adapter.path):0"])
                defer { _ = server.stop() }
                let root = "http://127.0.0.1:\(server.port)"

                let listed = try await Self.get("\(root)/lora-adapters")
                let entries = try #require(listed.json as? [[String: Any]], "\(listed.json)")
                #expect(entries.count == 1 && entries[0]["id"] as? Int == 0 && entries[0]["path"] as? String == adapter.path)
                #expect(entries[0]["scale"] as? Double == 0)

                // At scale 0 the adapter is listed, not applied; a request chooses it by index.
                let base = try await Self.answer(root)
                let adapted = try await Self.answer(root, lora: #"[{"id": 0, "scale": 1}]"#)
                #expect(adapted != base, "the adapter changed nothing: \(base)")
                #expect(try await Self.answer(root, lora: "[]") == base)

                // The server's scales decide for requests without a lora field.
                let set = try await TokenizeRouteTests.post("\(root)/lora-adapters", #"[{"id": 0, "scale": 1}]"#)
                #expect(set.status == 200 && set.json["success"] as? Bool == true, "\(set.json)")
                #expect(try await Self.answer(root) == adapted)
                _ = try await TokenizeRouteTests.post("\(root)/lora-adapters", "[]")
                #expect(try await Self.answer(root) == base)

                // The CLI applies the same file the same way.
                let cli = try runner.run([
                    "generate", "--lora", adapter.path, "--temperature", "0", "--max-tokens", "10", "--threads", "1", "--context-length",
                    "256",
                    "--json", "Name three colours.",
                ])
                #expect(cli.status == 0, "\(cli.stderr)")

                // Bad choices are 400s naming the field; the server answers on.
                let unknown = try await TokenizeRouteTests.post(
                    "\(root)/v1/chat/completions",
                    #"{"model": "\#(RunAnywhere.defaultModelID)", "messages": [{"role": "user", "content": "Hi"}], "lora": [{"id": 3}]}"#)
                #expect(unknown.status == 400, "\(unknown.json)")
                #expect(((unknown.json["error"] as? [String: Any])?["param"] as? String) == "lora.0.id", "\(unknown.json)")
                let badScale = try await TokenizeRouteTests.post("\(root)/lora-adapters", #"[{"id": 0, "scale": "high"}]"#)
                #expect(badScale.status == 400, "\(badScale.json)")
                #expect(try await Self.answer(root) == base)
            }
        }
    }

    /// `models import` knows an adapter GGUF: it is listed as one, applied by its id, and
    /// refused as a model of its own.
    @Test func anImportedAdapterIsListedAndAppliedByItsId() throws {
        let (cli, home, model) = try CLIRunner.isolatedWithDefaultModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("tiny-adapter.gguf")
        try GGUFWriter.loraFixture(for: model).write(to: file)

        let imported = try cli.run(["models", "import", file.path, "--id", "tiny-adapter", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let listed = try cli.run(["models", "list", "--json"])
        let entry = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?.first {
                $0["id"] as? String == "tiny-adapter"
            },
            "\(listed.stdout)")
        #expect(entry["category"] as? String == "lora-adapter", "\(entry)")

        let arguments = [
            "--temperature", "0", "--max-tokens", "8", "--threads", "1", "--context-length", "256", "--json", "Name three colours.",
        ]
        let base = try cli.run(["generate"] + arguments)
        let adapted = try cli.run(["generate", "--lora", "tiny-adapter"] + arguments)
        #expect(base.status == 0 && adapted.status == 0, "\(base.stderr)\(adapted.stderr)")
        #expect(try adapted.json()["text"] as? String != base.json()["text"] as? String, "the imported adapter changed nothing")

        let alone = try cli.run(["generate", "--model", "tiny-adapter", "--max-tokens", "2", "Hi"])
        #expect(alone.status != 0 && !alone.crashed, "\(alone.stderr)")
        #expect(alone.stderr.contains("LoRA adapter"), "\(alone.stderr)")
    }

    @Test func aMissingOrWrongAdapterFileStopsServeAndGenerateWithAClearError() throws {
        try CLIRunner.withData { runner, _ in
            let served = try runner.run(["serve", "--port", "0", "--lora", "/nowhere/adapter.gguf"])
            #expect(served.status != 0 && served.stderr.contains("No LoRA adapter file at /nowhere/adapter.gguf"), "\(served.stderr)")
            let model = try #require(TestEnvironment.defaultModelFile)
            let notAdapter = try runner.run(["serve", "--port", "0", "--lora", model.path])
            #expect(notAdapter.status != 0 && notAdapter.stderr.contains("not a LoRA adapter"), "\(notAdapter.stderr)")
            let generated = try runner.run(["generate", "--lora", "/nowhere/adapter.gguf:0.5", "--max-tokens", "2", "Hi"])
            #expect(generated.status != 0 && !generated.crashed, "\(generated.stderr)")
            #expect(generated.stderr.contains("No LoRA adapter file at /nowhere/adapter.gguf"), "\(generated.stderr)")
        }
    }
}
