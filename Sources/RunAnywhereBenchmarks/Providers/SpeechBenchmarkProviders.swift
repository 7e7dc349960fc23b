import Foundation
import RunAnywhere

/// Speech-to-text: 2 s of silence and 3 s of a 440 Hz tone, 16 kHz mono Int16 (spec 1.3).
package struct STTBenchmarkProvider: BenchmarkScenarioProvider {
    package let category = BenchmarkCategory.stt
    private let configuration: BenchmarkConfiguration

    /// Creates the provider for a configuration.
    package init(configuration: BenchmarkConfiguration) {
        self.configuration = configuration
    }

    package func scenarios() -> [BenchmarkScenario] {
        ["Silent audio (2s)", "Synthetic tone (3s)"].map { BenchmarkScenario(name: $0, category: .stt) }
    }

    /// The audio each scenario transcribes.
    package static func audio(for scenario: BenchmarkScenario) -> Data {
        scenario.name == "Silent audio (2s)"
            ? SyntheticInputGenerator.silentAudio(durationSeconds: 2)
            : SyntheticInputGenerator.sineWaveAudio(durationSeconds: 3, frequencyHz: 440)
    }

    package func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        let runtime = configuration.runtime
        let audio = Self.audio(for: scenario)
        let options = STTOptions(threads: configuration.threads)
        return try await measure(
            configuration,
            load: {
                await runtime.unloadSTTModel()
                try await runtime.loadSTTModel(model.id, options: ModelLoadOptions(threads: configuration.threads))
            }, unload: { await runtime.unloadSTTModel() },
            pass: {
                (try await runtime.transcribeWithOptions(audio, options: options).metadata.processingTime * 1000)
            }, fill: { metrics, componentMs in metrics.sttTranscriptionTimeMs = componentMs })
    }
}

/// Text-to-speech: a short and a medium sentence (spec 1.3).
package struct TTSBenchmarkProvider: BenchmarkScenarioProvider {
    package let category = BenchmarkCategory.tts
    private let configuration: BenchmarkConfiguration

    /// Creates the provider for a configuration.
    package init(configuration: BenchmarkConfiguration) {
        self.configuration = configuration
    }

    /// The text of each scenario.
    package static let texts = [
        "Short text": "Hello, world.",
        "Medium text":
            "The quick brown fox jumps over the lazy dog. This is a benchmark test for text to speech synthesis quality and speed.",
    ]

    package func scenarios() -> [BenchmarkScenario] {
        ["Short text", "Medium text"].map { BenchmarkScenario(name: $0, category: .tts) }
    }

    package func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        let runtime = configuration.runtime
        let text = Self.texts[scenario.name] ?? "Hello, world."
        return try await measure(
            configuration,
            load: {
                await runtime.unloadTTSVoice()
                try await runtime.loadTTSModel(model.id, options: ModelLoadOptions(threads: configuration.threads))
            }, unload: { await runtime.unloadTTSVoice() },
            pass: {
                (try await runtime.synthesize(text).metadata.processingTime * 1000)
            }, fill: { metrics, componentMs in metrics.ttsSynthesisTimeMs = componentMs })
    }
}

/// The measuring method of the speech providers: timed load with its memory, one discarded
/// warm-up pass, then the configured passes; end-to-end latency and the component's own time
/// are reported as medians, with the latency's range.
func measure(
    _ configuration: BenchmarkConfiguration, load: () async throws -> Void, unload: () async -> Void,
    pass: () async throws -> Double, fill: (inout BenchmarkMetrics, Double?) -> Void
) async throws -> BenchmarkMetrics {
    let memory = MemoryProbe.start()
    let loadStart = ContinuousClock.now
    try await load()
    let loadTimeMs = loadStart.millisecondsElapsed
    let availableDelta = memory.availableDelta()
    do {
        let warmupStart = ContinuousClock.now
        _ = try await pass()
        let warmupMs = warmupStart.millisecondsElapsed
        var latencies: [Double] = []
        var componentTimes: [Double] = []
        for _ in 0..<configuration.repetitions {
            let start = ContinuousClock.now
            componentTimes.append(try await pass())
            latencies.append(start.millisecondsElapsed)
            try Task.checkCancellation()
        }
        await unload()
        let latency = Spread(latencies)
        var metrics = BenchmarkMetrics(
            loadTimeMs: loadTimeMs, warmupTimeMs: warmupMs, endToEndLatencyMs: latency?.median ?? 0, peakMemoryDeltaBytes: availableDelta)
        fill(&metrics, Spread(componentTimes)?.median)
        metrics.repetitions = latencies.count
        metrics.endToEndLatencyMinMs = latency?.min
        metrics.endToEndLatencyMaxMs = latency?.max
        metrics.peakRSSDeltaBytes = memory.peakResidentDelta()
        return metrics
    } catch {
        await unload()
        throw error
    }
}
