import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// Images are read and checked before any engine sees them: real files from ffmpeg's encoders,
/// damaged and hostile headers, and every way of handing one over.
@Suite struct VLMImageTests {
    private static var ffmpegInstalled: Bool { TestEnvironment.ffmpeg != nil }

    @Test(.enabled(if: ffmpegInstalled, "needs ffmpeg: run scripts/setup --tests --build tests"))
    func readsTheSizeOfEveryFormatFFmpegWrites() throws {
        for (encoder, format) in [("png", ImageFormat.png), ("mjpeg", .jpeg), ("gif", .gif), ("bmp", .bmp)] {
            let data = try TestEnvironment.encodeImage(width: 36, height: 20, as: encoder)
            let probed = try ImageProbe.probe(data)
            #expect(probed.format == format, "\(encoder)")
            #expect(probed.width == 36 && probed.height == 20, "\(encoder): \(probed.width)×\(probed.height)")
            let loaded = try VLMImage(data: data).load()
            #expect(loaded.format == format && loaded.bytes == data)
        }
    }

    @Test(.enabled(if: ffmpegInstalled, "needs ffmpeg: run scripts/setup --tests --build tests"))
    func everySourceLoadsTheSameImage() throws {
        let png = try TestEnvironment.encodeImage(width: 8, height: 8)
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("red.png")
        try png.write(to: file)
        let sources = [
            VLMImage(filePath: file.path), VLMImage(data: png), VLMImage(base64: png.base64EncodedString()),
            VLMImage(base64: "data:image/png;base64," + png.base64EncodedString()),
        ]
        for image in sources {
            let loaded = try image.load()
            #expect(loaded.bytes == png && loaded.format == .png && loaded.width == 8, "\(image.source)")
        }
        let pixels = try VLMImage(rgbPixels: Data(repeating: 200, count: 4 * 3 * 3), width: 4, height: 3).load()
        #expect(pixels.format == nil && pixels.width == 4 && pixels.height == 3)
    }

    @Test func refusesWhatIsNotAnImageWithAClearError() throws {
        func message(_ image: VLMImage) -> String {
            do {
                _ = try image.load()
                return "loaded"
            } catch let error as SDKError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
        png += Data([0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 2, 0, 0, 0])  // 100000×100000
        let cases: [(VLMImage, String)] = [
            (VLMImage(data: Data("hello".utf8)), "not an image"),
            (VLMImage(data: Data()), "empty"),
            (VLMImage(data: Data(png.prefix(14))), "PNG image is truncated"),
            (VLMImage(data: png), "100000×100000"),
            (VLMImage(data: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + Data(count: 14)), "JPEG image is truncated"),
            (VLMImage(data: Data("RIFF\0\0\0\0WEBPVP8 ".utf8)), "WebP images are not supported"),
            (VLMImage(data: Data("GIF89a".utf8) + Data([0, 0, 5, 0])), "at least 1×1"),
            (VLMImage(data: Data("GIF89a".utf8) + Data([0x00, 0x10, 0x10, 0x00])), "times the other"),
            (VLMImage(base64: "%%%"), "does not decode"),
            (VLMImage(base64: "data:image/png;base64,"), "The image is empty"),
            (VLMImage(base64: "data:image/png,abc"), "not base64"),
            (VLMImage(filePath: "/nonexistent/picture.png"), "No such file: /nonexistent/picture.png"),
            (VLMImage(filePath: "/tmp"), "Cannot read /tmp: it is a folder; name a file"),
            (VLMImage(rgbPixels: Data(count: 10), width: 4, height: 3), "has 36 bytes; these pixels have 10"),
            (VLMImage(rgbPixels: Data(), width: 0, height: 3), "at least 1×1"),
        ]
        for (image, expected) in cases {
            let got = message(image)
            #expect(got.contains(expected), "\(expected) ← \(got)")
        }
    }

    /// Messages with images round-trip through JSON (conversations store them); messages saved
    /// before images existed still load.
    @Test func messagesKeepTheirImages() throws {
        let message = Message(
            role: .user, content: "What is this?",
            images: [
                VLMImage(data: Data([1, 2, 3])), VLMImage(filePath: "/tmp/a.png"),
                VLMImage(rgbPixels: Data([9, 9, 9]), width: 1, height: 1),
            ])
        let decoded = try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(message))
        #expect(decoded.images.count == 3)
        #expect(decoded.images[0] == VLMImage(base64: Data([1, 2, 3]).base64EncodedString()))
        #expect(decoded.images[1] == VLMImage(filePath: "/tmp/a.png"))
        #expect(decoded.images[2] == VLMImage(rgbPixels: Data([9, 9, 9]), width: 1, height: 1))
        let old = #"{"role":"user","content":"hi","timestamp":0}"#
        #expect(try JSONDecoder().decode(Message.self, from: Data(old.utf8)).images.isEmpty)
        let plain = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Message(role: .user, content: "hi"))) as? [String: Any]
        #expect(plain?["images"] == nil)
    }
}
