import RunAnywhere

/// A component that can be benchmarked. Adding one: a case here, a provider, and one line in
/// ``BenchmarkRunner/defaultProviders(_:)``.
package enum BenchmarkCategory: String, Codable, CaseIterable, Identifiable, Comparable, Sendable {
    /// The component a benchmark measures: language, speech-to-text, text-to-speech,
    /// vision-language, diffusion or embedding models.
    case llm, stt, tts, vlm, diffusion, embedding

    package var id: String { rawValue }

    /// A name for people.
    package var displayName: String {
        switch self {
        case .llm: "LLM"
        case .stt: "Speech-to-Text"
        case .tts: "Text-to-Speech"
        case .vlm: "Vision Language"
        case .diffusion: "Image Generation"
        case .embedding: "Embeddings"
        }
    }

    /// The SDK's category of the models this component runs.
    package var modelCategory: ModelCategory {
        switch self {
        case .llm: .language
        case .stt: .speechRecognition
        case .tts: .speechSynthesis
        case .vlm: .multimodal
        case .diffusion: .imageGeneration
        case .embedding: .embedding
        }
    }

    /// The downloaded models of `models` this component benchmarks: the real ones, or where
    /// there are none the test fixtures (random weights: their speeds are real, their answers noise).
    package func downloadedModels(_ models: [ModelInfo]) -> [ModelInfo] {
        let downloaded = models.filter { $0.category == modelCategory && $0.isDownloaded }
        let real = downloaded.filter { !$0.isTestFixture }
        return real.isEmpty ? downloaded : real
    }

    package static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// Where a run is: `running` while its process works on it (it is saved after every scenario),
/// then how it ended; `interrupted` when its process died before it ended (killed, or out of
/// memory), with the results finished by then. `interrupted` is additive to the spec.
package enum BenchmarkRunStatus: String, Codable, Sendable {
    /// Where a run stands: running, completed, failed, cancelled, or interrupted (the process that
    /// ran it ended before it did).
    case running, completed, failed, cancelled, interrupted
}
