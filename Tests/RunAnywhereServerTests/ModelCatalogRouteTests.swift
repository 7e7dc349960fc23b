import Foundation
import Hummingbird
import HummingbirdTesting
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

/// RunAnywhere's model-management API in process: the catalog with install state, adding a
/// model from a URL (served on loopback), pulling it with progress as server-sent events,
/// storage, deletion, and every error.
@Suite(.inProcessLane) struct ModelCatalogRouteTests {
    /// The server-sent events of a body: each one's name and JSON data.
    static func events(_ body: ByteBuffer) throws -> [(name: String?, data: [String: Any])] {
        try String(buffer: body).components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { block in
            let lines = block.components(separatedBy: "\n")
            let name = lines.first { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) }
            let data = lines.filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }.joined(separator: "\n")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
            return (name, object)
        }
    }

    static func entries(_ body: ByteBuffer) throws -> [String: [String: Any]] {
        let models = try #require(try OpenAIRouteTests.json(body)["models"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: models.map { (($0["model"] as? [String: Any])?["id"] as? String ?? "", $0) })
    }

    @Test func theCatalogShowsWhatIsInstalledAndLoaded() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/models", method: .get) { response in
                #expect(response.status == .ok)
                let entries = try Self.entries(response.body)
                #expect(entries["scripted"]?["installed"] as? Bool == true)
                #expect((entries["scripted"]?["sizeOnDiskBytes"] as? Int ?? 0) > 0)
                #expect(entries["scripted"]?["state"] == nil, "not loaded yet")
                #expect(entries["whisper-tiny.en"]?["installed"] as? Bool == false, "the built-in catalog, not installed in this folder")
                #expect(entries.count > 5)
            }
            try await client.execute(uri: "/api/models?category=speech-recognition", method: .get) { response in
                let entries = try Self.entries(response.body)
                #expect(
                    !entries.isEmpty
                        && entries.values.allSatisfy { ($0["model"] as? [String: Any])?["category"] as? String == "speech-recognition" })
            }
            try await client.execute(
                uri: "/v1/completions", method: .post, headers: .json,
                body: ByteBuffer(string: #"{"model": "scripted", "prompt": "a b", "keep_alive": -1}"#)
            ) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/models/scripted", method: .get) { response in
                let entry = try OpenAIRouteTests.json(response.body)
                #expect(entry["state"] as? String == "loaded")
                #expect((entry["model"] as? [String: Any])?["name"] as? String == "scripted")
            }
            try await client.execute(uri: "/api/models?category=bogus", method: .get) { response in
                #expect(response.status == .badRequest)
                let error = try OpenAIRouteTests.error(response.body)
                #expect(error["param"] as? String == "category")
            }
            try await client.execute(uri: "/api/models/nope", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/models/..%2F..%2Fetc", method: .get) {
                #expect($0.status == .notFound || $0.status == .badRequest)
            }
        }
    }

    @Test func aModelAddedFromAURLIsPulledWithProgressThenDeleted() async throws {
        let bytes = GGUFWriter.tinyLlama().data() + Data(count: 256 << 10)  // padded so that the transfer takes a few reports
        let web = try await TestHTTPServer.start(routes: [
            "/models/Tiny-Model.Q4.gguf": .file(bytes, delayPerChunk: .milliseconds(5)), "/gone.gguf": .status(404),
        ])
        defer { Task { try? await web.shutdown() } }
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let add = #"{"url": "\#(web.url("/models/Tiny-Model.Q4.gguf"))", "category": "language", "name": "Tiny"}"#
            let id = try await client.execute(uri: "/api/models", method: .post, headers: .json, body: ByteBuffer(string: add)) {
                response in
                #expect(response.status == .created)
                let entry = try OpenAIRouteTests.json(response.body)
                #expect(entry["installed"] as? Bool == false)
                let model = try #require(entry["model"] as? [String: Any])
                #expect(model["framework"] as? String == InferenceFramework.llamaCpp.rawValue && model["name"] as? String == "Tiny")
                return try #require(model["id"] as? String)
            }
            try await client.execute(uri: "/api/models/\(id)/pull", method: .post) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/event-stream")
                let events = try Self.events(response.body)
                let progress = events.filter { $0.name == "progress" }
                #expect(progress.count >= 2, "\(events.map(\.name))")
                let fractions = progress.map { $0.data["fraction"] as? Double ?? -1 }
                #expect(fractions == fractions.sorted() && fractions.last == 1, "\(fractions)")
                #expect(progress.last?.data["state"] as? String == "completed")
                #expect(progress.allSatisfy { $0.data["modelId"] as? String == id })
                #expect(events.last?.name == "done" && events.last?.data["installed"] as? Bool == true)
            }
            try await client.execute(uri: "/api/storage", method: .get) { response in
                let storage = try OpenAIRouteTests.json(response.body)
                let models = try #require(storage["models"] as? [[String: Any]])
                #expect(models.contains { $0["modelId"] as? String == id && $0["sizeBytes"] as? Int == bytes.count })
            }
            try await client.execute(uri: "/api/models/\(id)", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/models/\(id)", method: .get) {
                #expect($0.status == .notFound, "a user-added model's entry goes with its files")
            }

            // A download that fails is an `error` event; the model stays not installed.
            let gone = #"{"url": "\#(web.url("/gone.gguf"))", "category": "language"}"#
            let goneID = try await client.execute(uri: "/api/models", method: .post, headers: .json, body: ByteBuffer(string: gone)) {
                response in
                try #require(((try OpenAIRouteTests.json(response.body))["model"] as? [String: Any])?["id"] as? String)
            }
            try await client.execute(uri: "/api/models/\(goneID)/pull", method: .post) { response in
                let events = try Self.events(response.body)
                #expect(events.last?.name == "error")
                let message = (events.last?.data["error"] as? [String: Any])?["message"] as? String
                #expect(message?.contains("404") == true, "\(events.map(\.data))")
            }
        }
    }

    /// A pull of a model whose download is under way is a 409 (it was a 500), in ollama's shape on
    /// ollama's route; the download goes on.
    @Test func aPullOfADownloadUnderWayIsAConflict() async throws {
        let bytes = GGUFWriter.tinyLlama().data() + Data(count: 1 << 20)
        let web = try await TestHTTPServer.start(routes: ["/slow.gguf": .file(bytes, delayPerChunk: .milliseconds(30))])
        defer { Task { try? await web.shutdown() } }
        let runtime = try scriptedRuntime()
        let model = try runtime.addModel(from: web.url("/slow.gguf"), category: .language, framework: .llamaCpp)
        let (seen, signal) = AsyncStream.makeStream(of: Void.self)
        let download = Task {
            for try await update in try runtime.downloadModelWithProgress(model.id) where update.bytesDownloaded > 0 { signal.yield() }
        }
        for await _ in seen { break }
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            let body = ByteBuffer(string: #"{"model": "\#(model.id)", "stream": false}"#)
            try await client.execute(uri: "/api/pull", method: .post, headers: .json, body: body) { response in
                let message = try OllamaRouteTests.error(response.body)
                #expect(response.status == .conflict && message.contains("already being downloaded"), "\(message)")
            }
        }
        try await download.value
        #expect(try runtime.model(id: model.id).isDownloaded, "the download went on")
    }

    @Test func badRequestsAreClearErrors() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            for (body, param) in [
                (#"{"url": "file:///etc/passwd", "category": "language"}"#, "url"),
                (#"{"url": "http://example.com/m.gguf", "category": "bogus"}"#, "category"),
                (#"{"category": "language"}"#, "url"),
            ] {
                try await client.execute(uri: "/api/models", method: .post, headers: .json, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(body)")
                    let error = try OpenAIRouteTests.error(response.body)
                    #expect(error["param"] as? String == param, "\(body)")
                }
            }
            try await client.execute(
                uri: "/api/models", method: .post, headers: .json,
                body: ByteBuffer(string: #"{"url": "http://example.com/voice.onnx", "category": "language"}"#)
            ) { response in
                #expect(response.status == .badRequest, "a language engine does not read ONNX files")
            }
            try await client.execute(
                uri: "/api/models", method: .post, headers: .json,
                body: ByteBuffer(string: #"{"url": "http://example.com/scripted.gguf", "category": "language"}"#)
            ) { response in
                #expect(response.status == .conflict, "the id derived from the file name is taken")
                let error = try OpenAIRouteTests.error(response.body)
                #expect(error["param"] as? String == "id")
            }
            try await client.execute(uri: "/api/models/nope/pull", method: .post) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/models/scripted/pull", method: .delete) {
                #expect($0.status == .notFound, "no download to stop")
            }
            try await client.execute(uri: "/api/models/nope", method: .delete) { #expect($0.status == .notFound) }
        }
    }

    @Test func aModelToAddIsCheckedFieldByFieldWithoutBeingAdded() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            let wrong = #"{"url": "http://example.com/voice.onnx", "category": "language", "id": "a b", "sha256": "xyz"}"#
            try await client.execute(uri: "/api/models/check", method: .post, headers: .json, body: ByteBuffer(string: wrong)) { response in
                #expect(response.status == .ok)
                let check = try OpenAIRouteTests.json(response.body)
                let problems = try #require(check["problems"] as? [[String: Any]])
                #expect(Set(problems.compactMap { $0["field"] as? String }) == ["id", "sha256", "framework"], "\(problems)")
                #expect(check["detectedFormat"] as? String == "onnx" && check["model"] == nil)
            }
            let right = #"{"url": "https://example.com/org/Tiny-Chat.Q4_K_M.gguf", "category": "language"}"#
            try await client.execute(uri: "/api/models/check", method: .post, headers: .json, body: ByteBuffer(string: right)) { response in
                let check = try OpenAIRouteTests.json(response.body)
                #expect((check["problems"] as? [Any])?.isEmpty == true)
                #expect(
                    check["detectedFormat"] as? String == "gguf" && check["framework"] as? String == InferenceFramework.llamaCpp.rawValue)
                #expect((check["model"] as? [String: Any])?["id"] as? String == "tiny-chat.q4_k_m")
            }
            try await client.execute(uri: "/api/models/tiny-chat.q4_k_m", method: .get) {
                #expect($0.status == .notFound, "a check adds nothing")
            }
            try await client.execute(
                uri: "/api/models/check", method: .post, headers: .json,
                body: ByteBuffer(string: #"{"url": "ftp://x/y.gguf", "category": "language"}"#)
            ) { response in
                let problems = try #require(try OpenAIRouteTests.json(response.body)["problems"] as? [[String: Any]])
                #expect(problems.map { $0["field"] as? String } == ["url"])
            }
        }
    }

    @Test func aGGUFModelShowsItsMetadataAndTheSystemItsFrameworks() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/models/scripted/gguf", method: .get) { response in
                #expect(response.status == .ok)
                let metadata = try OpenAIRouteTests.json(response.body)
                #expect(metadata["architecture"] as? String == "llama")
                #expect((metadata["tensorCount"] as? Int ?? 0) > 0)
            }
            try await client.execute(uri: "/api/models/whisper-tiny.en/gguf", method: .get) { response in
                #expect(response.status == .notFound)
                let error = try OpenAIRouteTests.error(response.body)
                #expect(error["code"] as? String == "not_gguf")
            }
            try await client.execute(uri: "/api/system", method: .get) { response in
                let system = try OpenAIRouteTests.json(response.body)
                #expect((system["hardware"] as? [String: Any])?["cores"] as? Int ?? 0 > 0)
                let modalities = try #require(system["modalities"] as? [[String: Any]])
                let text = try #require(modalities.first { $0["modality"] as? String == "text-to-text" })
                #expect(text["frameworks"] as? [String] == [InferenceFramework.llamaCpp.rawValue] && text["reason"] == nil)
                let images = try #require(modalities.first { $0["modality"] as? String == "text-to-image" })
                #expect((images["frameworks"] as? [String])?.isEmpty == true)
                #expect((images["reason"] as? String)?.contains("text-to-image") == true)
            }
        }
    }

    /// A vision model is a folder (its GGUF beside its projector): its metadata is its main
    /// file's; it was a 500 that named the server's path.
    @Test func aFolderModelShowsItsMainFilesMetadata() async throws {
        let runtime = try scriptedRuntime()
        let folder = try #require(try runtime.model(id: SDKConstants.Models.visionFixtureID).localPath)
        let app = OpenAIRouteTests.server(runtime).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/models/\(SDKConstants.Models.visionFixtureID)/gguf", method: .get) { response in
                #expect(response.status == .notFound, "not downloaded yet")
                let error = try OpenAIRouteTests.error(response.body)
                #expect(error["code"] as? String == "model_not_downloaded")
            }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try GGUFWriter.tinyLlama().write(to: folder.appendingPathComponent("model.gguf"))
            try GGUFWriter.tinyLlama().write(to: folder.appendingPathComponent("mmproj-model.gguf"))
            try await client.execute(uri: "/api/models/\(SDKConstants.Models.visionFixtureID)/gguf", method: .get) { response in
                #expect(response.status == .ok)
                let metadata = try OpenAIRouteTests.json(response.body)
                #expect(metadata["architecture"] as? String == "llama")
                #expect(!String(buffer: response.body).contains(folder.path))
            }
        }
    }

    @Test func aServerErrorNamesNoPath() {
        let message = APIError.from(
            SDKError(.generationFailed, "Could not read '/root/.cache/runanywhere/models/x/model.gguf': I/O error")
        ).message
        #expect(message == "Could not read '…/model.gguf': I/O error")
    }

    @Test func aLanguageModelIsLoadedAheadAndUnloaded() async throws {
        let app = OpenAIRouteTests.server(try scriptedRuntime()).checkedApplication()
        try await app.test(.router) { client in
            try await client.execute(
                uri: "/api/models/scripted/load", method: .post, headers: .json, body: ByteBuffer(string: #"{"keepAlive": -1}"#)
            ) { response in
                #expect(response.status == .ok)
                let status = try OpenAIRouteTests.json(response.body)
                #expect(status["state"] as? String == "loaded" && status["keepAliveSeconds"] == nil, "kept for ever: \(status)")
            }
            try await client.execute(uri: "/api/models/scripted", method: .get) { response in
                let entry = try OpenAIRouteTests.json(response.body)
                #expect(entry["state"] as? String == "loaded")
            }
            try await client.execute(uri: "/api/models/scripted/load", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/models/loaded", method: .get) { response in
                let models = try OpenAIRouteTests.json(response.body)["models"] as? [Any]
                #expect(models?.isEmpty == true)
            }
            try await client.execute(uri: "/api/models/scripted/load", method: .post) {
                #expect($0.status == .ok, "no body: the server's keep-alive")
            }
            try await client.execute(uri: "/api/models/whisper-tiny.en/load", method: .post) { #expect($0.status == .badRequest) }
            try await client.execute(
                uri: "/api/models/scripted/load", method: .post, headers: .json, body: ByteBuffer(string: #"{"gpuLayers": -2}"#)
            ) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("gpuLayers cannot be negative"))
            }
            try await client.execute(
                uri: "/api/models/scripted/load", method: .post, headers: .json, body: ByteBuffer(string: #"{"gpuLayers": 0}"#)
            ) {
                #expect($0.status == .ok)
            }
            // The route's older snake_case spelling is read too.
            try await client.execute(
                uri: "/api/models/scripted/load", method: .post, headers: .json, body: ByteBuffer(string: #"{"gpu_layers": -2}"#)
            ) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/api/models/nope/load", method: .post) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/models/nope/load", method: .delete) { #expect($0.status == .notFound) }
        }
    }
}
