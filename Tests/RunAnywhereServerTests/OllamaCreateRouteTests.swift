import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// ollama's routes that make models, in process, on the scripted engine: a GGUF file uploaded as
/// a blob by its SHA-256 and made into a model, a model copied (its files linked, so deleting the
/// original leaves the copy whole), and every refusal, with nothing half-made left behind. The
/// official `ollama` client doing the same against the real engine is CLIOllamaServeTests.
@Suite struct OllamaCreateRouteTests {
    typealias Routes = OpenAIRouteTests

    static func digest(_ data: Data) -> String {
        "sha256:" + SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func post(_ client: some TestClientProtocol, _ path: String, _ json: String) async throws -> (HTTPResponse.Status, ByteBuffer) {
        try await client.execute(uri: path, method: .post, headers: .json, body: Routes.body(json)) { ($0.status, $0.body) }
    }

    @Test func anUploadedFileBecomesAModelAndAModelIsCopied() async throws {
        let runtime = try scriptedRuntime()
        let blobs = runtime.configuration.modelsDirectory.appendingPathComponent(".ollama-blobs")
        let file = GGUFWriter.tinyLlama().data()
        let digest = Self.digest(file)
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/blobs/\(digest)", method: .head) { #expect($0.status == .notFound) }
            var wrong = file
            wrong[wrong.count - 1] ^= 1
            try await client.execute(uri: "/api/blobs/\(digest)", method: .post, body: ByteBuffer(data: wrong)) { response in
                let message = try OllamaRouteTests.error(response.body)
                #expect(response.status == .badRequest && message.contains("digest mismatch"), "\(message)")
            }
            #expect((try? FileManager.default.contentsOfDirectory(atPath: blobs.path)) == [], "nothing of a refused upload is kept")
            // An upload no model was made of for over a day goes when the next upload comes.
            let stale = blobs.appendingPathComponent("sha256-" + String(repeating: "0", count: 64))
            try Data("abandoned".utf8).write(to: stale)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -2 * 86_400)], ofItemAtPath: stale.path)
            try await client.execute(uri: "/api/blobs/\(digest)", method: .post, body: ByteBuffer(data: file)) {
                #expect($0.status == .created)
            }
            #expect(!FileManager.default.fileExists(atPath: stale.path), "the abandoned upload is gone")
            try await client.execute(uri: "/api/blobs/\(digest)", method: .head) { #expect($0.status == .ok) }
            let encoded = digest.replacingOccurrences(of: ":", with: "%3A")
            try await client.execute(uri: "/api/blobs/\(encoded)", method: .head) { #expect($0.status == .ok, "percent-encoded") }
            try await client.execute(uri: "/api/blobs/\(digest)", method: .post, body: ByteBuffer(data: file)) { #expect($0.status == .ok) }

            let (status, lines) = try await Self.post(
                client, "/api/create", #"{"model": "made:latest", "files": {"made.gguf": "\#(digest)"}}"#)
            let steps = try OllamaRouteTests.lines(lines).compactMap { $0["status"] as? String }
            #expect(status == .ok && steps.first == "parsing GGUF" && steps.last == "success", "\(steps)")
            try await client.execute(uri: "/api/blobs/\(digest)", method: .head) {
                #expect($0.status == .notFound, "the model used the blob up")
            }
            let made = try runtime.model(id: "made")
            #expect(made.isDownloaded && made.primaryFile?.path.hasPrefix(runtime.configuration.modelsDirectory.path) == true)

            let (copied, _) = try await Self.post(client, "/api/copy", #"{"source": "made:latest", "destination": "made-copy"}"#)
            #expect(copied == .ok)
            let (fromCopy, whole) = try await Self.post(client, "/api/create", #"{"model": "third", "from": "made-copy", "stream": false}"#)
            #expect(try fromCopy == .ok && Routes.json(whole)["status"] as? String == "success")
            try await client.execute(uri: "/api/delete", method: .delete, headers: .json, body: Routes.body(#"{"model": "made"}"#)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/tags", method: .get) { response in
                let models = try #require(try Routes.json(response.body)["models"] as? [[String: Any]])
                #expect(Set(models.compactMap { $0["name"] as? String }) == ["scripted:latest", "made-copy:latest", "third:latest"])
            }
            let (answered, answer) = try await Self.post(
                client, "/api/generate", #"{"model": "made-copy", "prompt": "still here", "stream": false}"#)
            #expect(try answered == .ok && Routes.json(answer)["response"] as? String == "still here", "the copy outlives its original")
            // A model registered where its file lies is copied as another entry for that file.
            let (registered, _) = try await Self.post(client, "/api/copy", #"{"source": "scripted", "destination": "scripted-too"}"#)
            #expect(try registered == .ok && runtime.model(id: "scripted-too").localPath == runtime.model(id: "scripted").localPath)
        }
        #expect(
            (try FileManager.default.contentsOfDirectory(atPath: blobs.path)) == [], "no staging link or upload is left in the blob folder")
    }

    /// What a Modelfile adds that a model here cannot keep is refused with the field named, as
    /// are names, files and blobs that cannot make a model; nothing is made by a refused request.
    /// (What it can keep is OllamaModelDefaultsTests.)
    @Test(arguments: [
        (#""model": "m", "from": "scripted", "template": "{{ .Prompt }}""#, HTTPResponse.Status.badRequest, "template"),
        (#""model": "m", "from": "scripted", "quantize": "iq2_xxs""#, .badRequest, "quantize"),
        (#""model": "m", "from": "scripted", "quantize": "q4_K_M""#, .serviceUnavailable, "quantizer"),
        (#""model": "m", "from": "scripted", "adapters": {"a.gguf": "sha256:x"}"#, .badRequest, "adapters"),
        (
            #""model": "m", "from": "scripted", "adapters": {"a.safetensors": "sha256:\#(String(repeating: "a", count: 64))"}"#,
            .badRequest, "adapters"
        ),
        (#""model": "m""#, .badRequest, "from"),
        (#""model": "m", "files": {"m.safetensors": "sha256:\#(String(repeating: "a", count: 64))"}"#, .badRequest, "files"),
        (#""model": "m", "files": {"m.gguf": "sha256:\#(String(repeating: "a", count: 64))"}"#, .badRequest, "files"),
        (#""model": "m", "files": {"m.gguf": "md5:abc"}"#, .badRequest, "digest"),
        (#""model": "m", "from": "scripted", "files": {"m.gguf": "sha256:\#(String(repeating: "a", count: 64))"}"#, .badRequest, "files"),
        (#""model": "m:7b", "from": "scripted""#, .badRequest, "model"),
        (#""model": "scripted", "from": "scripted""#, .conflict, "id"),
        (#""model": "m", "from": "nope""#, .notFound, "source"),
    ])
    func refusalsNameTheirField(fields: String, status: HTTPResponse.Status, param: String) async throws {
        let runtime = try scriptedRuntime()
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let (answered, body) = try await Self.post(client, "/api/create", "{\(fields)}")
            let message = try OllamaRouteTests.error(body)
            #expect(answered == status, "\(fields): \(message)")
            #expect(message.contains(param) || param == "id" || param == "source", "\(fields): \(message)")
        }
        #expect(runtime.availableModels().filter { $0.source == .local }.map(\.id) == ["scripted"], "nothing was made")
    }

    /// Two creates of one upload at once: each makes its model, or is told to upload again when
    /// the other used the upload up first; never a server error.
    /// An uploaded file that is not a GGUF model, or is one cut short, is the request's fault: a
    /// 400 naming `files`, whole and streamed, and no model is made of it.
    @Test(arguments: [false, true])
    func anUploadThatIsNoModelIsABadRequest(stream: Bool) async throws {
        let runtime = try scriptedRuntime()
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let model = GGUFWriter.tinyLlama().data()
            for (index, file) in [Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }), model.prefix(40)].enumerated() {
                let digest = Self.digest(file)
                try await client.execute(uri: "/api/blobs/\(digest)", method: .post, body: ByteBuffer(data: file)) {
                    #expect($0.status == .created)
                }
                let (status, body) = try await Self.post(
                    client, "/api/create", #"{"model": "bad\#(index)", "stream": \#(stream), "files": {"x.gguf": "\#(digest)"}}"#)
                #expect(status == .badRequest, "\(String(buffer: body))")
                #expect(try OllamaRouteTests.error(body).contains("not a valid GGUF model"))
                #expect((try? runtime.model(id: "bad\(index)")) == nil)
            }
        }
    }

    @Test func twoCreatesOfOneUploadMakeOneModel() async throws {
        let runtime = try scriptedRuntime()
        let file = GGUFWriter.tinyLlama().data()
        let digest = Self.digest(file)
        let app = Routes.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/blobs/\(digest)", method: .post, body: ByteBuffer(data: file)) {
                #expect($0.status == .created)
            }
            async let first = Self.post(client, "/api/create", #"{"model": "one", "files": {"one.gguf": "\#(digest)"}, "stream": false}"#)
            async let second = Self.post(client, "/api/create", #"{"model": "two", "files": {"two.gguf": "\#(digest)"}, "stream": false}"#)
            let statuses = try await [first.0, second.0]
            #expect(statuses.allSatisfy { [.ok, .badRequest].contains($0) } && statuses.contains(.ok), "\(statuses)")
            let made = runtime.availableModels().filter { ["one", "two"].contains($0.id) && $0.isDownloaded }
            #expect(made.count == statuses.filter { $0 == .ok }.count, "a model for each create that succeeded")
        }
    }

    @Test func copyRefusals() async throws {
        let app = Routes.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            for (body, status) in [
                (#"{"source": "nope", "destination": "x"}"#, HTTPResponse.Status.notFound),
                (#"{"source": "scripted", "destination": "scripted"}"#, .conflict),
                (#"{"source": "scripted", "destination": "a/b"}"#, .badRequest), (#"{"source": "scripted"}"#, .badRequest),
            ] {
                let (answered, _) = try await Self.post(client, "/api/copy", body)
                #expect(answered == status, "\(body)")
            }
            try await client.execute(uri: "/api/blobs/sha256:xyz", method: .head) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/blobs/sha256:xyz", method: .post, body: ByteBuffer(string: "x")) { response in
                let message = try OllamaRouteTests.error(response.body)
                #expect(response.status == .badRequest && message.contains("64 lowercase hex digits"), "\(message)")
            }
        }
    }

    /// A streamed quantization whose client hangs up while a tensor is being written (no progress
    /// line is due): the quantizer's process is killed then. A shell stands in for it that reports
    /// one tensor and sleeps; a process still there 30 s after the hang-up fails the test.
    @Test func aQuantizationWhoseClientHangsUpIsStopped() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        let pidFile = folder.appendingPathComponent("pid")
        var configuration = RuntimeConfiguration(
            modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data"))
        configuration.quantizer = ChildProcessQuantizer(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "echo $$ > '\(pidFile.path)'; echo 'tensor 1/3'; exec sleep 100000", "sh"])
        let frameworks = FrameworkAdapterRegistry()
        frameworks.register(ScriptedAdapter())
        let runtime = RunAnywhereRuntime(configuration: configuration, frameworks: frameworks)
        var f16 = GGUFWriter.tinyLlama()
        f16.metadata = f16.metadata.map { $0.0 == "general.file_type" ? ($0.0, .u32(1)) : $0 }
        let file = folder.appendingPathComponent("f16.gguf")
        try f16.write(to: file)
        try runtime.registerModel(id: "f16", name: "f16", url: file, framework: .llamaCpp)
        let app = Routes.server(runtime).application()
        try await app.test(.live) { client in
            var pid: pid_t?
            let body = #"{"model": "small", "from": "f16", "quantize": "q8_0"}"#
            try await ClientHangUpTests.hangUp(on: try #require(client.port), posting: body, to: "/api/create") {
                for _ in 0..<600 where pid == nil {
                    try await Task.sleep(for: .milliseconds(50))
                    pid = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap {
                        pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                }
            }
            let gone = try await ProcessWatch.gone(try #require(pid, "the quantizer started"))
            #expect(gone, "the hang-up killed the quantizer's process")
        }
        #expect(throws: SDKError.self) { try runtime.model(id: "small") }
        try? FileManager.default.removeItem(at: folder)
    }
}
