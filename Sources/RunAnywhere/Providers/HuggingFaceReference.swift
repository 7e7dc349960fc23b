import Foundation

/// A Hugging Face model reference in ollama's form: `hf.co/OWNER/REPO` or
/// `huggingface.co/OWNER/REPO`, with an optional `:QUANT` (`:latest`, like none, picks the
/// default file).
struct HuggingFaceReference: Equatable {
    /// The prefixes a reference starts with.
    static let prefixes = ["hf.co/", "huggingface.co/"]

    let owner: String
    let repository: String
    /// The quantization asked for, as written; nil for the default.
    let quantization: String?

    /// Whether `text` starts like a Hugging Face reference (case-insensitive).
    static func claims(_ text: String) -> Bool {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        return prefixes.contains { lowered.hasPrefix($0) }
    }

    /// Parses `text`; throws ``ErrorCode/invalidInput`` saying what a reference looks like.
    init(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let invalid = SDKError(
            .invalidInput,
            "'\(trimmed)' is not a Hugging Face reference; use hf.co/OWNER/REPO or hf.co/OWNER/REPO:QUANT (e.g. hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M)"
        )
        guard let prefix = Self.prefixes.first(where: { trimmed.lowercased().hasPrefix($0) }) else { throw invalid }
        let rest = trimmed.dropFirst(prefix.count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw invalid }
        let tagged = parts[1].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let (owner, repository) = (String(parts[0]), String(tagged[0]))
        let tag = tagged.count == 2 ? String(tagged[1]) : nil
        guard [owner, repository].allSatisfy(Self.isName), tag.map(Self.isName) ?? true else { throw invalid }
        self.owner = owner
        self.repository = repository
        self.quantization = tag?.lowercased() == "latest" ? nil : tag
    }

    /// `OWNER/REPO`.
    var repositoryID: String { "\(owner)/\(repository)" }

    /// A name of a repository, an owner or a quantization: letters, digits, `.`, `_` and `-`, not
    /// starting with `.` or `-`, and no `..` (what Hugging Face allows, and safe in a folder name).
    static func isName(_ text: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        return !text.isEmpty && text.count <= 96 && text.allSatisfy(allowed.contains) && !text.hasPrefix(".") && !text.hasPrefix("-")
            && !text.contains("..")
    }

    /// The model id of the file chosen for it: `hf.co/OWNER/REPO:QUANT` (the quantization in
    /// upper case), or `hf.co/OWNER/REPO` for a file whose name carries none.
    static func modelID(repositoryID: String, quantization: String?) -> String {
        "hf.co/\(repositoryID)" + (quantization.map { ":\($0.uppercased())" } ?? "")
    }
}

/// The GGUF files of a repository, as models: split models (`-00001-of-00003.gguf`) as one
/// entry, vision projectors (`mmproj`) left out.
struct HuggingFaceGGUFFile: Equatable {
    /// The file's path in the repository (the first part of a split model).
    let path: String
    /// Bytes of all its parts, when the hub says.
    let size: Int64?
    /// The sha256 of the file (of the first part of a split model).
    let sha256: String?
    /// How many files it is split into.
    let parts: Int
    /// The quantization its name carries, in upper case.
    let quantization: String?

    /// The model files among a repository's files `(path, size, sha256)`, sorted by path.
    static func models(in files: [(path: String, size: Int64?, sha256: String?)]) -> [HuggingFaceGGUFFile] {
        var result: [HuggingFaceGGUFFile] = []
        var splits: [String: [(path: String, size: Int64?, sha256: String?, index: Int, count: Int)]] = [:]
        for file in files where file.path.lowercased().hasSuffix(".gguf") && !file.path.lowercased().contains("mmproj") {
            if let match = file.path.firstMatch(of: /^(.*)-(\d{5})-of-(\d{5})\.gguf$/.ignoresCase()), let index = Int(match.2),
                let count = Int(match.3)
            {
                splits["\(match.1)/\(count)", default: []].append((file.path, file.size, file.sha256, index, count))
            } else {
                result.append(
                    HuggingFaceGGUFFile(
                        path: file.path, size: file.size, sha256: file.sha256, parts: 1, quantization: quantization(in: file.path)))
            }
        }
        for parts in splits.values {
            guard let first = parts.min(by: { $0.index < $1.index }) else { continue }
            let sizes = parts.map(\.size)
            let total = sizes.contains(nil) ? nil : sizes.compactMap { $0 }.reduce(Int64(0)) { $0.saturatingAdd($1) }
            result.append(
                HuggingFaceGGUFFile(
                    path: first.path, size: total, sha256: first.sha256, parts: first.count, quantization: quantization(in: first.path)))
        }
        return result.sorted { $0.path < $1.path }
    }

    /// What a reference's `:TAG` names it by: its quantization, else its file name without
    /// `.gguf` (and a split model's part number); nil when that is no valid name.
    var tag: String? {
        if let quantization { return quantization }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let stem = name.replacing(/(-\d{5}-of-\d{5})?\.gguf$/.ignoresCase(), with: "")
        return HuggingFaceReference.isName(stem) ? stem : nil
    }

    /// Whether the file's path carries `quantization` (case-insensitive) as a whole name: between
    /// the path's start or a `-`, `.` or `/` and its end or one of those (so `Q4_K` is not `Q4_K_M`).
    func carries(_ quantization: String) -> Bool {
        let name = path.lowercased()
        let wanted = quantization.lowercased()
        var start = name.startIndex
        while let range = name.range(of: wanted, range: start..<name.endIndex) {
            let before = range.lowerBound == name.startIndex ? nil : name[name.index(before: range.lowerBound)]
            let after = range.upperBound == name.endIndex ? nil : name[range.upperBound]
            if Self.isBoundary(before), Self.isBoundary(after) { return true }
            start = name.index(after: range.lowerBound)
        }
        return false
    }

    private static func isBoundary(_ character: Character?) -> Bool {
        character.map { "-./".contains($0) } ?? true
    }

    /// The quantization a file name carries (`Q4_K_M`, `IQ4_XS`, `Q8_0`, `F16`, `BF16`, `TQ1_0`,
    /// `MXFP4`…), in upper case: the last of its `-`/`.`-separated names that is one.
    static func quantization(in path: String) -> String? {
        let stem = (path.split(separator: "/").last.map(String.init) ?? path).replacing(/\.gguf$/.ignoresCase(), with: "")
        let names = stem.split { $0 == "-" || $0 == "." }
        return names.last { $0.wholeMatch(of: /(?i)(I?Q\d+(_[A-Z0-9]+)*|B?F16|F32|TQ\d_\d|MXFP4(_MOE)?)/) != nil }.map { $0.uppercased() }
    }
}
