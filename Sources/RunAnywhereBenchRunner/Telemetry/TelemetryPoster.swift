import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// How a POST of the payload ended.
package enum TelemetryPostOutcome: Sendable, Equatable {
    /// The endpoint answered with a 2xx status.
    case accepted(status: Int)
    /// The endpoint answered with another status; `detail` is the start of its body.
    case refused(status: Int, detail: String)
    /// No answer: the endpoint could not be reached or did not answer in time.
    case failed(reason: String)

    /// One line for the log.
    package var description: String {
        switch self {
        case .accepted(let status): "accepted (HTTP \(status))"
        case .refused(let status, let detail): "refused (HTTP \(status)\(detail.isEmpty ? "" : ": \(detail)"))"
        case .failed(let reason): "not sent: \(reason)"
        }
    }
}

/// Sends payloads to a telemetry endpoint: one POST with a short time limit and no retry. It
/// never throws; what happened is the outcome, for the run's log.
package struct TelemetryPoster: Sendable {
    /// How long a POST may take, connecting included.
    package var timeout: TimeAmount

    /// A poster giving up after `timeout` (3 seconds by default).
    package init(timeout: TimeAmount = .seconds(3)) {
        self.timeout = timeout
    }

    /// POSTs `payload` as JSON to `url`, with `apiKey` as a bearer token when given.
    package func post(_ payload: TelemetryPayload, to url: String, apiKey: String? = nil) async -> TelemetryPostOutcome {
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            request.headers.add(name: "user-agent", value: "runanywhere-benchrunner")
            if let apiKey { request.headers.add(name: "authorization", value: "Bearer \(apiKey)") }
            request.body = .bytes(ByteBuffer(bytes: try payload.encoded()))
            let response = try await HTTPClient.shared.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 4096)
            let status = Int(response.status.code)
            if (200..<300).contains(status) { return .accepted(status: status) }
            let detail = String(decoding: body.readableBytesView, as: UTF8.self)
            return .refused(status: status, detail: String(detail.prefix(200)).trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            return .failed(reason: "\(error)")
        }
    }
}
