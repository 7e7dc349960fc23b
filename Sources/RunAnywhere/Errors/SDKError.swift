import Foundation

/// Every error the SDK throws: a code to match on, a category, and a message for people.
public struct SDKError: Error, LocalizedError, Sendable, CustomStringConvertible, Equatable, Codable {
    /// What went wrong, for matching in code.
    public let code: ErrorCode
    /// Which part of the SDK failed.
    public let category: ErrorCategory
    /// What went wrong, for people; names the thing involved and, where useful, what to do.
    public let message: String
    /// The argument or option at fault, by the SDK's name for it (`language`, `voice`, `text`),
    /// where one is: a server names its request's field from it.
    package private(set) var field: String?

    /// Creates an error.
    public init(_ code: ErrorCode, _ message: String, category: ErrorCategory = .general) {
        self.code = code
        self.category = category
        self.message = message
    }

    /// The same error, naming `field` as the argument or option at fault.
    package func naming(_ field: String) -> SDKError {
        var error = self
        error.field = field
        return error
    }

    /// The message with the option `option`, where it stands as a word, called `name` instead:
    /// the request's field or the command line's flag that set it (`max_tokens` or
    /// `--max-tokens` for the SDK's `maxTokens`).
    package func message(calling option: String, _ name: String) -> String {
        guard name != option, let word = try? Regex("\\b\(option)\\b") else { return message }
        return message.replacing(word, with: name)
    }

    /// An error in language-model loading or generation.
    package static func llm(_ code: ErrorCode, _ message: String) -> SDKError {
        SDKError(code, message, category: .llm)
    }

    /// An error reading, writing or validating model files.
    package static func fileManagement(_ code: ErrorCode, _ message: String) -> SDKError {
        SDKError(code, message, category: .fileManagement)
    }

    /// The error for a file that could not be written, `message` followed by why:
    /// ``ErrorCode/insufficientStorage`` when there was no room (a full disk, a quota, a
    /// file-size limit), else ``ErrorCode/fileWriteFailed``.
    package static func writeFailed(_ message: String, _ error: any Error) -> SDKError {
        if let error = error as? SDKError {
            return .fileManagement(
                error.code == .insufficientStorage ? .insufficientStorage : .fileWriteFailed, "\(message): \(error.message)")
        }
        if StorageFull.caused(error) {
            return .fileManagement(.insufficientStorage, "\(message): no space left (\(error.localizedDescription))")
        }
        return .fileManagement(.fileWriteFailed, "\(message): \(error.localizedDescription)")
    }

    /// The message.
    public var errorDescription: String? { message }

    /// `[CATEGORY] code`.
    public var failureReason: String? { "[\(category.rawValue.uppercased())] \(code.rawValue)" }

    /// `SDKError[category.code]: message`.
    public var description: String { "SDKError[\(category.rawValue).\(code.rawValue)]: \(message)" }

    /// What the user can do about it, for the codes where there is something to say.
    public var recoverySuggestion: String? {
        switch code {
        case .notInitialized: "Call RunAnywhere.initialize(...) first."
        case .modelNotFound: "List the known models with `runanywhere models list`."
        case .modelNotDownloaded: "Run scripts/setup (or `make run`) to install the default model, or import a GGUF file."
        case .frameworkNotAvailable: "Run scripts/setup to install the engines."
        case .insufficientMemory: "Close other programs or choose a smaller model."
        case .busy: "Try again in a moment, or serve with more --parallel slots or a longer --queue."
        case .modelInUse: "Unload the model, or try again when its requests have finished."
        case .engineCrashed: "Send the request again: the model is loaded again in a new engine process."
        case .insufficientStorage: "Free up disk space and try again."
        case .networkError: "Check the connection and run the download again; it resumes where it stopped."
        default: nil
        }
    }
}

/// What went wrong, for matching in code. Raw values are the case names.
public enum ErrorCode: String, Sendable, CaseIterable, Codable {
    /// The SDK was used before `RunAnywhere.initialize`.
    case notInitialized
    /// The SDK or a server was configured wrongly.
    case invalidConfiguration
    /// No model has that ID.
    case modelNotFound
    /// The model is known but its files are not on this machine.
    case modelNotDownloaded
    /// A model with that ID is already registered.
    case modelAlreadyExists
    /// The engine could not load the model.
    case modelLoadFailed
    /// The model cannot do what was asked (for example, embeddings from a chat model).
    case modelIncompatible
    /// A model file is damaged, truncated or not of its format.
    case invalidModelFormat
    /// The model registry or a model folder could not be read as written.
    case modelStorageCorrupted
    /// The engine failed while generating.
    case generationFailed
    /// The prompt does not fit the model's context.
    case contextTooLong
    /// The engine the model needs is not installed or cannot run here.
    case frameworkNotAvailable
    /// Not enough memory for the model or the request.
    case insufficientMemory
    /// A request or option is malformed or out of range.
    case invalidInput
    /// The input was empty.
    case emptyInput
    /// A file is not there.
    case fileNotFound
    /// A file could not be read.
    case fileReadFailed
    /// A file could not be written.
    case fileWriteFailed
    /// A network request failed.
    case networkError
    /// A download failed.
    case downloadFailed
    /// The backend refused the API key.
    case unauthorized
    /// Not enough disk space.
    case insufficientStorage
    /// A downloaded file's SHA-256 is not the one expected.
    case checksumMismatch
    /// The same operation is already running (for example the same download).
    case alreadyInProgress
    /// The model is loaded as the current model or is serving requests, so its files cannot be
    /// deleted now.
    case modelInUse
    /// Every generation slot is taken and the queue behind them is full; retry shortly.
    case busy
    /// The engine process serving the request died (a signal, an abort, the OOM killer); the
    /// next request for the model loads it again in a new process.
    case engineCrashed
}

/// Which part of the SDK an error comes from.
public enum ErrorCategory: String, Sendable, CaseIterable, Codable {
    /// Everything else.
    case general
    /// Generation.
    case llm
    /// Files and storage.
    case fileManagement
    /// The SDK's state and configuration.
    case runtime
}
