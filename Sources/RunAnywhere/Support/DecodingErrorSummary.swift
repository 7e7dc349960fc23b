extension DecodingError {
    /// What is wrong with a JSON document, in a few words for a person (the path to the value
    /// and what was wrong there), without the decoder's type names and debug text.
    package var summary: String {
        switch self {
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "it is not JSON"
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            "at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            "\((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")) is missing"
        @unknown default: "it could not be read"
        }
    }
}
