import Foundation
import RunAnywhere
import ZIPFoundation

/// An 8-bit RGB image decoded from a PNG file: the non-interlaced 8-bit grey, grey-alpha, RGB
/// and RGBA files (alpha is dropped), with every row filter. Enough for the harness's embedded
/// gradient and for frames users supply; anything else is refused with the reason.
struct PNGImage: Equatable {
    let width: Int
    let height: Int
    /// Row-major RGB bytes, three per pixel.
    let rgb: [UInt8]

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let maxPixels = 16_777_216

    /// Decodes `data`.
    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 8, Array(bytes[0..<8]) == Self.signature else { throw Self.invalid("it is not a PNG file") }
        var offset = 8
        var header: (width: Int, height: Int, channels: Int)?
        var compressed = Data()
        while offset + 12 <= bytes.count {
            let length = Int(Self.uint32(bytes, offset))
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { throw Self.invalid("its \(type) chunk runs past the end of the file") }
            let body = bytes[offset + 8..<offset + 8 + length]
            switch type {
            case "IHDR": header = try Self.header(Array(body))
            case "IDAT": compressed.append(contentsOf: body)
            case "IEND": offset = bytes.count
            default: break
            }
            offset += 12 + length
        }
        guard let header else { throw Self.invalid("it has no IHDR chunk") }
        let stride = header.width * header.channels
        let filtered = try Self.inflate(compressed, expected: (stride + 1) * header.height)
        let pixels = try Self.unfilter(filtered, stride: stride, height: header.height, bytesPerPixel: header.channels)
        width = header.width
        height = header.height
        rgb = Self.rgb(pixels, channels: header.channels)
    }

    private static func header(_ body: [UInt8]) throws -> (width: Int, height: Int, channels: Int) {
        guard body.count == 13 else { throw invalid("its IHDR chunk is \(body.count) bytes, not 13") }
        let width = Int(uint32(body, 0))
        let height = Int(uint32(body, 4))
        guard width > 0, height > 0, width <= maxPixels / height else { throw invalid("its size \(width)×\(height) is not supported") }
        guard body[8] == 8 else { throw invalid("it has \(body[8]) bits per sample; only 8 are supported") }
        guard body[12] == 0 else { throw invalid("it is interlaced; only non-interlaced images are supported") }
        let channels: Int
        switch body[9] {
        case 0: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: throw invalid("its colour type \(body[9]) (a palette) is not supported")
        }
        return (width, height, channels)
    }

    /// The zlib stream's data: its two-byte header skipped, the raw deflate data inflated.
    private static func inflate(_ zlibData: Data, expected: Int) throws -> [UInt8] {
        guard zlibData.count > 2 else { throw invalid("it has no image data") }
        let deflated = zlibData.dropFirst(2)
        var output = [UInt8]()
        output.reserveCapacity(expected)
        do {
            _ = try Data.decompress(
                size: Int64(deflated.count), bufferSize: 64 * 1024, skipCRC32: true,
                provider: { position, size in
                    let start = deflated.startIndex + Int(position)
                    return deflated[start..<min(start + size, deflated.endIndex)]
                },
                consumer: { chunk in
                    guard output.count + chunk.count <= expected else { throw SDKError(.invalidInput, "too much image data") }
                    output.append(contentsOf: chunk)
                })
        } catch {
            throw invalid("its image data cannot be inflated (\(error))")
        }
        guard output.count == expected else { throw invalid("its image data holds \(output.count) bytes, not \(expected)") }
        return output
    }

    /// Undoes PNG's per-row filters (none, sub, up, average, Paeth).
    private static func unfilter(_ data: [UInt8], stride: Int, height: Int, bytesPerPixel: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: stride * height)
        for row in 0..<height {
            let filter = data[row * (stride + 1)]
            let source = row * (stride + 1) + 1
            let target = row * stride
            for column in 0..<stride {
                let raw = data[source + column]
                let left = column >= bytesPerPixel ? Int(pixels[target + column - bytesPerPixel]) : 0
                let up = row > 0 ? Int(pixels[target - stride + column]) : 0
                let upLeft = row > 0 && column >= bytesPerPixel ? Int(pixels[target - stride + column - bytesPerPixel]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = left
                case 2: predictor = up
                case 3: predictor = (left + up) / 2
                case 4: predictor = paeth(left, up, upLeft)
                default: throw invalid("row \(row) has the unknown filter \(filter)")
                }
                pixels[target + column] = raw &+ UInt8(truncatingIfNeeded: predictor)
            }
        }
        return pixels
    }

    private static func paeth(_ left: Int, _ up: Int, _ upLeft: Int) -> Int {
        let estimate = left + up - upLeft
        let (toLeft, toUp, toUpLeft) = (abs(estimate - left), abs(estimate - up), abs(estimate - upLeft))
        if toLeft <= toUp && toLeft <= toUpLeft { return left }
        return toUp <= toUpLeft ? up : upLeft
    }

    private static func rgb(_ pixels: [UInt8], channels: Int) -> [UInt8] {
        if channels == 3 { return pixels }
        var rgb = [UInt8]()
        rgb.reserveCapacity(pixels.count / channels * 3)
        for start in stride(from: 0, to: pixels.count, by: channels) {
            if channels <= 2 {
                rgb.append(contentsOf: [pixels[start], pixels[start], pixels[start]])
            } else {
                rgb.append(contentsOf: pixels[start..<start + 3])
            }
        }
        return rgb
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func invalid(_ reason: String) -> SDKError {
        SDKError(.invalidInput, "The image cannot be read: \(reason)")
    }
}
