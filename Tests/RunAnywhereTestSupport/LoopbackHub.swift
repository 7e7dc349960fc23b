import Crypto
import Foundation
import RunAnywhere

/// Hugging Face's Hub as its API documents it, on loopback: the hub itself cannot be reached from
/// the machines the tests run on. `GET /api/models/OWNER/REPO?blobs=true` answers a
/// repository's listing, its name in any case (`id` as the hub spells it, `private`, `gated`,
/// `cardData.license`, and `siblings` with each file's `rfilename` and `size`, and for GGUF files
/// `lfs.sha256`); `GET
/// /OWNER/REPO/resolve/main/FILE` answers 302 to a second server on another host name and port
/// (`localhost`), standing for Hugging Face's CDN, which serves the bytes. A private or gated
/// repository's routes answer 401 without `Authorization: Bearer` ``token``.
///
/// Its repositories: `TestOrg/Tiny-GGUF` (Q4_K_M, Q8_0 and IQ4_XS files, a vision projector, a
/// Q2_K model split in two, a README), `TestOrg/NoDefault-GGUF` (F16 and Q8_0, no Q4_K_M),
/// `TestOrg/Private-GGUF` (private), `TestOrg/Gated-GGUF` (gated) and `TestOrg/WrongSum-GGUF`
/// (a listing whose sha256 is not its file's).
package struct LoopbackHub: Sendable {
    /// The token the private and gated repositories accept.
    package static let token = "hf_loopbacktoken"
    /// The Q4_K_M files' bytes: a small GGUF model.
    package static let q4 = GGUFWriter.tinyLlama().data()
    /// The other GGUF files' bytes: another small GGUF model.
    package static let other = GGUFWriter.tinyLlama(chatTemplate: nil).data()

    /// The hub (`http://127.0.0.1:PORT`).
    package let hub: TestHTTPServer
    /// The CDN (`http://localhost:PORT`).
    package let cdn: TestHTTPServer

    /// The hub's address, to use as the endpoint (`HF_ENDPOINT`).
    package var endpoint: URL { URL(string: "http://127.0.0.1:\(hub.port)")! }

    /// sha256 of `data`, in lowercase hex.
    package static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    private struct Repository {
        let id: String
        var isPrivate = false
        var gated = false
        /// Path, bytes, and the sha256 the listing gives when it is not the bytes' own.
        let files: [(path: String, data: Data, listedSHA: String?)]
    }

    /// Starts the CDN, then the hub.
    package static func start() async throws -> LoopbackHub {
        let split = Data(repeating: 7, count: 100)
        let repositories = [
            Repository(
                id: "TestOrg/Tiny-GGUF",
                files: [
                    (".gitattributes", Data("*.gguf filter=lfs\n".utf8), nil), ("README.md", Data("# Tiny\n".utf8), nil),
                    ("tiny-Q4_K_M.gguf", q4, nil), ("tiny-Q8_0.gguf", other, nil), ("tiny-IQ4_XS.gguf", other, nil),
                    ("mmproj-tiny-F16.gguf", other, nil),
                    ("Q2_K/tiny-Q2_K-00001-of-00002.gguf", split, nil), ("Q2_K/tiny-Q2_K-00002-of-00002.gguf", split, nil),
                ]),
            Repository(id: "TestOrg/NoDefault-GGUF", files: [("model-F16.gguf", other, nil), ("model-Q8_0.gguf", q4, nil)]),
            Repository(id: "TestOrg/Private-GGUF", isPrivate: true, files: [("private-Q4_K_M.gguf", q4, nil)]),
            Repository(id: "TestOrg/Gated-GGUF", gated: true, files: [("gated-Q4_K_M.gguf", q4, nil)]),
            Repository(id: "TestOrg/WrongSum-GGUF", files: [("wrong-Q4_K_M.gguf", q4, String(repeating: "0", count: 64))]),
        ]
        var blobs: [String: TestHTTPServer.Route] = [:]
        for repository in repositories {
            for file in repository.files { blobs["/blobs/\(repository.id)/\(file.path)"] = .file(file.data) }
        }
        let cdn = try await TestHTTPServer.start(routes: blobs)
        var routes: [String: TestHTTPServer.Route] = [:]
        for repository in repositories {
            let guarded: (TestHTTPServer.Route) -> TestHTTPServer.Route = { route in
                repository.isPrivate || repository.gated ? .authorized("Bearer \(token)", route) : route
            }
            // A gated repository's listing is public; a private one's is not.
            let listing = TestHTTPServer.Route.file(try listing(repository), etag: nil)
            // The hub finds a repository whatever the case of its name, and answers with its own spelling.
            for path in ["/api/models/\(repository.id)", "/api/models/\(repository.id.lowercased())"] {
                routes[path] = repository.isPrivate ? guarded(listing) : listing
            }
            for file in repository.files {
                routes["/\(repository.id)/resolve/main/\(file.path)"] = guarded(
                    .redirect("http://localhost:\(cdn.port)/blobs/\(repository.id)/\(file.path)"))
            }
        }
        return LoopbackHub(hub: try await TestHTTPServer.start(routes: routes), cdn: cdn)
    }

    /// Stops both servers.
    package func shutdown() async throws {
        try await hub.shutdown()
        try await cdn.shutdown()
    }

    /// The repository's listing, as `GET /api/models/{repo_id}?blobs=true` answers it.
    private static func listing(_ repository: Repository) throws -> Data {
        let siblings: [[String: Any]] = repository.files.map { file in
            var sibling: [String: Any] = ["rfilename": file.path, "blobId": String(sha256(file.data).prefix(40)), "size": file.data.count]
            if file.path.hasSuffix(".gguf") {
                sibling["lfs"] = ["sha256": file.listedSHA ?? sha256(file.data), "size": file.data.count, "pointerSize": 134]
            }
            return sibling
        }
        let object: [String: Any] = [
            "_id": "0123456789abcdef01234567", "id": repository.id, "modelId": repository.id, "private": repository.isPrivate,
            "gated": repository.gated ? "manual" as Any : false as Any, "sha": String(repeating: "a", count: 40), "downloads": 0,
            "tags": ["gguf"], "cardData": ["license": "mit"], "siblings": siblings,
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
