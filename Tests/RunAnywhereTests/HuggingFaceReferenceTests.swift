import Foundation
import Testing

@testable import RunAnywhere

/// Hugging Face references (ollama's `hf.co/OWNER/REPO:QUANT`), the choice of a file by its
/// quantization, reference ids in the catalog, and the hosts that get the token: no network.
struct HuggingFaceReferenceTests {
    @Test func eachFormOfAReferenceParses() throws {
        let full = try HuggingFaceReference("hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M")
        #expect(full.owner == "bartowski" && full.repository == "Llama-3.2-1B-Instruct-GGUF" && full.quantization == "Q4_K_M")
        #expect(try HuggingFaceReference("huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF:q8_0").quantization == "q8_0")
        #expect(try HuggingFaceReference(" HF.CO/TestOrg/Tiny-GGUF ").quantization == nil)
        #expect(
            try HuggingFaceReference("hf.co/TestOrg/Tiny-GGUF:latest").quantization == nil, "ollama's default tag picks the default file")
        #expect(try HuggingFaceReference("hf.co/unsloth/Qwen3-0.6B-GGUF:UD-Q4_K_XL").quantization == "UD-Q4_K_XL")
        for bad in [
            "hf.co/owner", "hf.co/owner/repo/file.gguf", "hf.co/../repo", "hf.co/owner/repo:", "hf.co/owner/re po", "hf.co//repo",
            "hf.co/owner/repo:a:b",
        ] {
            let error = try #require(throws: SDKError.self, "\(bad)") { try HuggingFaceReference(bad) }
            #expect(error.code == .invalidInput && error.message.contains("hf.co/OWNER/REPO:QUANT"))
        }
        #expect(HuggingFaceReference.claims("hf.co/owner") && HuggingFaceReference.claims("huggingface.co/x/y"))
        #expect(!HuggingFaceReference.claims("https://huggingface.co/x/y/resolve/main/m.gguf") && !HuggingFaceReference.claims("smollm2"))
        #expect(HuggingFaceReference.modelID(repositoryID: "O/R", quantization: "q4_k_m") == "hf.co/O/R:Q4_K_M")
        #expect(HuggingFaceReference.modelID(repositoryID: "O/R", quantization: nil) == "hf.co/O/R")
    }

    /// A quantization is a whole name in the file's path: `Q4_K` is not `Q4_K_M`, nor `Q4_XS` `IQ4_XS`.
    @Test func theQuantizationIsAWholeNameOfTheFile() {
        let file = { (path: String) in HuggingFaceGGUFFile(path: path, size: nil, sha256: nil, parts: 1, quantization: nil) }
        #expect(file("Llama-3.2-1B-Instruct-Q4_K_M.gguf").carries("q4_k_m"))
        #expect(file("model.Q8_0.gguf").carries("Q8_0"))
        #expect(file("Q4_K_M/model-00001-of-00002.gguf").carries("Q4_K_M"))
        #expect(file("Qwen3-0.6B-UD-Q4_K_XL.gguf").carries("UD-Q4_K_XL") && file("Qwen3-0.6B-UD-Q4_K_XL.gguf").carries("Q4_K_XL"))
        #expect(!file("Llama-Q4_K_M.gguf").carries("Q4_K"))
        #expect(!file("Llama-IQ4_XS.gguf").carries("Q4_XS"))
        #expect(HuggingFaceGGUFFile.quantization(in: "qwen2.5-0.5b-instruct-q4_k_m.gguf") == "Q4_K_M")
        #expect(HuggingFaceGGUFFile.quantization(in: "sub/Phi-3-mini-4k-instruct-fp16.gguf") == nil)
        #expect(HuggingFaceGGUFFile.quantization(in: "gemma-2b-it-BF16-00001-of-00002.gguf") == "BF16")
        #expect(HuggingFaceGGUFFile.quantization(in: "model-IQ2_XXS.gguf") == "IQ2_XXS")
    }

    /// Split models are one entry with their total size; projectors and other files are no models.
    @Test func splitModelsAreOneEntryAndProjectorsNone() {
        let files = HuggingFaceGGUFFile.models(in: [
            ("README.md", 10, nil), ("mmproj-model-f16.gguf", 600, "aa"), ("model-Q8_0.gguf", 900, "bb"),
            ("Q2_K/model-Q2_K-00002-of-00002.gguf", 40, "cc"), ("Q2_K/model-Q2_K-00001-of-00002.gguf", 50, "dd"), ("notes.GGUF", 5, nil),
        ])
        #expect(files.map(\.path) == ["Q2_K/model-Q2_K-00001-of-00002.gguf", "model-Q8_0.gguf", "notes.GGUF"])
        #expect(
            files[0]
                == HuggingFaceGGUFFile(path: "Q2_K/model-Q2_K-00001-of-00002.gguf", size: 90, sha256: "dd", parts: 2, quantization: "Q2_K"))
        #expect(files[1].tag == "Q8_0" && files[2].tag == "notes", "a file without a quantization is named by its file name")
    }

    /// A reference is a model id (its folder nested the same way); anything else with a '/' is not.
    @Test func aReferenceIsAValidModelID() throws {
        for good in [
            "hf.co/TestOrg/Tiny-GGUF:Q4_K_M", "hf.co/O/R", "hf.co/unsloth/Qwen3-0.6B-GGUF:UD-Q4_K_XL", "smollm2-135m-instruct-q4_1",
        ] {
            try ModelInfo.validateID(good)
        }
        for bad in [
            "a/b", "hf.co/../x", "hf.co/x/..", "hf.co//x", "hf.co/x/y:", "hf.co/x:y/z", "hf.co/x/y:a:b", "hf.co/x y/z", "../etc",
            ".hf.co/x/y", "a:b",
        ] {
            #expect((try #require(throws: SDKError.self, "\(bad)") { try ModelInfo.validateID(bad) }).code == .invalidInput)
        }
    }

    /// The token goes to the endpoint's origin and to Hugging Face's domains, never elsewhere.
    @Test func theTokenGoesToHuggingFaceHostsOnly() {
        let provider = HuggingFaceProvider(environment: ["HF_ENDPOINT": "http://127.0.0.1:8123/", "HF_TOKEN": "hf_secret"])
        #expect(provider.endpoint.absoluteString == "http://127.0.0.1:8123" && provider.hasToken)
        let bearer = ["Authorization": "Bearer hf_secret"]
        for url in [
            "http://127.0.0.1:8123/api/models/o/r", "https://huggingface.co/o/r/resolve/main/m.gguf", "https://hf.co/o/r",
            "https://cdn-lfs.hf.co/x", "https://cas-bridge.xethub.hf.co/x", "https://cdn-lfs-us-1.huggingface.co/x",
        ] {
            #expect(provider.authenticationHeaders(for: URL(string: url)!) == bearer, "\(url)")
        }
        for url in [
            "http://127.0.0.1:9999/x", "http://localhost:8123/x", "https://huggingface.co.evil.example/x", "https://evilhf.co/x",
            "https://example.com/m.gguf", "ftp://huggingface.co/x",
        ] {
            #expect(provider.authenticationHeaders(for: URL(string: url)!).isEmpty, "\(url)")
        }
        let fallback = HuggingFaceProvider(environment: ["HUGGING_FACE_HUB_TOKEN": "hf_other", "HF_TOKEN": ""])
        #expect(fallback.endpoint.absoluteString == "https://huggingface.co")
        #expect(fallback.authenticationHeaders(for: URL(string: "https://huggingface.co/x")!) == ["Authorization": "Bearer hf_other"])
        #expect(!HuggingFaceProvider(environment: [:]).hasToken)
        #expect(HuggingFaceProvider(environment: [:]).authenticationHeaders(for: URL(string: "https://huggingface.co/x")!).isEmpty)
    }

    @Test func aBadEndpointIsAClearError() async throws {
        let provider = HuggingFaceProvider(environment: ["HF_ENDPOINT": "not a url"])
        let error = await #expect(throws: SDKError.self) { try await provider.search("hf.co/o/r") }
        #expect(error?.code == .invalidConfiguration && error?.message.contains("HF_ENDPOINT") == true)
    }
}
