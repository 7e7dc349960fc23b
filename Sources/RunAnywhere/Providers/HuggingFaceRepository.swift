import Foundation

/// What the Hugging Face Hub answers for `GET /api/models/{OWNER}/{REPO}?blobs=true`: the
/// repository's id, whether it is gated or private, its licence, and every file with its size
/// and (for files stored with LFS) its sha256.
struct HuggingFaceRepository: Decodable {
    /// One file of the repository.
    struct Sibling: Decodable {
        let rfilename: String
        let size: Int64?
        let lfs: LFS?
    }

    /// A file stored with Git LFS: its sha256 and size.
    struct LFS: Decodable {
        let sha256: String?
        let size: Int64?
    }

    /// The repository's id with the hub's spelling (`OWNER/REPO`).
    let id: String?
    /// Whether downloads need an accepted licence and a token (`"auto"` or `"manual"`; `false` when not).
    let gated: Bool
    /// Whether it is private (only its owner's tokens see it).
    let isPrivate: Bool
    /// Its files.
    let siblings: [Sibling]
    /// The licence its model card declares.
    let license: String?

    private enum CodingKeys: String, CodingKey { case id, gated, isPrivate = "private", siblings, cardData }
    private enum CardKeys: String, CodingKey { case license }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        // `gated` is false, or the kind of gate as a string.
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: .gated) {
            gated = flag
        } else {
            gated = (try? container.decodeIfPresent(String.self, forKey: .gated)) != nil
        }
        isPrivate = try container.decodeIfPresent(Bool.self, forKey: .isPrivate) ?? false
        siblings = try container.decodeIfPresent([Sibling].self, forKey: .siblings) ?? []
        // A model card's licence is a string; anything else there is no licence the SDK shows.
        let card = try? container.nestedContainer(keyedBy: CardKeys.self, forKey: .cardData)
        license = (try? card?.decodeIfPresent(String.self, forKey: .license)) ?? nil
    }

    /// The repository's id as the hub spells it, when that is the one `reference` asked for in
    /// another case (and a valid `OWNER/REPO`); else as the reference spells it.
    func spelling(of reference: HuggingFaceReference) -> String {
        guard let id, id.lowercased() == reference.repositoryID.lowercased(),
            id.split(separator: "/", omittingEmptySubsequences: false).allSatisfy({ HuggingFaceReference.isName(String($0)) })
        else {
            return reference.repositoryID
        }
        return id
    }

    /// Whether a token is needed to download its files.
    var requiresToken: Bool { gated || isPrivate }

    /// Its GGUF models.
    var ggufFiles: [HuggingFaceGGUFFile] {
        HuggingFaceGGUFFile.models(in: siblings.map { ($0.rfilename, $0.lfs?.size ?? $0.size, $0.lfs?.sha256?.lowercased()) })
    }
}
