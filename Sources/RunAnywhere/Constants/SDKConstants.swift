import Foundation

/// The one home of the SDK's defaults, limits, file names and event names, so no literal is
/// repeated across targets (spec issue 68).
public enum SDKConstants {
    /// Defaults for generation when neither the caller nor the user's settings say otherwise.
    package enum Generation {
        /// Sampling temperature (the sample app's default).
        package static let temperature: Float = 0.7
        /// Nucleus sampling threshold.
        package static let topP: Float = 0.95
        /// Top-k cut.
        package static let topK = 40
        /// Most tokens of a chat answer. Chat answers are bounded so a runaway model ends.
        package static let chatMaxTokens = 1000
        /// Whether chat streams its answers.
        package static let streaming = true
        /// Allowed temperature range.
        package static let temperatureRange: ClosedRange<Float> = 0...2
    }

    /// Limits the SDK enforces.
    public enum Limits {
        /// Longest model id, in bytes.
        package static let modelIDLength = 128
        /// Messages of history a chat keeps in its context before the oldest are dropped.
        public static let contextMessages = 100
        /// Rounds of tool calls one answer takes at most before the tools are withdrawn.
        public static let toolRounds = 8
        /// Tokens between two samples of the tokens-per-second history.
        package static let tokensPerSecondSampleInterval = 10
        /// Default context window when a model does not say, and the most loaded by default.
        package static let defaultContextLength = 2048
        /// Largest context loaded unless the caller asks for more.
        package static let maxDefaultContextLength = 4096
        /// Largest context a model may be loaded with, per sequence, in tokens.
        package static let maxContextLength = 1 << 24
        /// Most generations one model may run at once (with ``maxContextLength``, llama.cpp's
        /// 32-bit context size still holds every sequence).
        package static let maxParallel = 128
        /// Most CPU threads a model, a generation or a transcription may be given.
        package static let maxThreads = 512
        /// Longest side, in pixels, of an image the vision engine decodes.
        package static let maxImageSide = 16384
        /// Most pixels of an image the vision engine decodes (3 bytes each once decoded).
        package static let maxImagePixels = 50_000_000
        /// Most times one side of an image may be longer than the other.
        package static let maxImageAspectRatio = 32
        /// Sides, in pixels, of an image a diffusion model may generate.
        package static let diffusionSides = 64...2048
        /// What a generated image's sides must be a multiple of (the latent space is 8× smaller).
        package static let diffusionSideMultiple = 8
        /// Most denoising steps one generation may take.
        package static let maxDiffusionSteps = 150
        /// Longest image prompt (and negative prompt), in characters; text encoders read far less
        /// (CLIP 77 tokens at a time), and a huge prompt only costs time and memory.
        package static let maxDiffusionPromptCharacters = 2_000
    }

    /// Models.
    public enum Models {
        /// The model scripts/setup installs, used when an app or the CLI names none.
        public static let defaultModelID = "smollm2-135m-instruct-q4_1"
        /// The speech-to-text model scripts/setup installs (converted from CTranslate2).
        public static let defaultSpeechRecognitionModelID = "whisper-tiny.en"
        /// The multilingual speech-to-text model (Whisper base): speech in other languages, and its
        /// translation to English. `make test` installs it; an app downloads it.
        public static let multilingualSpeechRecognitionModelID = "whisper-base"
        /// The text-to-speech voice scripts/setup installs (Piper, through sherpa-onnx).
        public static let defaultVoiceID = "piper-en_US-joe-medium"
        /// The voice activity detector scripts/setup installs.
        public static let voiceActivityModelID = "silero-vad"
        /// The embedding model scripts/setup installs (all-MiniLM-L6-v2, converted to GGUF).
        public static let defaultEmbeddingModelID = "all-minilm-l6-v2"
        /// The reranker a message suggests pulling when none is downloaded (jina-reranker-v1-tiny-en, F16).
        public static let suggestedRerankerID = "jina-reranker-v1-tiny-en"
        /// The vision-language fixture scripts/setup writes: SmolVLM's shape, random weights.
        package static let visionFixtureID = "smolvlm-fixture"
        /// The fill-in-the-middle fixture scripts/setup writes: a code model's tokens, random weights.
        package static let infillFixtureID = "coder-fixture"
        /// The image-generation fixture scripts/setup writes: a tiny Stable Diffusion, random weights.
        package static let diffusionFixtureID = "sd-fixture"
        /// Every fixture scripts/setup writes.
        package static let fixtureIDs: Set<String> = [visionFixtureID, infillFixtureID, diffusionFixtureID]
    }

    /// File and folder names inside the models and app-data folders.
    package enum Files {
        /// The user-model registry, in the models folder.
        package static let modelRegistry = "registry.json"
        /// The conversations folder, in the app-data folder.
        package static let conversations = "conversations"
        /// The generation settings, in the app-data folder.
        package static let settings = "settings.json"
        /// Saved prompt states (`--save-prompts`), in the app-data folder.
        package static let promptStates = "prompt-states"
        /// The selected environment and its base URLs, in the app-data folder.
        package static let environment = "environment.json"
        /// API keys per environment, readable only by the user (mode 0600), in the app-data folder.
        package static let credentials = "credentials.json"
        /// The staging and production backends' folder, in the app-data folder: the device's
        /// identity (`device.json`) and the analytics outbox (`outbox.sqlite`).
        package static let backend = "backend"
    }

    /// Names of the events the SDK reports in its log metadata (`event`).
    package enum Events {
        /// A model was loaded.
        package static let modelLoaded = "model.loaded"
        /// A model was unloaded.
        package static let modelUnloaded = "model.unloaded"
        /// Older messages were left out to fit the model's context.
        package static let contextTrimmed = "generation.contextTrimmed"
        /// A chat answer ended.
        package static let messageCompleted = "chat.messageCompleted"
        /// A conversation was written to its store.
        package static let conversationSaved = "conversation.saved"
        /// A damaged file was moved aside and replaced.
        package static let fileMovedAside = "storage.fileMovedAside"
        /// The selected environment changed.
        package static let environmentChanged = "environment.changed"
        /// The device was registered with the backend.
        package static let deviceRegistered = "backend.deviceRegistered"
        /// A batch of analytics events reached the backend.
        package static let analyticsSent = "backend.analyticsSent"
        /// A call to the backend failed.
        package static let backendFailed = "backend.failed"
    }
}
