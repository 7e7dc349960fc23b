import AsyncHTTPClient
import Foundation
import NIOCore

/// The Hugging Face Hub's GGUF models, by ollama's references: `hf.co/OWNER/REPO:QUANT` (or
/// `huggingface.co/…`) names the repository's GGUF file whose name carries the quantization
/// (case-insensitive); without one, `Q4_K_M` when the repository has it, else its first GGUF
/// file. The repository's files, sizes and sha256 come from the Hub API
/// (`GET {endpoint}/api/models/{OWNER}/{REPO}?blobs=true`), and the model downloads from
/// `{endpoint}/{OWNER}/{REPO}/resolve/main/{file}`, its sha256 checked.
///
/// The token (`HF_TOKEN`, else `HUGGING_FACE_HUB_TOKEN`) goes to the hub's own hosts only: the
/// endpoint (`HF_ENDPOINT`, as huggingface_hub reads it; https://huggingface.co by default),
/// huggingface.co, hf.co and their subdomains. A redirect to any other origin, such as a CDN,
/// is followed without it.
public struct HuggingFaceProvider: ModelProvider {
    /// "Hugging Face".
    public let name = "Hugging Face"
    /// Gated and private repositories need a token.
    public let requiresToken = true
    /// The hub's address.
    public let endpoint: URL
    private let token: String?
    /// Why `HF_ENDPOINT` cannot be used, when it cannot.
    private let endpointProblem: String?

    /// The provider for `endpoint` (else `HF_ENDPOINT`, else https://huggingface.co) with
    /// `token` (else `HF_TOKEN`, else `HUGGING_FACE_HUB_TOKEN`; none when empty).
    public init(endpoint: URL? = nil, token: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let standard = URL(string: "https://huggingface.co")!
        var problem: String?
        var chosen = endpoint ?? standard
        if endpoint == nil, let setting = environment["HF_ENDPOINT"], !setting.isEmpty {
            let trimmed = setting.hasSuffix("/") ? String(setting.dropLast()) : setting
            if let url = URL(string: trimmed), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil {
                chosen = url
            } else {
                problem = "HF_ENDPOINT '\(setting)' is not an http or https address"
            }
        }
        self.endpoint = chosen
        self.endpointProblem = problem
        self.token = [token, environment["HF_TOKEN"], environment["HUGGING_FACE_HUB_TOKEN"]].compactMap { $0 }.first { !$0.isEmpty }
    }

    /// Whether a token is configured.
    public var hasToken: Bool { token != nil }

    /// References starting with `hf.co/` or `huggingface.co/`.
    public func handles(_ reference: String) -> Bool { HuggingFaceReference.claims(reference) }

    /// The GGUF models of the repository `query` names (`hf.co/OWNER/REPO`; with `:QUANT`, those
    /// whose name carries it), each with the reference that registers it.
    public func search(_ query: String) async throws -> [ProviderModel] {
        let reference = try HuggingFaceReference(query)
        let repository = try await fetch(reference)
        let id = repository.spelling(of: reference)
        return repository.ggufFiles.filter { file in reference.quantization.map(file.carries) ?? true }.map { file in
            ProviderModel(
                reference: HuggingFaceReference.modelID(repositoryID: id, quantization: file.tag), provider: name, file: file.path,
                quantization: file.quantization, sizeBytes: file.size, sha256: file.sha256, parts: file.parts,
                requiresToken: repository.requiresToken
            )
        }
    }

