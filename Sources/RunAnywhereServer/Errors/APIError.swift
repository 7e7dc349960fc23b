import Foundation
import Hummingbird
import RunAnywhere

/// A failure of a request, as every route and middleware of the server throws it: its HTTP
/// status, a message for a person, and where they apply the request field at fault and a
/// machine-readable code. It is one type for the whole server; each API family renders it in its
/// own shape at its own routes (``ErrorShape``, ``ErrorShapeMiddleware``).
package struct APIError: HTTPResponseError, Sendable {
    /// The HTTP status.
    package let status: HTTPResponse.Status
    /// What went wrong, for a person.
    package let message: String
    /// The request field at fault, if one is.
    package let param: String?
    /// A machine-readable code, such as `model_not_found`.
    package let code: String?

    /// Creates an error.
    package init(_ status: HTTPResponse.Status, _ message: String, param: String? = nil, code: String? = nil) {
        self.status = status
        self.message = message
        self.param = param
        self.code = code
    }

    /// The same failure, naming `param` as the field at fault.
    package func naming(_ param: String) -> APIError { APIError(status, message, param: param, code: code) }

    /// Where no route renders it (it never reaches here from a route): OpenAI's shape.
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        try ErrorShape.openAI.response(self)
    }

    /// The failure any error a handler throws stands for. SDK errors keep their message (they say
    /// what to do); anything unexpected becomes a 500 that leaks no internals.
    package static func from(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as SDKError:
            return from(error)
        case let error as DecodingError:
            return APIError(.badRequest, "The request body is not valid: \(describe(error))", param: path(of: error))
        case let error as any HTTPResponseError:
            let message = (error as? HTTPError)?.body ?? error.status.reasonPhrase
            return APIError(error.status, message)
        default:
            return APIError(.internalServerError, "The server could not complete the request")
        }
    }

    private static func from(_ error: SDKError) -> APIError {
        switch error.code {
        case .modelNotFound: APIError(.notFound, error.message, param: "model", code: "model_not_found")
        case .modelNotDownloaded: APIError(.notFound, error.message, param: "model", code: "model_not_downloaded")
        case .modelAlreadyExists: APIError(.conflict, error.message, param: "id", code: "model_already_exists")
        case .alreadyInProgress: APIError(.conflict, error.message, code: "already_in_progress")
        case .modelInUse: APIError(.conflict, error.message, param: "model", code: "model_in_use")
        case .invalidInput, .emptyInput, .invalidConfiguration:
            APIError(.badRequest, error.message, param: error.field, code: error.code.rawValue)
        case .contextTooLong: APIError(.badRequest, error.message, param: error.field, code: "context_length_exceeded")
        case .modelIncompatible: APIError(.badRequest, error.message, param: "model", code: "model_incompatible")
        case .insufficientMemory, .frameworkNotAvailable, .busy, .engineCrashed:
            APIError(.serviceUnavailable, error.message, code: error.code.rawValue)
        // Nothing was kept (every writer removes what it began), and the disk is the server's to free.
        case .insufficientStorage: APIError(Self.insufficientStorage, redactingPaths(error.message), code: "insufficient_storage")
        default: APIError(.internalServerError, redactingPaths(error.message), code: error.code.rawValue)
        }
    }

    /// 507, which HTTPTypes does not name.
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")

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

    /// A Swift type as the kind of JSON value it decodes from.
    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is any FixedWidthInteger.Type: "a whole number"
        case is any BinaryFloatingPoint.Type: "a number"
        default:
            "\(type)".hasPrefix("Array<") ? "an array" : "\(type)".hasPrefix("Dictionary<") ? "an object" : "of another kind"
        }
    }

    /// What the decoder found instead (`, not a string`), from its description.
    private static func found(_ context: DecodingError.Context) -> String {
        guard let match = context.debugDescription.firstMatch(of: #/found (.+?)(?: value)? instead/#) else { return "" }
        // Foundation's words for JSON's kinds, in JSON's.
        let words = [
            "bool": "true or false", "a dictionary": "an object", "dictionary": "an object", "number": "a number", "string": "a string",
        ]
        let what = words[String(match.1)] ?? String(match.1)
        return ", not " + (what.hasPrefix("a ") || what.hasPrefix("an ") || ["null", "true or false"].contains(what) ? what : "a \(what)")
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "'\(key.stringValue)' is required"
        case .typeMismatch(let type, let context): "\(path(of: error) ?? "the body") must be \(kind(type))\(found(context))"
        case .valueNotFound(let type, _): "\(path(of: error) ?? "a value") must be \(kind(type)), not null"
        case .dataCorrupted(let context):
            context.codingPath.isEmpty ? "it is not JSON" : "\(path(of: error) ?? "a value"): \(context.debugDescription)"
        @unknown default: "it could not be read"
        }
    }
}

extension RunAnywhereRuntime {
    /// The model `id` names, of `category`, checked before a request's work starts: an unknown
    /// model, or one of another kind, is refused naming the request's `field`.
    nonisolated func model(id: String, category: ModelCategory, field: String) throws -> ModelInfo {
        do {
            return try model(id: id, category: category)
        } catch {
            throw APIError.from(error).naming(field)
        }
    }
}
