import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Why a call to the backend did not succeed.
enum BackendFailure: Error, Sendable, Equatable {
    /// No answer: the backend could not be reached or did not answer in time.
    case unreachable(String)
    /// The backend refused the API key (401 or 403).
    case unauthorized(String)
    /// The backend does not know the device id the batch names (404): it must register again.
    case unknownDevice
    /// Another status, or an answer that is not what the API says.
    case refused(status: Int, String)

    /// The failure as the SDK reports it.
    func error(_ configuration: BackendConfiguration) -> SDKError {
        let backend = "The \(configuration.environment.description) backend at \(configuration.target)"
        switch self {
        case .unreachable(let reason): return SDKError(.networkError, "\(backend) cannot be reached: \(reason); the analytics stay queued")
        case .unauthorized(let detail):
            return SDKError(
                .unauthorized,
                "\(backend) refused the API key (\(detail)); store the right one with `runanywhere env use \(configuration.environment.rawValue) --api-key-stdin`"
            )
        case .unknownDevice: return SDKError(.networkError, "\(backend) no longer knows this device; it registers again")
        case .refused(let status, let detail):
            return SDKError(.invalidConfiguration, "\(backend) answered HTTP \(status): \(detail); is the base URL a RunAnywhere backend?")
        }
    }
}

/// The SDK's two calls to its backend (``BackendAPI``), each with the API key as a bearer token
/// and a time limit.
struct BackendClient: Sendable {
    /// Connections are reused for the life of the process. One that cannot be made fails the call
    /// at once, for the SDK's own backoff to retry, rather than being retried by the client until
    /// the call's time limit.
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10), read: .seconds(30)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    let configuration: BackendConfiguration

    /// Registers the device; the backend's id for it.
    func register(_ registration: DeviceRegistration) async throws(BackendFailure) -> DeviceRegistrationResult {
        try await post(BackendAPI.registerDevicePath, registration, expecting: DeviceRegistrationResult.self)
    }

    /// Sends one batch; which events the backend acknowledged.
    func send(_ batch: AnalyticsBatch) async throws(BackendFailure) -> AnalyticsBatchResult {
        try await post(BackendAPI.analyticsEventsPath, batch, expecting: AnalyticsBatchResult.self)
    }

    private func post<Body: Encodable, Answer: Decodable>(_ path: String, _ body: Body, expecting: Answer.Type) async throws(BackendFailure)
        -> Answer
    {
        let status: Int
        let answer: ByteBuffer
        do {
            var request = HTTPClientRequest(url: configuration.url(path))
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            request.headers.add(name: "user-agent", value: "runanywhere-sdk/\(RunAnywhere.version)")
            request.headers.add(name: "authorization", value: "Bearer \(configuration.apiKey)")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
            let response = try await Self.http.execute(request, timeout: .nanoseconds(Int64(configuration.requestTimeout.inSeconds * 1e9)))
            status = Int(response.status.code)
            answer = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw .unreachable("\(error)")
        }
        let (message, field) = Self.error(in: answer)
        let detail = message ?? "HTTP \(status)"
        switch status {
        case 200..<300:
            guard let decoded = try? JSONDecoder().decode(Answer.self, from: Data(answer.readableBytesView)) else {
                throw .refused(status: status, "the answer is not a \(Answer.self)")
            }
            return decoded
        case 401, 403: throw .unauthorized("HTTP \(status): \(detail)")
        case 404 where field == "device_id": throw .unknownDevice
        case 408, 429, 500...: throw .unreachable("HTTP \(status): \(detail)")
        default: throw .refused(status: status, detail)
        }
    }

    /// The message and field of a JSON error answer (`{"error": {"message", "field"}}`), else the
    /// start of the body.
    private static func error(in body: ByteBuffer) -> (message: String?, field: String?) {
        struct ErrorBody: Decodable {
            struct Detail: Decodable {
                let message: String
                let field: String?
            }
            let error: Detail
        }
        if let decoded = try? JSONDecoder().decode(ErrorBody.self, from: Data(body.readableBytesView)) {
            return (decoded.error.message, decoded.error.field)
        }
        let text = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
        return (text.isEmpty ? nil : String(text.prefix(200)), nil)
    }
}
