import Foundation

/// Where a language model is in its lifecycle (spec `framework-adapters.md`).
public enum ModelLifecycleState: String, Sendable, Codable, CaseIterable {
    /// Not in memory.
    case notLoaded
    /// Being loaded.
    case loading
    /// Loaded and ready.
    case loaded
    /// Being unloaded.
    case unloading
    /// Loading failed.
    case failed
}

/// How long a language model stays loaded once no request uses it.
public enum KeepAlive: Sendable, Equatable {
    /// Until it is unloaded explicitly, or evicted to make room for another model.
    case forever
    /// This long after its last request ends; zero unloads it as soon as it is idle.
    case duration(Duration)

    /// Five minutes, as ollama keeps a model.
    public static let `default` = KeepAlive.duration(.seconds(300))

    /// The longest keep-alive kept as a duration, in seconds: 2^63 − 1 nanoseconds (about 292
    /// years), ollama's own "for ever". A longer one is ``forever``.
    package static let longestSeconds = Double(Int64.max) / 1e9

    /// ollama's `keep_alive` in seconds: negative keeps the model forever, 0 unloads it at once,
    /// and a finite value beyond `longestSeconds` (such as `1e300`) is clamped to ``forever``;
    /// nil for NaN or an infinity, which are not durations.
    package init?(seconds: Double) {
        guard seconds.isFinite else { return nil }
        guard seconds >= 0, seconds < Self.longestSeconds else {
            self = .forever
            return
        }
        // Below 2^63 ns, so at most about 9.2e12 ms: the conversion cannot trap.
        self = .duration(.milliseconds(Int64((seconds * 1000).rounded())))
    }

    /// ollama's `keep_alive` as text: a number of seconds, or a duration as Go's
    /// `time.ParseDuration` reads it, numbers each with its unit (`ns`, `us`, `ms`, `s`, `m`, `h`)
    /// after an optional sign: `30s`, `5m`, `1h30m`, `1.5h`, `-1` (clamped as
    /// ``init(seconds:)`` clamps); nil when it is neither, or not finite.
    package init?(parsing text: String) {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let value = Double(text) {
            guard let keepAlive = KeepAlive(seconds: value) else { return nil }
            self = keepAlive
            return
        }
        var rest = Substring(text)
        let sign: Double = rest.first == "-" ? -1 : 1
        if rest.first == "-" || rest.first == "+" { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        // Longer units first, so that `ms` is not read as minutes.
        let units: [(String, Double)] = [
            ("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("μs", 1e-6), ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600),
        ]
        var seconds = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { "0123456789.e+-".contains($0) }
            guard let value = Double(number), value.isFinite, value >= 0,
                let (unit, scale) = units.first(where: { rest.dropFirst(number.count).hasPrefix($0.0) })
            else { return nil }
            rest = rest.dropFirst(number.count + unit.count)
            // A finite value times a unit overflows to an infinity only far beyond longestSeconds.
            seconds += value * scale
        }
        self = KeepAlive(seconds: sign * seconds) ?? .forever
    }

    /// Seconds, or nil for ``forever``.
    package var seconds: Double? {
        guard case .duration(let duration) = self else { return nil }
        return duration.inSeconds
    }
}

/// A language model in the runtime's cache, as `runanywhere serve` lists it (`GET /api/models/loaded`; ollama's `/api/ps` shows it in ollama's shape).
public struct LoadedModelStatus: Sendable, Equatable, Codable {
    /// The model.
    public let modelId: String
    /// Loading, loaded, unloading, or failed (with ``error``).
    public let state: ModelLifecycleState
    /// Host memory the model is estimated to take (what the memory budget counts).
    public let memoryBytes: Int64
    /// GPU memory it is estimated to take (the part of it on a GPU; 0 on the CPU).
    public let deviceMemoryBytes: Int64
    /// Requests using it now; a model in use is never unloaded.
    public let activeRequests: Int
    /// Of those, requests the engine holds in its queue until a sequence is free.
    public let queuedRequests: Int
    /// How long it stays loaded once idle, in seconds; nil for ever.
    public let keepAliveSeconds: Double?
    /// When it will be unloaded if no request comes; nil while in use or kept for ever.
    public let expiresAt: Date?
    /// Why its last load failed.
    public let error: String?
}