    /// The GGUF language model `reference` names, with its size, download URL and sha256; its id
    /// is `hf.co/OWNER/REPO:QUANT` with the hub's spelling of the repository. A repository that
    /// needs a token when none is configured, a quantization it does not have, and a model split
    /// into several files are errors that say so.
    public func resolve(_ reference: String, modelsDirectory: URL) async throws -> ModelInfo {
        let parsed = try HuggingFaceReference(reference)
        let repository = try await fetch(parsed)
        let id = repository.spelling(of: parsed)
        if repository.requiresToken, token == nil {
            throw SDKError(
                .unauthorized,
                "hf.co/\(id) is \(repository.isPrivate ? "private" : "gated"): a Hugging Face token is needed to download it. \(Self.tokenHelp(base, id))"
            )
        }
        let files = repository.ggufFiles
        guard !files.isEmpty else { throw SDKError(.modelNotFound, "hf.co/\(id) has no GGUF file") }
        let chosen: HuggingFaceGGUFFile
        if let quantization = parsed.quantization {
            guard let match = files.first(where: { $0.carries(quantization) }) else {
                throw SDKError(.modelNotFound, "hf.co/\(id) has no GGUF file for \(quantization); it has \(Self.tags(files))")
            }
            chosen = match
        } else {
            let whole = files.filter { $0.parts == 1 }
            chosen = whole.first { $0.carries("Q4_K_M") } ?? whole.first ?? files[0]
        }
        guard chosen.parts == 1 else {
            throw SDKError(
                .modelIncompatible,
                "hf.co/\(id)'s \(chosen.path) is one of \(chosen.parts) files: models split into several GGUF files are not supported; choose a quantization in one file (\(Self.tags(files.filter { $0.parts == 1 }))), or merge the parts with llama.cpp's `llama-gguf-split --merge` and import the result"
            )
        }
        let modelID = HuggingFaceReference.modelID(repositoryID: id, quantization: parsed.quantization ?? chosen.tag)
        let fileName = chosen.path.split(separator: "/").last.map(String.init) ?? chosen.path
        let path = chosen.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? chosen.path
        return ModelInfo(
            id: modelID, name: "\(id.split(separator: "/").last.map(String.init) ?? id) \(chosen.quantization ?? fileName)",
            category: .language,
            format: .gguf, framework: .llamaCpp, downloadURL: URL(string: "\(base)/\(id)/resolve/main/\(path)"),
            localPath: modelsDirectory.appendingPathComponent(modelID).appendingPathComponent(fileName), artifactType: .singleFile,
            downloadSize: chosen.size, description: "\(chosen.path) of \(id) on Hugging Face", source: .local, sha256: chosen.sha256,
            license: repository.license
        )
    }

    /// `Authorization: Bearer <token>` for the hub's hosts (the endpoint's origin, its
    /// subdomains, and huggingface.co, hf.co and theirs); nothing for any other host, or
    /// without a token.
    public func authenticationHeaders(for url: URL) -> [String: String] {
        guard let token, isHubHost(url) else { return [:] }
        return ["Authorization": "Bearer \(token)"]
    }

    private func isHubHost(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host?.lowercased(), !host.isEmpty,
            let endpointHost = endpoint.host?.lowercased()
        else { return false }
        if host == endpointHost { return Self.port(of: url) == Self.port(of: endpoint) }
        return ["huggingface.co", "hf.co", endpointHost].contains { host == $0 || host.hasSuffix(".\($0)") }
    }

    private static func port(of url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    /// The endpoint without a trailing slash.
    private var base: String {
        let text = endpoint.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// The repository's files, as the Hub API lists them.
    private func fetch(_ reference: HuggingFaceReference) async throws -> HuggingFaceRepository {
        if let endpointProblem { throw SDKError(.invalidConfiguration, endpointProblem) }
        let address = "\(base)/api/models/\(reference.repositoryID)?blobs=true"
        var request = HTTPClientRequest(url: address)
        request.headers.add(name: "User-Agent", value: ModelDownloader.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in URL(string: address).map(authenticationHeaders(for:)) ?? [String: String]() {
            request.headers.add(name: name, value: value)
        }
        let body: Data
        let status: Int
        do {
            let response = try await HTTPTransfer.client.execute(request, timeout: .seconds(60))
            status = Int(response.status.code)
            body = Data(try await response.body.collect(upTo: 64 << 20).readableBytesView)
        } catch {
            throw SDKError(.networkError, "Cannot list hf.co/\(reference.repositoryID) at \(base): \(error)")
        }
        switch status {
        case 200:
            do {
                return try JSONDecoder().decode(HuggingFaceRepository.self, from: body)
            } catch {
                throw SDKError(
                    .networkError,
                    "\(base) answered for hf.co/\(reference.repositoryID) with something other than the Hub API's repository listing")
            }
        case 401, 403:
            let why =
                token == nil
                ? "the repository is private or gated (or does not exist), so a Hugging Face token is needed."
                : "the token configured (HF_TOKEN) does not give access to it."
            throw SDKError(
                .unauthorized,
                "Hugging Face refused hf.co/\(reference.repositoryID) (HTTP \(status)): \(why) \(Self.tokenHelp(base, reference.repositoryID))"
            )
        case 404:
            throw SDKError(.modelNotFound, "There is no repository hf.co/\(reference.repositoryID) on Hugging Face (\(base))")
        default:
            throw SDKError(.networkError, "Hugging Face answered HTTP \(status) for hf.co/\(reference.repositoryID); try again later")
        }
    }

    /// What to do about a token for repository `id`.
    private static func tokenHelp(_ base: String, _ id: String) -> String {
        "Accept the model's terms at \(base)/\(id) if it is gated, create a read token at https://huggingface.co/settings/tokens, and set HF_TOKEN to it"
    }

    /// The tags of `files`, for an error message.
    private static func tags(_ files: [HuggingFaceGGUFFile]) -> String {
        let tags = files.compactMap { $0.tag }
        return tags.isEmpty ? "no file a reference can name" : tags.joined(separator: ", ")
    }
}
