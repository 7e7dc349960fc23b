import Foundation

/// Where the SDK's staging or production backend is and how the SDK talks to it: the base URL
/// and API key of the environment, and how failed calls are retried. Development has none.
package struct BackendConfiguration: Sendable {
    /// Staging or production.
    package let environment: SDKEnvironment
    /// The backend's base URL; the API's paths (``BackendAPI``) are appended to it.
    package let baseURL: URL
    /// Sent as `Authorization: Bearer KEY` with every call.
    package let apiKey: String
    /// The delays between failed registrations or sends.
    package var retry = BackoffPolicy()
    /// The most events one request carries.
    package var batchSize = BackendAPI.maxBatchEvents
    /// The most events the outbox keeps for this backend; beyond it the oldest are dropped (and logged).
    package var outboxCapacity = 10_000
    /// How long one request may take, connecting included.
    package var requestTimeout: Duration = .seconds(15)

    /// The backend of `environment`, or nil for development, which makes no network call.
    package init?(environment: SDKEnvironment, baseURL: URL?, apiKey: String?) {
        guard environment.requiresAuthentication, let baseURL, let apiKey else { return nil }
        self.environment = environment
        self.baseURL = baseURL
        self.apiKey = apiKey.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The base URL without a trailing slash: the outbox's and the device file's key for this backend.
    package var target: String {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The URL of the API path `path` (which starts with `/`).
    func url(_ path: String) -> String { target + path }
}

/// Exponential backoff with jitter, bounded: the `n`th retry waits a random time between half
/// and all of `initial × 2ⁿ⁻¹`, and never more than `maximum`.
package struct BackoffPolicy: Sendable, Equatable {
    /// The longest wait before the first retry.
    package var initial: Duration
    /// The longest wait ever.
    package var maximum: Duration

    /// 1 second at first, doubling up to 5 minutes.
    package init(initial: Duration = .seconds(1), maximum: Duration = .seconds(300)) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    /// The wait before retry `attempt` (1 for the first retry).
    package func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let doublings = min(max(attempt - 1, 0), 32)
        let ceiling = min(maximum.inSeconds, initial.inSeconds * pow(2, Double(doublings)))
        return .seconds(Double.random(in: (ceiling / 2)...ceiling, using: &generator))
    }

    /// The wait before retry `attempt`, with the system's random numbers.
    package func delay(attempt: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(attempt: attempt, using: &generator)
    }
}
