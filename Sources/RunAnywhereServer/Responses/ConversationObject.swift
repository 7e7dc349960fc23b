import Foundation

/// A `conversation` object of the Conversations API: its id (`conv_…`), when it was made, and its
/// `metadata`.
struct ConversationObject: Codable, Sendable {
    let id: String
    var object = "conversation"
    let createdAt: Int
    let metadata: [String: String]

    enum CodingKeys: String, CodingKey { case id, object, createdAt = "created_at", metadata }

    init(id: String, createdAt: Int, metadata: [String: String]) {
        self.id = id
        self.createdAt = createdAt
        self.metadata = metadata
    }

    /// `metadata` as OpenAI takes it, or a 400 that says what is wrong: at most 16 pairs, each
    /// key at most 64 characters and each value at most 512 (Unicode scalars, as JSON Schema's
    /// `maxLength` counts them).
    static func checked(_ metadata: [String: String]?) throws -> [String: String] {
        guard let metadata else { return [:] }
        guard metadata.count <= 16 else { throw APIError(.badRequest, "metadata holds at most 16 pairs", param: "metadata") }
        if let key = metadata.keys.first(where: { $0.unicodeScalars.count > 64 }) {
            throw APIError(
                .badRequest, "metadata: the key '\(String(key.unicodeScalars.prefix(64)))…' is longer than 64 characters", param: "metadata"
            )
        }
        if let key = metadata.first(where: { $0.value.unicodeScalars.count > 512 })?.key {
            throw APIError(.badRequest, "metadata: the value of '\(key)' is longer than 512 characters", param: "metadata")
        }
        return metadata
    }
}

/// `DELETE /v1/conversations/{id}`'s answer.
struct ConversationDeleted: Encodable, Sendable {
    let id: String
    var object = "conversation.deleted"
    var deleted = true
}

/// A response's `conversation`, in a request (an id, or `{"id"}`) and in the response object (`{"id"}`).
struct ConversationReference: Codable, Sendable, Equatable {
    let id: String

    init(id: String) {
        self.id = id
    }

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if let id = try single.decodeIfOfType(String.self) {
            self.id = id
            return
        }
        struct Object: Decodable { let id: String }
        guard let object = try single.decodeIfOfType(Object.self) else {
            throw APIError(.badRequest, "conversation must be a conversation's id or {\"id\": …}", param: "conversation")
        }
        id = object.id
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
    }

    private enum CodingKeys: String, CodingKey { case id }
}
