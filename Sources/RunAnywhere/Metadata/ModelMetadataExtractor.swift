import Foundation
import Synchronization

/// Reads what a model file of one format says about itself (``ModelMetadata``) from its header,
/// without loading its weights. The SDK has extractors for GGUF, safetensors and ONNX; an app adds
/// one for another format with ``RunAnywhere/registerMetadataExtractor(_:)``.
public protocol ModelMetadataExtractor: Sendable {
    /// The format it reads.
    var format: ModelFormat { get }
    /// The file name extensions of the format, lowercased, without the dot (`onnx`).
    var fileExtensions: [String] { get }
    /// Whether a file whose first bytes (up to 64) are `head` is in this format.
    func recognizes(head: [UInt8]) -> Bool
    /// Reads the metadata of the file at `url`. A file that is missing throws
    /// ``ErrorCode/fileNotFound``; one that is not whole and valid in this format (truncated,
    /// foreign, damaged) throws ``ErrorCode/invalidModelFormat`` saying what is wrong.
    func extract(from url: URL) throws -> ModelMetadata
}

extension ModelMetadataExtractor {
    /// Default: the file's first bytes are what ``ModelFormat/sniff(_:)`` calls this format.
    public func recognizes(head: [UInt8]) -> Bool { ModelFormat.sniff(head) == format }

    /// Default: the format's usual extension, its raw value (`gguf`, `onnx`, `safetensors`).
    public var fileExtensions: [String] { [format.rawValue] }
}

/// The metadata extractors the SDK knows, and the choice of one for a file: the extractor that
/// recognizes the file's first bytes, else the one for its name's extension. Extractors an app
/// registers are asked before the built-in ones (GGUF, safetensors, ONNX).
package final class ModelMetadataExtractorRegistry: Sendable {
    private let extractors: Mutex<[any ModelMetadataExtractor]>

    /// A registry holding the built-in extractors: GGUF, safetensors and ONNX.
    package init() {
        extractors = Mutex([GGUFMetadataExtractor(), SafetensorsMetadataExtractor(), ONNXMetadataExtractor()])
    }

    /// Adds an extractor, asked before those registered earlier; it replaces an earlier one for
    /// the same format.
    package func register(_ extractor: any ModelMetadataExtractor) {
        extractors.withLock { extractors in
            extractors.removeAll { $0.format == extractor.format }
            extractors.insert(extractor, at: 0)
        }
    }

    /// The formats extractors are registered for, most recently registered first.
    package var formats: [ModelFormat] { extractors.withLock { $0.map(\.format) } }

    /// The extractor for the file at `url`: the first that recognizes its leading bytes, else the
    /// first whose extensions include the file's; nil when none reads it.
    package func extractor(forFileAt url: URL) -> (any ModelMetadataExtractor)? {
        let registered = extractors.withLock { $0 }
        let head: [UInt8]
        if let handle = try? FileHandle(forReadingFrom: url) {
            head = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
            try? handle.close()
        } else {
            head = []
        }
        if let match = registered.first(where: { $0.recognizes(head: head) }) { return match }
        let ext = url.pathExtension.lowercased()
        return registered.first { $0.fileExtensions.contains(ext) }
    }

    /// The metadata of the file at `url`, read by its extractor; nil when no extractor reads it.
    /// A missing file throws ``ErrorCode/fileNotFound``, a damaged one ``ErrorCode/invalidModelFormat``.
    package func metadata(ofFileAt url: URL) throws -> ModelMetadata? {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SDKError.fileManagement(.fileNotFound, "No such file: \(url.path)")
        }
        return try extractor(forFileAt: url)?.extract(from: url)
    }
}
