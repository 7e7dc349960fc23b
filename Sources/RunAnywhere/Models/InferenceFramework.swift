/// An inference engine a model can run on. Raw values are the SDK's wire strings.
public enum InferenceFramework: String, CaseIterable, Codable, Sendable {
    /// ONNX Runtime, through sherpa-onnx for Piper voices and directly for other networks.
    case onnx = "ONNX"
    /// llama.cpp: language, vision-language, embedding and reranking models.
    case llamaCpp = "LlamaCpp"
    /// whisper.cpp: speech recognition and voice activity detection.
    case whisperCpp = "WhisperCpp"
    /// eSpeak NG's formant voices.
    case espeakNG = "EspeakNG"
    /// stable-diffusion.cpp: image generation.
    case stableDiffusionCpp = "StableDiffusionCpp"
    /// Apple's Foundation Models (Apple platforms only; never available on Linux).
    case foundationModels = "FoundationModels"
    /// The platform's own speech synthesis (Apple platforms only; never available on Linux).
    case systemTTS = "SystemTTS"
    /// FluidAudio (Apple platforms only; never available on Linux).
    case fluidAudio = "FluidAudio"
    /// Core ML (Apple platforms only; never available on Linux).
    case coreml = "CoreML"
    /// MLX (Apple platforms only; never available on Linux).
    case mlx = "MLX"
    /// WhisperKit (Apple platforms only; never available on Linux).
    case whisperKitCoreML = "WhisperKitCoreML"
    /// MetalRT (Apple platforms only; never available on Linux).
    case metalrt = "MetalRT"
    /// The SDK's own code, no engine.
    case builtIn = "BuiltIn"
    /// No engine.
    case none = "None"
    /// A framework this version of the SDK does not know.
    case unknown = "Unknown"

    /// A name for people.
    public var displayName: String {
        switch self {
        case .onnx: "ONNX Runtime"
        case .llamaCpp: "llama.cpp"
        case .whisperCpp: "whisper.cpp"
        case .espeakNG: "eSpeak NG"
        case .stableDiffusionCpp: "stable-diffusion.cpp"
        case .foundationModels: "Foundation Models"
        case .systemTTS: "System TTS"
        case .fluidAudio: "FluidAudio"
        case .coreml: "Core ML"
        case .mlx: "MLX"
        case .whisperKitCoreML: "WhisperKit CoreML"
        case .metalrt: "MetalRT"
        case .builtIn: "Built-in"
        case .none: "None"
        case .unknown: "Unknown"
        }
    }

    /// The model formats the framework reads (an adapter's ``FrameworkAdapter/supportedFormats``
    /// unless it says otherwise). eSpeak NG's voices are built in, so they have no file format.
    public var formats: [ModelFormat] {
        switch self {
        case .llamaCpp: [.gguf]
        case .whisperCpp: [.ggml, .bin]
        case .onnx: [.onnx]  // sherpa-onnx reads .onnx files; ORT-format (.ort) models are not supported
        case .espeakNG: [.unknown]
        case .stableDiffusionCpp: [.gguf, .safetensors]
        case .coreml, .whisperKitCoreML: [.coreml]
        case .mlx: [.safetensors]
        default: []
        }
    }

    /// The snake_case key analytics events use.
    package var analyticsKey: String {
        switch self {
        case .onnx: "onnx"
        case .llamaCpp: "llama_cpp"
        case .whisperCpp: "whisper_cpp"
        case .espeakNG: "espeak_ng"
        case .stableDiffusionCpp: "stable_diffusion_cpp"
        case .foundationModels: "foundation_models"
        case .systemTTS: "system_tts"
        case .fluidAudio: "fluid_audio"
        case .coreml: "coreml"
        case .mlx: "mlx"
        case .whisperKitCoreML: "whisperkit_coreml"
        case .metalrt: "metalrt"
        case .builtIn: "built_in"
        case .none: "none"
        case .unknown: "unknown"
        }
    }

    /// Why this framework can never run here, when it exists only on Apple's systems.
    package var platformRestriction: String? {
        switch self {
        case .foundationModels, .systemTTS, .fluidAudio, .coreml, .mlx, .whisperKitCoreML, .metalrt:
            "\(displayName) is only available on Apple platforms (iOS, macOS), not on Linux"
        default:
            nil
        }
    }

    /// What kinds of work the framework does.
    public var modalities: Set<FrameworkModality> {
        switch self {
        case .llamaCpp: [.textToText, .imageToText]
        case .whisperCpp: [.voiceToText]
        case .espeakNG: [.textToVoice]
        case .stableDiffusionCpp: [.textToImage]
        case .onnx: [.voiceToText, .textToVoice]
        case .foundationModels, .mlx, .metalrt: [.textToText]
        case .coreml: [.textToText, .voiceToText, .imageToText, .textToImage]
        case .systemTTS: [.textToVoice]
        case .fluidAudio, .whisperKitCoreML: [.voiceToText]
        case .builtIn, .none, .unknown: []
        }
    }

    /// Parses a raw value, display name or analytics key, ignoring case ("llamacpp", "llama.cpp").
    package init?(caseInsensitive string: String) {
        let wanted = string.lowercased()
        let match = Self.allCases.first {
            $0.rawValue.lowercased() == wanted || $0.displayName.lowercased() == wanted
                || $0.analyticsKey == wanted || $0.analyticsKey.replacingOccurrences(of: "_", with: "") == wanted
        }
        guard let match else { return nil }
        self = match
    }
}

/// A kind of work a framework does.
public enum FrameworkModality: String, CaseIterable, Codable, Sendable {
    /// Text generation.
    case textToText = "text-to-text"
    /// Speech recognition.
    case voiceToText = "voice-to-text"
    /// Speech synthesis.
    case textToVoice = "text-to-voice"
    /// Describing images (vision-language models).
    case imageToText = "image-to-text"
    /// Image generation.
    case textToImage = "text-to-image"
    /// Several kinds of input at once.
    case multimodal = "multimodal"

    /// The modality that models of `category` need.
    public init(category: ModelCategory) {
        switch category {
        case .language, .embedding, .reranking, .loraAdapter: self = .textToText
        case .speechRecognition, .audio: self = .voiceToText
        case .speechSynthesis: self = .textToVoice
        case .vision: self = .imageToText
        case .imageGeneration: self = .textToImage
        case .multimodal: self = .imageToText
        }
    }
}
