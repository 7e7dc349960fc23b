import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The Hugging Face provider against ``LoopbackHub``: a loopback server that answers the way the
/// Hub API documents it (the repository listing with sizes and sha256, `resolve/main` URLs that
/// redirect to a CDN on another host name and port), because the real hub cannot be reached
/// from the machines the tests run on. Resolution of each reference form, the choice of the
/// quantization, the token sent to the hub and never to the CDN, a private repository without a
/// token, and a real download of a small GGUF through the SDK's download path with its sha256 checked.
struct HuggingFaceProviderTests {
    /// A runtime in a temporary folder whose Hugging Face provider uses `hub` (with `token`).
    private func runtime(_ hub: LoopbackHub, token: String? = nil, name: String = #function) throws -> RunAnywhereRuntime {
        let folder = try TestEnvironment.temporaryDirectory(name)
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data")
            ))
        runtime.providers.register(HuggingFaceProvider(endpoint: hub.endpoint, token: token))
        return runtime
    }

    @Test func eachReferenceFormResolvesToItsFile() async throws {
        let hub = try await LoopbackHub.start()
        defer { Task { try? await hub.shutdown() } }
        let runtime = try runtime(hub)
        let folder = runtime.configuration.modelsDirectory
        let model = try await runtime.resolveModel(reference: "hf.co/TestOrg/Tiny-GGUF:Q4_K_M")
        #expect(model.id == "hf.co/TestOrg/Tiny-GGUF:Q4_K_M")
        #expect(model.downloadURL == hub.endpoint.appendingPathComponent("TestOrg/Tiny-GGUF/resolve/main/tiny-Q4_K_M.gguf"))
        #expect(model.localPath == folder.appendingPathComponent("hf.co/TestOrg/Tiny-GGUF:Q4_K_M/tiny-Q4_K_M.gguf"))
        #expect(model.sha256 == LoopbackHub.sha256(LoopbackHub.q4) && model.downloadSize == Int64(LoopbackHub.q4.count))
        #expect(model.format == .gguf && model.framework == .llamaCpp && model.category == .language && model.license == "mit")
        // The other forms: huggingface.co, any case (the hub's spelling wins), no quantization, ollama's :latest.
        for reference in [
            "huggingface.co/TestOrg/Tiny-GGUF:Q4_K_M", "hf.co/testorg/tiny-gguf:q4_k_m", "hf.co/TestOrg/Tiny-GGUF",
            "hf.co/TestOrg/Tiny-GGUF:latest",
        ] {
            #expect(try await runtime.resolveModel(reference: reference).identity == model.identity, "\(reference)")
        }
        let q8 = try await runtime.resolveModel(reference: "hf.co/TestOrg/Tiny-GGUF:q8_0")
        #expect(q8.id == "hf.co/TestOrg/Tiny-GGUF:Q8_0" && q8.downloadURL?.lastPathComponent == "tiny-Q8_0.gguf")
        #expect(
            try await runtime.resolveModel(reference: "hf.co/TestOrg/Tiny-GGUF:IQ4_XS").downloadURL?.lastPathComponent == "tiny-IQ4_XS.gguf"
        )
        // Without Q4_K_M, the first GGUF file.
        let fallback = try await runtime.resolveModel(reference: "hf.co/TestOrg/NoDefault-GGUF")
        #expect(fallback.id == "hf.co/TestOrg/NoDefault-GGUF:F16" && fallback.downloadURL?.lastPathComponent == "model-F16.gguf")
        #expect(hub.hub.requests.allSatisfy { $0.authorization == nil }, "no token configured, none sent")
    }

    @Test func aQuantizationThatIsNotThereOrSplitIsAClearError() async throws {
        let hub = try await LoopbackHub.start()
        defer { Task { try? await hub.shutdown() } }
        let runtime = try runtime(hub)
        let missing = await #expect(throws: SDKError.self) { try await runtime.resolveModel(reference: "hf.co/TestOrg/Tiny-GGUF:Q4_K") }
        #expect(
            missing?.code == .modelNotFound && missing?.message.contains("it has Q2_K, IQ4_XS, Q4_K_M, Q8_0") == true,
            "\(missing?.message ?? "")")
        let split = await #expect(throws: SDKError.self) { try await runtime.resolveModel(reference: "hf.co/TestOrg/Tiny-GGUF:Q2_K") }
        #expect(
            split?.code == .modelIncompatible && split?.message.contains("one of 2 files") == true
                && split?.message.contains("llama-gguf-split --merge") == true)
        let absent = await #expect(throws: SDKError.self) { try await runtime.resolveModel(reference: "hf.co/TestOrg/Nothing-GGUF") }
        #expect(absent?.code == .modelNotFound)
        let notReference = await #expect(throws: SDKError.self) { try await runtime.resolveModel(reference: "smollm2") }
        #expect(notReference?.code == .invalidInput && notReference?.message.contains("hf.co/OWNER/REPO:QUANT") == true)
    }

    @Test func searchListsTheRepositorysGGUFModels() async throws {
        let hub = try await LoopbackHub.start()
        defer { Task { try? await hub.shutdown() } }
        let runtime = try runtime(hub)
        let models = try await runtime.searchModels("hf.co/TestOrg/Tiny-GGUF")
        #expect(
            models.map(\.reference) == [
                "hf.co/TestOrg/Tiny-GGUF:Q2_K", "hf.co/TestOrg/Tiny-GGUF:IQ4_XS", "hf.co/TestOrg/Tiny-GGUF:Q4_K_M",
                "hf.co/TestOrg/Tiny-GGUF:Q8_0",
            ])
        #expect(models.map(\.parts) == [2, 1, 1, 1] && models[0].sizeBytes == 200 && models.allSatisfy { !$0.requiresToken })
        #expect(try await runtime.searchModels("hf.co/TestOrg/Tiny-GGUF:Q8_0").map(\.file) == ["tiny-Q8_0.gguf"])
        #expect(try await runtime.searchModels("hf.co/TestOrg/Gated-GGUF").map(\.requiresToken) == [true], "a gated listing is public")
    }

    /// A private repository answers 401 without a token; a gated one is refused before anything is
    /// registered. With the token both resolve, and the token went to the hub.
    @Test func aRepositoryThatNeedsATokenSaysSo() async throws {
        let hub = try await LoopbackHub.start()
        defer { Task { try? await hub.shutdown() } }
        let anonymous = try runtime(hub)
        for reference in ["hf.co/TestOrg/Private-GGUF", "hf.co/TestOrg/Gated-GGUF"] {
            let error = await #expect(throws: SDKError.self) { try await anonymous.addModel(reference: reference) }
            #expect(
                error?.code == .unauthorized && error?.message.contains("token is needed") == true
                    && error?.message.contains("HF_TOKEN") == true)
        }
        #expect(hub.hub.requests.contains { $0.path == "/api/models/TestOrg/Private-GGUF" }, "the hub was asked, and answered 401")
        #expect(anonymous.availableModels().allSatisfy { !$0.id.hasPrefix("hf.co/") }, "nothing registered")
        let wrong = try runtime(hub, token: "hf_wrong", name: "wrongToken")
        let refused = await #expect(throws: SDKError.self) { try await wrong.resolveModel(reference: "hf.co/TestOrg/Private-GGUF") }
        #expect(refused?.code == .unauthorized && refused?.message.contains("does not give access") == true)
        let authorized = try runtime(hub, token: LoopbackHub.token, name: "authorized")
        #expect(try await authorized.resolveModel(reference: "hf.co/TestOrg/Private-GGUF:Q4_K_M").id == "hf.co/TestOrg/Private-GGUF:Q4_K_M")
        #expect(hub.hub.requests.last?.authorization == "Bearer \(LoopbackHub.token)")
    }

    /// Registered by reference, downloaded through the SDK's download path: the hub's resolve URL
    /// gets the token, the CDN it redirects to does not, and the file's sha256 is checked.
    @Test func aReferenceDownloadsThroughTheSDKWithItsChecksum() async throws {
        let hub = try await LoopbackHub.start()
        defer { Task { try? await hub.shutdown() } }
        let runtime = try runtime(hub, token: LoopbackHub.token)
        let model = try await runtime.addModel(reference: "hf.co/TestOrg/Private-GGUF:Q4_K_M")
        #expect(try await runtime.addModel(reference: "hf.co/TestOrg/Private-GGUF") == model, "registered once: the entry is returned")
        #expect(try runtime.model(id: "hf.co/TestOrg/Private-GGUF:Q4_K_M").sha256 == LoopbackHub.sha256(LoopbackHub.q4))
        for try await _ in try runtime.downloadModelWithProgress(model.id) {}
        let file = try #require(try runtime.model(id: model.id).primaryFile)
        #expect(try Data(contentsOf: file) == LoopbackHub.q4)
        #expect(try runtime.metadata(of: runtime.model(id: model.id))?.name == "Tiny Test Llama")
        let resolve = try #require(hub.hub.requests.first { $0.path == "/TestOrg/Private-GGUF/resolve/main/private-Q4_K_M.gguf" })
        #expect(resolve.authorization == "Bearer \(LoopbackHub.token)")
        let blob = try #require(hub.cdn.requests.first { $0.path == "/blobs/TestOrg/Private-GGUF/private-Q4_K_M.gguf" })
        #expect(blob.authorization == nil, "the token never reaches the CDN")

        // A listing whose sha256 is not the file's: the download is refused and deleted.
        let wrong = try await runtime.addModel(reference: "hf.co/TestOrg/WrongSum-GGUF")
        let error = await #expect(throws: SDKError.self) { for try await _ in try runtime.downloadModelWithProgress(wrong.id) {} }
        #expect(error?.code == .checksumMismatch)
        #expect(try !runtime.model(id: wrong.id).isDownloaded)

        // Deleting the model removes its nested folder, and the folders it leaves empty.
        try await runtime.deleteStoredModel(model.id)
        try await runtime.deleteStoredModel(wrong.id)
        let models = runtime.configuration.modelsDirectory
        #expect(!FileManager.default.fileExists(atPath: models.appendingPathComponent("hf.co").path))
        #expect((try? runtime.model(id: model.id)) == nil)
    }

    /// Adding checks first: the category, and an id registered already.
    @Test func checkingAReferenceNamesTheFieldAtFault() async throws {
        let hub = try await LoopbackHub.start()
        defer { Task { try? await hub.shutdown() } }
        let runtime = try runtime(hub)
        let fine = await runtime.checkModelReference("hf.co/TestOrg/Tiny-GGUF")
        #expect(fine.problems.isEmpty && fine.model?.id == "hf.co/TestOrg/Tiny-GGUF:Q4_K_M" && fine.detectedFormat == .gguf)
        #expect(
            await runtime.checkModelReference("hf.co/TestOrg/Tiny-GGUF", category: .speechRecognition).problems.map(\.field) == [.framework]
        )
        #expect(await runtime.checkModelReference("hf.co/TestOrg").problems.map(\.field) == [.url])
        try await runtime.addModel(reference: "hf.co/TestOrg/Tiny-GGUF")
        #expect(await runtime.checkModelReference("hf.co/TestOrg/Tiny-GGUF:Q4_K_M").problems.map(\.code) == [.modelAlreadyExists])
    }
}

extension ModelInfo {
    /// What a resolution decides (not when it ran): the id, where it downloads from and goes, its size and checksum.
    fileprivate var identity: String {
        "\(id) \(downloadURL?.absoluteString ?? "-") \(localPath?.path ?? "-") \(downloadSize ?? -1) \(sha256 ?? "-")"
    }
}
