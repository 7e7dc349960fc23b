import Foundation
import Prometheus
import RunAnywhere
import ServiceLifecycle

/// The server's Prometheus metrics (`GET /metrics`): HTTP requests by route and status with
/// their latency; generations by model and stop reason with prompt and completion tokens, time
/// to first token and duration, and transcriptions and syntheses by model with the seconds of
/// audio and of work, read from the runtime's event bus; and, at each scrape, the
/// language models loaded, their memory, the budget and the requests each is serving or queuing.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let runtime: RunAnywhereRuntime
    private let inFlight: Gauge

    /// Latency buckets from 5 ms to 2 minutes.
    private static let buckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120),
    ]

    init(runtime: RunAnywhereRuntime) {
        self.runtime = runtime
        inFlight = registry.makeGauge(name: "runanywhere_http_requests_in_flight", help: "HTTP requests being answered")
    }

    /// Counts a request that starts; call ``finished(route:method:status:after:)`` when its response head is ready.
    func started() { inFlight.increment() }

    /// Counts an answered request and its time to the response head.
    func finished(route: String, method: String, status: Int, after duration: Duration) {
        inFlight.decrement()
        let labels = [("route", route), ("method", method), ("status", "\(status)")]
        registry.makeCounter(name: "runanywhere_http_requests_total", labels: labels, help: "HTTP requests answered").increment()
        registry.makeDurationHistogram(
            name: "runanywhere_http_request_duration_seconds", labels: [("route", route)], buckets: Self.buckets,
            help: "Time to the response head (streams keep going after it)"
        ).record(duration)
    }

    /// Records a completed generation.
    func record(_ result: LLMGenerationResult) {
        let model = [("model", result.modelUsed)]
        registry.makeCounter(name: "runanywhere_generations_total", labels: model + [("stop_reason", result.stopReason.rawValue)], help: "Generations ended").increment()
        registry.makeCounter(name: "runanywhere_prompt_tokens_total", labels: model, help: "Prompt tokens read").increment(by: Int64(result.inputTokens))
        registry.makeCounter(name: "runanywhere_cached_prompt_tokens_total", labels: model, help: "Prompt tokens reused from the KV cache").increment(by: Int64(result.cachedInputTokens))
        registry.makeCounter(name: "runanywhere_completion_tokens_total", labels: model, help: "Tokens generated").increment(by: Int64(result.tokensUsed))
        if let ttft = result.timeToFirstTokenMs {
            registry.makeDurationHistogram(name: "runanywhere_time_to_first_token_seconds", labels: model, buckets: Self.buckets, help: "Time to the first token")
                .record(.microseconds(Int64(ttft * 1000)))
        }
        registry.makeDurationHistogram(name: "runanywhere_generation_duration_seconds", labels: model, buckets: Self.buckets, help: "Whole generations")
            .record(.microseconds(Int64(result.latencyMs * 1000)))
    }

    /// Records a completed transcription.
    func record(_ transcription: TranscriptionMetadata) {
        let model = [("model", transcription.modelId)]
        registry.makeCounter(name: "runanywhere_transcriptions_total", labels: model, help: "Transcriptions finished").increment()
        registry.makeCounter(name: "runanywhere_transcribed_audio_seconds_total", labels: model, help: "Seconds of audio transcribed")
            .increment(by: transcription.audioLength)
        registry.makeDurationHistogram(name: "runanywhere_transcription_duration_seconds", labels: model, buckets: Self.buckets, help: "Whole transcriptions")
            .record(.microseconds(Int64(transcription.processingTime * 1_000_000)))
    }

    /// Records a completed synthesis.
    func record(_ synthesis: TTSSynthesisMetadata, audioDuration: Double) {
        let voice = [("voice", synthesis.voice)]
        registry.makeCounter(name: "runanywhere_syntheses_total", labels: voice, help: "Syntheses finished").increment()
        registry.makeCounter(name: "runanywhere_synthesized_audio_seconds_total", labels: voice, help: "Seconds of speech synthesized")
            .increment(by: audioDuration)
        registry.makeDurationHistogram(name: "runanywhere_synthesis_duration_seconds", labels: voice, buckets: Self.buckets, help: "Whole syntheses")
            .record(.microseconds(Int64(synthesis.processingTime * 1_000_000)))
    }

    /// The Prometheus text, after reading the loaded models' state.
    func scrape() async -> [UInt8] {
        let models = await runtime.loadedModels()
        registry.makeGauge(name: "runanywhere_models_loaded", help: "Language models loaded").set(Double(models.filter { $0.state == .loaded }.count))
        registry.makeGauge(name: "runanywhere_models_memory_bytes", help: "Estimated memory of the loaded language models")
            .set(Double(models.reduce(0) { $0 + $1.memoryBytes }))
        registry.makeGauge(name: "runanywhere_models_memory_budget_bytes", help: "Memory the loaded language models may take (0: no limit)")
            .set(Double(await runtime.modelMemoryBudget))
        for model in models {
            registry.makeGauge(name: "runanywhere_model_requests", labels: [("model", model.modelId)], help: "Requests generating or queued, per model")
                .set(Double(model.activeRequests))
        }
        return registry.emitToBuffer()
    }
}

/// Feeds every generation, transcription and synthesis the runtime publishes into the metrics,
/// until the server shuts down.
struct MetricsRecorder: Service {
    let runtime: RunAnywhereRuntime
    let metrics: ServerMetrics

    func run() async throws {
        for await event in runtime.events.subscribe().cancelOnGracefulShutdown() {
            switch event {
            case .generationCompleted(let result): metrics.record(result)
            case .transcriptionCompleted(let transcription): metrics.record(transcription)
            case .synthesisCompleted(let synthesis, let audioDuration): metrics.record(synthesis, audioDuration: audioDuration)
            default: break
            }
        }
    }
}
