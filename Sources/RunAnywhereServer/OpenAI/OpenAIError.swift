import Foundation
import Hummingbird
import RunAnywhere

/// An error as OpenAI's API reports it: `{"error": {"message", "type", "param", "code"}}` with
/// the matching HTTP status. Every failure the server answers with has this shape.
public struct OpenAIError: HTTPResponseError, Encodable, Sendable {
    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// What went wrong, for a person.
    public let message: String
    /// OpenAI's error class, such as `invalid_request_error`.
    public let type: String
    /// The request field at fault, if one is.
    public let param: String?
    /// A machine-readable code, such as `model_not_found`.
    public let code: String?

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, _ message: String, type: String? = nil, param: String? = nil, code: String? = nil) {
        self.status = status
        self.message = message
        self.type = type ?? Self.type(for: status)
        self.param = param
        self.code = code
    }

    private enum CodingKeys: String, CodingKey { case message, type, param, code }
    /// The JSON body it is sent as: `{"error": {…}}`.
    struct Envelope: Encodable { let error: OpenAIError }
    var envelope: Envelope { Envelope(error: self) }

    /// The response: the JSON envelope with the error's status.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if status == .serviceUnavailable || status == .tooManyRequests { headers[.retryAfter] = "1" }
        let body = try JSONEncoder.server.encode(envelope)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    private static func type(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 401: "authentication_error"
        case 403: "permission_error"
        case 404: "not_found_error"
        case 429, 503: "rate_limit_error"
        case 400..<500: "invalid_request_error"
        default: "server_error"
        }
    }

    /// The OpenAI error for any error a handler throws. SDK errors keep their message (they say
    /// what to do); anything unexpected becomes a 500 that leaks no internals.
    package static func from(_ error: any Error) -> OpenAIError {
        switch error {
        case let error as OpenAIError:
            return error
        case let error as SDKError:
            return from(error)
        case let error as DecodingError:
            return OpenAIError(.badRequest, "The request body is not valid: \(describe(error))", param: path(of: error))
        case let error as any HTTPResponseError:
            let message = (error as? HTTPError)?.body ?? error.status.reasonPhrase
            return OpenAIError(error.status, message)
        default:
            return OpenAIError(.internalServerError, "The server could not complete the request")
        }
    }

    private static func from(_ error: SDKError) -> OpenAIError {
        switch error.code {
        case .modelNotFound: OpenAIError(.notFound, error.message, param: "model", code: "model_not_found")
        case .modelNotDownloaded: OpenAIError(.notFound, error.message, param: "model", code: "model_not_downloaded")
        case .modelAlreadyExists: OpenAIError(.conflict, error.message, param: "id", code: "model_already_exists")
        case .invalidInput, .emptyInput, .invalidConfiguration: OpenAIError(.badRequest, error.message, code: error.code.rawValue)
        case .contextTooLong: OpenAIError(.badRequest, error.message, code: "context_length_exceeded")
        case .modelIncompatible: OpenAIError(.badRequest, error.message, param: "model", code: "model_incompatible")
        case .insufficientMemory, .frameworkNotAvailable, .busy, .engineCrashed:
            OpenAIError(.serviceUnavailable, error.message, code: error.code.rawValue)
        default: OpenAIError(.internalServerError, redactingPaths(error.message), code: error.code.rawValue)
        }
    }

    /// `message` with every absolute file path cut to its last component: a 500 tells the client
    /// what failed, never where the server keeps its files (the full message is in the log).
    static func redactingPaths(_ message: String) -> String {
        message.replacing(/(^|[\s'"`(\[=])(\/[^\s'"`,;:()\[\]]+)/) { match in
            let last = match.output.2.split(separator: "/").last.map(String.init) ?? ""
            return match.output.1 + "…/" + last
        }
    }

    private static func path(of error: DecodingError) -> String? {
        let path: [any CodingKey] =
            switch error {
            case .keyNotFound(let key, let context): context.codingPath + [key]
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): context.codingPath
            @unknown default: []
            }
        return path.isEmpty ? nil : path.map { $0.intValue.map { "\($0)" } ?? $0.stringValue }.joined(separator: ".")
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "'\(key.stringValue)' is required"
        case .typeMismatch(let type, let context): "\(path(of: error) ?? "the body") should be \(type): \(context.debugDescription)"
        case .valueNotFound(_, let context): "\(path(of: error) ?? "a value") is missing: \(context.debugDescription)"
        case .dataCorrupted(let context):
            context.codingPath.isEmpty ? "it is not JSON" : "\(path(of: error) ?? "a value"): \(context.debugDescription)"
        @unknown default: "it could not be read"
        }
    }
}
