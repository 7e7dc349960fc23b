import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere models search|add|pull` with Hugging Face references, against ``LoopbackHub``:
/// a loopback server that answers the way the Hub API documents (the real hub cannot be reached
/// from the test machines), named by `HF_ENDPOINT` as huggingface_hub reads it.
@Suite(.processLane)
struct CLIModelReferenceTests {
    @Test func searchAddPullAndRemoveByReference() async throws {
        let hub = try await LoopbackHub.start()
        defer { Task { try? await hub.shutdown() } }
        let (isolated, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        var cli = isolated
        cli.environment["HF_ENDPOINT"] = hub.endpoint.absoluteString
        cli.environment["HF_TOKEN"] = LoopbackHub.token

        let search = try cli.run(["models", "search", "hf.co/TestOrg/Tiny-GGUF"])
        #expect(search.status == 0, "\(search.stderr)")
        #expect(
            search.stdout.contains("hf.co/TestOrg/Tiny-GGUF:Q4_K_M") && search.stdout.contains("2 parts (not supported)"),
            "\(search.stdout)")

        let added = try cli.run(["models", "add", "hf.co/TestOrg/Private-GGUF:Q4_K_M"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Registered") && added.stdout.contains("hf.co/TestOrg/Private-GGUF:Q4_K_M"), "\(added.stdout)")
        let info = try cli.run(["models", "info", "hf.co/TestOrg/Private-GGUF:Q4_K_M", "--json"]).json()
        #expect((info["model"] as? [String: Any])?["isDownloaded"] as? Bool == true)
        #expect((info["gguf"] as? [String: Any])?["name"] as? String == "Tiny Test Llama")
        #expect(
            hub.cdn.requests.allSatisfy { $0.authorization == nil }
                && hub.hub.requests.contains { $0.authorization == "Bearer \(LoopbackHub.token)" })

        // Pull registers a reference first; without a quantization, the repository's default file.
        let pulled = try cli.run(["models", "pull", "hf.co/TestOrg/NoDefault-GGUF"])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try cli.run(["models", "info", "hf.co/TestOrg/NoDefault-GGUF:F16", "--json"]).json()["gguf"] != nil)

        let misused = try cli.run(["models", "add", "hf.co/TestOrg/Tiny-GGUF", "--id", "tiny"])
        #expect(misused.status == 1 && misused.stderr.contains("--id does not apply to a reference"), "\(misused.stderr)")
        #expect(try cli.run(["models", "rm", "hf.co/TestOrg/Private-GGUF:Q4_K_M", "--yes"]).status == 0)
        #expect(try cli.run(["models", "info", "hf.co/TestOrg/Private-GGUF:Q4_K_M"]).status == 1)

        var anonymous = cli
        anonymous.environment["HF_TOKEN"] = ""
        anonymous.environment["HUGGING_FACE_HUB_TOKEN"] = ""
        let refused = try anonymous.run(["models", "add", "hf.co/TestOrg/Gated-GGUF"])
        #expect(
            refused.status == 1 && refused.stderr.contains("token is needed") && refused.stderr.contains("HF_TOKEN"), "\(refused.stderr)")
    }
}
