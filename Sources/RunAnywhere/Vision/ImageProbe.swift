import Foundation

/// An encoded image format the vision engine decodes.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    /// An image format (PNG, JPEG, GIF or BMP), named by its header.
    case png, jpeg, gif, bmp

    /// The MIME type, e.g. `image/png`.
    public var mimeType: String { "image/\(rawValue)" }
}

/// Reads an encoded image's format and size from its header, without decoding it, so that
/// files that are not images, truncated headers and images too large to decode are refused
/// before any engine sees them.
package enum ImageProbe {
    /// The format, width and height of the image in `data`; throws ``ErrorCode/invalidInput``
    /// for anything that is not a PNG, JPEG, GIF or BMP image with a readable size.
    package static func probe(_ data: Data) throws -> (format: ImageFormat, width: Int, height: Int) {
        let bytes = [UInt8](data.prefix(64 << 10))
        func be16(_ at: Int) -> Int? { at + 1 < bytes.count ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : nil }
        func le16(_ at: Int) -> Int? { at + 1 < bytes.count ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : nil }
        func be32(_ at: Int) -> Int? { be16(at).flatMap { high in be16(at + 2).map { high << 16 | $0 } } }
        func le32(_ at: Int) -> Int32? { le16(at).flatMap { low in le16(at + 2).map { Int32(bitPattern: UInt32($0 << 16 | low)) } } }
        func truncated(_ format: ImageFormat) -> SDKError {
            SDKError(.invalidInput, "The \(format.rawValue.uppercased()) image is truncated or damaged: its size cannot be read")
        }

        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8), let width = be32(16), let height = be32(20) else {
                throw truncated(.png)
            }
            return (.png, width, height)
        }
        if bytes.starts(with: [0xFF, 0xD8]) {
            let (width, height) = try jpegSize(data)
            return (.jpeg, width, height)
        }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            guard let width = le16(6), let height = le16(8) else { throw truncated(.gif) }
            return (.gif, width, height)
        }
        if bytes.starts(with: Array("BM".utf8)) {
            guard let width = le32(18), let height = le32(22) else { throw truncated(.bmp) }
            return (.bmp, Int(width), Int(height.magnitude))
        }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            throw SDKError(.invalidInput, "WebP images are not supported; convert the image to PNG or JPEG")
        }
        throw SDKError(.invalidInput, "The data is not an image the vision engine reads (PNG, JPEG, GIF or BMP)")
    }

    /// A JPEG's size, from its first start-of-frame segment.
    private static func jpegSize(_ data: Data) throws -> (Int, Int) {
        let bytes = [UInt8](data)
        var index = 2
        while index + 3 < bytes.count {
            guard bytes[index] == 0xFF else { break }
            let marker = bytes[index + 1]
            if marker == 0xFF {
                index += 1
                continue
            }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                index += 2
                continue
            }  // no length
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2 else { break }
            // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry the frame size.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard index + 8 < bytes.count else { break }
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return (width, height)
            }
            if marker == 0xDA || marker == 0xD9 { break }  // scan data or end before any frame header
            index += 2 + length
        }
        throw SDKError(.invalidInput, "The JPEG image is truncated or damaged: it has no frame header with its size")
    }

    /// Checks that a `width`×`height` image can be decoded within the SDK's limits: both sides
    /// at least 1 and at most ``SDKConstants/Limits/maxImageSide``, at most
    /// ``SDKConstants/Limits/maxImagePixels`` pixels, and no side more than
    /// ``SDKConstants/Limits/maxImageAspectRatio`` times the other.
    package static func checkSize(width: Int, height: Int) throws {
        let limits = SDKConstants.Limits.self
        guard width > 0, height > 0 else {
            throw SDKError(.invalidInput, "The image is \(width)×\(height) pixels; it must be at least 1×1")
        }
        guard width <= limits.maxImageSide, height <= limits.maxImageSide, width * height <= limits.maxImagePixels else {
            throw SDKError(
                .invalidInput,
                "The image is \(width)×\(height) pixels; the most the vision engine decodes is \(limits.maxImageSide) pixels a side and \(limits.maxImagePixels / 1_000_000) megapixels"
            )
        }
        guard max(width, height) <= min(width, height) * limits.maxImageAspectRatio else {
            throw SDKError(
                .invalidInput,
                "The image is \(width)×\(height) pixels; one side may be at most \(limits.maxImageAspectRatio) times the other")
        }
    }
}
