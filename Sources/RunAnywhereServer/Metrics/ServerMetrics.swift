import Foundation
import Prometheus
import RunAnywhere
import ServiceLifecycle

/// The server's Prometheus metrics (`GET /metrics`): HTTP requests by route and status with
/// their latency; generations by model and stop reason with prompt and completion tokens, the
/// tokens speculative decoding guessed and kept, time to first token and duration, and transcriptions and syntheses by model with the seconds of
/// audio and of work, read from the runtime's event bus; and, at each scrape, the
/// language models loaded, their memory, the budget and the requests each is serving or queuing.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let runtime: RunAnywhereRuntime
    private let inFlight: Gauge
    /// What each API key used (``KeyUsage``).
    let usage: KeyUsage
    /// The runtime's event bus observer that counts each key's usage.
    private let observer: Int

    /// Latency buckets from 5 ms to 2 minutes.
    private static let buckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120),
    ]

    /// Metrics of `runtime`'s work; `sharesUsage` keeps the keys' usage for the replicas' database too.
    init(runtime: RunAnywhereRuntime, sharesUsage: Bool = false) {
        self.runtime = runtime
        let usage = KeyUsage(shared: sharesUsage)
        self.usage = usage
        observer = runtime.events.observe { [usage, registry] event in
            guard let key = RequestAccount.key else { return }
            Self.count(event, of: key, in: usage, registry)
        }
        inFlight = registry.makeGauge(descriptor: .named("runanywhere_http_requests_in_flight", help: "HTTP requests being answered"))
    }

    /// Counts a request that starts; call ``finished(route:method:status:after:)`` when its response head is ready.
    func started() { inFlight.increment() }

    /// Counts an answered request and its time to the response head.
    func finished(route: String, method: String, status: Int, after duration: Duration) {
        inFlight.decrement()
        let labels = [("route", route), ("method", method), ("status", "\(status)")]
        registry.makeCounter(descriptor: .named("runanywhere_http_requests_total", help: "HTTP requests answered"), labels: labels)
            .increment()
        registry.makeDurationHistogram(
            descriptor: .named(
                "runanywhere_http_request_duration_seconds", help: "Time to the response head (streams keep going after it)"),
            labels: [("route", route)], buckets: Self.buckets
        ).record(duration)
    }

    /// Stops counting keys' usage: the server has stopped.
    func stopCountingUsage() { runtime.events.stopObserving(observer) }

    /// Counts what `event`, published by the work of a request made with the key named `key`,
    /// used: tokens, and seconds of audio heard or spoken.
    private static func count(_ event: SDKEvent, of key: String, in usage: KeyUsage, _ registry: PrometheusCollectorRegistry) {
        let labels = [("key", key)]
        switch event {
        case .generationCompleted(let result):
            usage.count(key) {
                $0.promptTokens += result.inputTokens
                $0.completionTokens += result.tokensUsed
            }
            registry.makeCounter(
                descriptor: .named("runanywhere_api_key_prompt_tokens_total", help: "Prompt tokens of each API key's requests"),
                labels: labels
            )
            .increment(by: Int64(result.inputTokens))
            registry.makeCounter(
                descriptor: .named("runanywhere_api_key_completion_tokens_total", help: "Tokens generated for each API key's requests"),
                labels: labels
            ).increment(by: Int64(result.tokensUsed))
        case .transcriptionCompleted(let transcription):
            usage.count(key) { $0.audioSecondsIn += transcription.audioLength }
            registry.makeCounter(
                descriptor: .named(
                    "runanywhere_api_key_audio_seconds_total",
                    help: "Seconds of audio each API key's requests transcribed (in) or spoke (out)"),
                labels: labels + [("direction", "in")]
            ).increment(by: transcription.audioLength)
        case .synthesisCompleted(_, let seconds):
            usage.count(key) { $0.audioSecondsOut += seconds }
            registry.makeCounter(
                descriptor: .named(
                    "runanywhere_api_key_audio_seconds_total",
                    help: "Seconds of audio each API key's requests transcribed (in) or spoke (out)"),
                labels: labels + [("direction", "out")]
            ).increment(by: seconds)
        default: break
        }
    }

    /// Counts a request let through with the key named `key`.
    func keyUsed(_ key: String) {
        usage.count(key) { $0.requests += 1 }
        registry.makeCounter(
            descriptor: .named("runanywhere_api_key_requests_total", help: "Requests made with each API key"), labels: [("key", key)]
        )
        .increment()
    }

    /// Counts a request refused because the key named `key` spent its rate limit.
    func keyLimited(_ key: String) {
        usage.count(key) { $0.rateLimited += 1 }
        registry.makeCounter(
            descriptor: .named("runanywhere_api_key_rate_limited_total", help: "Requests refused for each API key's rate limit"),
            labels: [("key", key)]
        ).increment()
    }

    /// Records a completed generation.
    func record(_ result: LLMGenerationResult) {
        let model = [("model", result.modelUsed)]
        let ended = model + [("backend", result.backend ?? "cpu"), ("stop_reason", result.stopReason.rawValue)]
        registry.makeCounter(
            descriptor: .named("runanywhere_generations_total", help: "Generations ended, by where the model ran"), labels: ended
        ).increment()
        registry.makeCounter(descriptor: .named("runanywhere_prompt_tokens_total", help: "Prompt tokens read"), labels: model).increment(
            by: Int64(result.inputTokens))
        registry.makeCounter(
            descriptor: .named("runanywhere_cached_prompt_tokens_total", help: "Prompt tokens reused from the KV cache"), labels: model
        ).increment(by: Int64(result.cachedInputTokens))
        registry.makeCounter(descriptor: .named("runanywhere_completion_tokens_total", help: "Tokens generated"), labels: model).increment(
            by: Int64(result.tokensUsed))
        if let drafted = result.draftTokens {
            registry.makeCounter(
                descriptor: .named("runanywhere_draft_tokens_total", help: "Tokens speculative decoding guessed"), labels: model
            ).increment(by: Int64(drafted))
            registry.makeCounter(
                descriptor: .named("runanywhere_draft_tokens_accepted_total", help: "Guessed tokens the model kept"), labels: model
            ).increment(by: Int64(result.acceptedDraftTokens ?? 0))
        }
        if let ttft = result.timeToFirstTokenMs {
            registry.makeDurationHistogram(
                descriptor: .named("runanywhere_time_to_first_token_seconds", help: "Time to the first token"), labels: model,
                buckets: Self.buckets
            )
            .record(.microseconds(Int64(ttft * 1000)))
        }
        registry.makeDurationHistogram(
            descriptor: .named("runanywhere_generation_duration_seconds", help: "Whole generations"), labels: model, buckets: Self.buckets
        )
        .record(.microseconds(Int64(result.latencyMs * 1000)))
    }

    /// Records a completed transcription.
    func record(_ transcription: TranscriptionMetadata) {
        let model = [("model", transcription.modelId)]
        registry.makeCounter(descriptor: .named("runanywhere_transcriptions_total", help: "Transcriptions finished"), labels: model)
            .increment()
        registry.makeCounter(
            descriptor: .named("runanywhere_transcribed_audio_seconds_total", help: "Seconds of audio transcribed"), labels: model
        )
        .increment(by: transcription.audioLength)
        registry.makeDurationHistogram(
            descriptor: .named("runanywhere_transcription_duration_seconds", help: "Whole transcriptions"), labels: model,
            buckets: Self.buckets
        )
        .record(.microseconds(Int64(transcription.processingTime * 1_000_000)))
    }

    /// Records a completed synthesis.
    func record(_ synthesis: TTSSynthesisMetadata, audioDuration: Double) {
        let voice = [("voice", synthesis.voice)]
        registry.makeCounter(descriptor: .named("runanywhere_syntheses_total", help: "Syntheses finished"), labels: voice).increment()
        registry.makeCounter(
            descriptor: .named("runanywhere_synthesized_audio_seconds_total", help: "Seconds of speech synthesized"), labels: voice
        )
        .increment(by: audioDuration)
        registry.makeDurationHistogram(
            descriptor: .named("runanywhere_synthesis_duration_seconds", help: "Whole syntheses"), labels: voice, buckets: Self.buckets
        )
        .record(.microseconds(Int64(synthesis.processingTime * 1_000_000)))
    }

    /// The Prometheus text, after reading the loaded models' state.
    func scrape() async -> [UInt8] {
        let models = await runtime.loadedModels()
        registry.makeGauge(descriptor: .named("runanywhere_models_loaded", help: "Language models loaded")).set(
            Double(models.filter { $0.state == .loaded }.count))
        registry.makeGauge(descriptor: .named("runanywhere_models_memory_bytes", help: "Estimated memory of the loaded language models"))
            .set(Double(models.reduce(0) { $0 + $1.memoryBytes }))
        registry.makeGauge(
            descriptor: .named("runanywhere_models_device_memory_bytes", help: "Estimated GPU memory of the loaded language models")
        )
        .set(Double(models.reduce(0) { $0 + $1.deviceMemoryBytes }))
        registry.makeGauge(
            descriptor: .named("runanywhere_models_memory_budget_bytes", help: "Memory the loaded language models may take (0: no limit)")
        )
        .set(Double(await runtime.modelMemoryBudget))
        for model in models {
            registry.makeGauge(
                descriptor: .named("runanywhere_model_requests", help: "Requests generating or queued, per model"),
                labels: [("model", model.modelId)]
            )
            .set(Double(model.activeRequests))
            registry.makeGauge(
                descriptor: .named("runanywhere_queue_depth", help: "Requests waiting for a free sequence, per model"),
                labels: [("model", model.modelId)]
            )
            .set(Double(model.queuedRequests))
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

extension MetricNameDescriptor {
    /// A metric whose whole name is `name` (its unit already in it), described by `help`.
    fileprivate static func named(_ name: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
