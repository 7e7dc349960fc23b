import Foundation

/// An image for a vision-language model: a file, encoded bytes (PNG, JPEG, GIF or BMP), base64
/// text (a `data:` URL too), or raw RGB pixels. Nothing is read or checked until the image is
/// used (``load()``), where a missing file, data that is not an image or an image too large to
/// decode is a clear ``ErrorCode/invalidInput`` error.
public struct VLMImage: Sendable, Equatable, Codable {
    /// Where the image comes from.
    public enum Source: Sendable, Equatable {
        /// An image file on this machine.
        case filePath(String)
        /// An encoded image: PNG, JPEG, GIF or BMP bytes.
        case encoded(Data)
        /// An encoded image as base64 text, optionally a `data:image/…;base64,` URL.
        case base64(String)
        /// Raw pixels, 3 bytes (red, green, blue) each, row by row.
        case rgbPixels(Data, width: Int, height: Int)
    }

    /// Where the image comes from.
    public let source: Source

    /// An image file.
    public init(filePath: String) { source = .filePath(filePath) }
    /// Encoded image bytes (PNG, JPEG, GIF or BMP).
    public init(data: Data) { source = .encoded(data) }
    /// Base64-encoded image bytes, or a `data:image/…;base64,` URL.
    public init(base64: String) { source = .base64(base64) }
    /// Raw RGB pixels: `width × height × 3` bytes, row by row.
    public init(rgbPixels: Data, width: Int, height: Int) { source = .rgbPixels(rgbPixels, width: width, height: height) }

    /// Reads and checks the image: its bytes, format and size, within the SDK's limits (see
    /// ``SDKConstants/Limits``). Decoding itself is the engine's.
    public func load() throws -> LoadedImage {
        switch source {
        case .filePath(let path):
            // Read, not mapped: the bytes outlive this call, and a file changed meanwhile must not fault.
            return try Self.loadEncoded(try fileContents(of: URL(fileURLWithPath: path), mapped: false))
        case .encoded(let data):
            return try Self.loadEncoded(data)
        case .base64(let text):
            var payload = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
            if payload.hasPrefix("data:") {
                guard let comma = payload.firstIndex(of: ","), payload[..<comma].hasSuffix(";base64") else {
                    throw SDKError(.invalidInput, "The image data URL is not base64 (expected data:image/…;base64,…)")
                }
                payload = payload[payload.index(after: comma)...]
            }
            guard !payload.isEmpty else { throw SDKError(.invalidInput, "The image is empty: its base64 text holds no data") }
            guard let data = Data(base64Encoded: String(payload), options: .ignoreUnknownCharacters), !data.isEmpty else {
                throw SDKError(.invalidInput, "The image's base64 text does not decode")
            }
            return try Self.loadEncoded(data)
        case .rgbPixels(let data, let width, let height):
            try ImageProbe.checkSize(width: width, height: height)
            guard data.count == width * height * 3 else {
                throw SDKError(
                    .invalidInput, "A \(width)×\(height) RGB image has \(width * height * 3) bytes; these pixels have \(data.count)")
            }
            return LoadedImage(bytes: data, format: nil, width: width, height: height)
        }
    }

    private static func loadEncoded(_ data: Data) throws -> LoadedImage {
        guard !data.isEmpty else { throw SDKError(.invalidInput, "The image is empty") }
        let (format, width, height) = try ImageProbe.probe(data)
        try ImageProbe.checkSize(width: width, height: height)
        return LoadedImage(bytes: data, format: format, width: width, height: height)
    }

    private enum CodingKeys: String, CodingKey { case type, path, base64, width, height }

    /// Decodes `{"type": "file", "path"}`, `{"type": "data", "base64"}` or
    /// `{"type": "rgb", "base64", "width", "height"}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "file": source = .filePath(try container.decode(String.self, forKey: .path))
        case "rgb":
            source = .rgbPixels(
                try container.decode(Data.self, forKey: .base64),
                width: try container.decode(Int.self, forKey: .width), height: try container.decode(Int.self, forKey: .height)
            )
        default: source = .base64(try container.decode(String.self, forKey: .base64))
        }
    }

    /// Encodes as ``init(from:)`` reads; encoded bytes are stored as base64.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch source {
        case .filePath(let path):
            try container.encode("file", forKey: .type)
            try container.encode(path, forKey: .path)
        case .encoded(let data):
            try container.encode("data", forKey: .type)
            try container.encode(data, forKey: .base64)
        case .base64(let text):
            try container.encode("data", forKey: .type)
            try container.encode(text, forKey: .base64)
        case .rgbPixels(let data, let width, let height):
            try container.encode("rgb", forKey: .type)
            try container.encode(data, forKey: .base64)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
        }
    }
}

/// An image read and checked by ``VLMImage/load()``, ready for an engine to decode.
public struct LoadedImage: Sendable, Equatable, Codable {
    /// Encoded bytes, or raw RGB pixels when ``format`` is nil.
    public let bytes: Data
    /// The encoding; nil for raw RGB pixels.
    public let format: ImageFormat?
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
}
