import Foundation
import Hummingbird

/// A page of items, as `GET /v1/responses/{id}/input_items` and the Conversations API's item
/// routes answer: `data`, `first_id`, `last_id` and `has_more`.
struct ItemList: Encodable, Sendable {
    var object = "list"
    let data: [ResponseItem]
    let firstID: String?
    let lastID: String?
    var hasMore = false

    enum CodingKeys: String, CodingKey { case object, data, firstID = "first_id", lastID = "last_id", hasMore = "has_more" }

    /// `data` whole, with nothing more after it.
    init(_ data: [ResponseItem], hasMore: Bool = false) {
        self.data = data
        firstID = data.first?.id
        lastID = data.last?.id
        self.hasMore = hasMore
    }

    /// The page `request`'s query asks of `items` (oldest first): `order` `desc` (the default,
    /// newest first) or `asc`, `limit` items (20 unless 1 to 100 is asked), after the item `after`
    /// (one not among them is a 400 naming `owner`, what holds them).
    init(paging items: [ResponseItem], for request: Request, owner: String) throws {
        let parameters = request.uri.queryParameters
        let order = parameters.get("order") ?? "desc"
        guard order == "asc" || order == "desc" else { throw APIError(.badRequest, "order must be asc or desc", param: "order") }
        let limit =
            try parameters.get("limit").map { text in
                guard let value = Int(text), (1...100).contains(value) else {
                    throw APIError(.badRequest, "limit must be a whole number from 1 to 100", param: "limit")
                }
                return value
            } ?? 20
        var ordered = order == "asc" ? items : items.reversed()
        if let after = parameters.get("after") {
            guard let index = ordered.firstIndex(where: { $0.id == after }) else {
                throw APIError(.badRequest, "after: \(owner) has no item '\(after)'", param: "after")
            }
            ordered = Array(ordered[(index + 1)...])
        }
        self.init(Array(ordered.prefix(limit)), hasMore: ordered.count > limit)
    }
}
