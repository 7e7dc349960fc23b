import Hummingbird
import RunAnywhere

/// The policy read off a Hummingbird request, shared by `runanywhere serve` and the telemetry collector.
extension RequestOriginPolicy {
    /// Why `request` is refused, or nil. Two `Host` headers are refused as a foreign host:
    /// which of them a proxy or browser meant cannot be known.
    package func refusal(_ request: Request) -> Refusal? {
        func header(_ name: String) -> String? { request.headers.first { $0.name.canonicalName == name }?.value }
        if let secondHost = header("host") { return .host(secondHost) }
        return refusal(
            host: request.head.authority, origin: request.headers[.origin], fetchSite: header("sec-fetch-site"),
            fetchMode: header("sec-fetch-mode"))
    }
}
