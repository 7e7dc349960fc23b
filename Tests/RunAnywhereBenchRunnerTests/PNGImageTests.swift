import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereBenchRunner

/// The harness's PNG reader against ffmpeg's encoder: every row filter and every 8-bit colour
/// type it reads give exactly ffmpeg's own decoding of the same picture; the rest is refused.
@Suite struct PNGImageTests {
    /// `testsrc2` scaled to 37×23 (odd sizes, so rows do not line up with anything) through ffmpeg.
    private func encode(_ arguments: [String], format: String) throws -> Data {
        guard let ffmpeg = TestEnvironment.ffmpeg else {
            throw SDKError(.frameworkNotAvailable, "ffmpeg is not installed; run scripts/setup --tests --build tests")
        }
        let folder = try TestEnvironment.temporaryDirectory("png")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out")
        let process = Process()
        process.executableURL = ffmpeg
        process.arguments =
            ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=64x48,format=rgb24,scale=37:23", "-frames:v", "1"] + arguments + [
                "-f", format, output.path,
            ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SDKError(.invalidInput, "ffmpeg failed: \(arguments)") }
        return try Data(contentsOf: output)
    }

    @Test(arguments: ["none", "sub", "up", "avg", "paeth", "mixed"])
    func everyRowFilterDecodesLikeFFmpeg(_ prediction: String) throws {
        let png = try encode(["-pix_fmt", "rgb24", "-c:v", "png", "-pred", prediction], format: "image2")
        let raw = try encode(["-pix_fmt", "rgb24", "-c:v", "rawvideo"], format: "rawvideo")
        let image = try PNGImage(png)
        #expect(image.width == 37 && image.height == 23)
        #expect(image.rgb == [UInt8](raw))
    }

    @Test(arguments: [("rgba", "rgba"), ("gray", "gray"), ("ya8", "gray")])
    func otherColourTypesBecomeRGB(_ formats: (png: String, raw: String)) throws {
        let png = try encode(["-pix_fmt", formats.png, "-c:v", "png", "-pred", "mixed"], format: "image2")
        let raw = [UInt8](try encode(["-pix_fmt", formats.raw, "-c:v", "rawvideo"], format: "rawvideo"))
        let image = try PNGImage(png)
        let channels = formats.raw == "rgba" ? 4 : 1
        let expected = stride(from: 0, to: raw.count, by: channels).flatMap { start -> [UInt8] in
            channels == 1 ? [raw[start], raw[start], raw[start]] : Array(raw[start..<start + 3])
        }
        #expect(image.rgb == expected)
    }

    @Test func unsupportedAndDamagedFilesAreRefusedWithTheReason() throws {
        let cases: [(Data, String)] = [
            (try encode(["-pix_fmt", "pal8", "-c:v", "png"], format: "image2"), "palette"),
            (try encode(["-pix_fmt", "rgb48be", "-c:v", "png"], format: "image2"), "16 bits"),
            (Data("GIF89a".utf8), "not a PNG"),
            (Data(), "not a PNG"),
        ]
        for (data, reason) in cases {
            #expect {
                try PNGImage(data)
            } throws: { error in
                (error as? SDKError)?.code == .invalidInput && (error as? SDKError)?.message.contains(reason) == true
            }
        }
    }

    /// Damaged copies of the embedded gradient: each is decoded or refused, never a crash.
    @Test func damagedCopiesAreDecodedOrRefused() throws {
        let original = [UInt8](Data(base64Encoded: EmbeddedResources.gradientPNG, options: .ignoreUnknownCharacters)!)
        var generator = SeededGenerator(seed: 0x9E37)
        var refused = 0
        for _ in 0..<TestEnvironment.fuzzCases(standard: 300) {
            var bytes = original
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: bytes[Int.random(in: 8..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            case 1: bytes.removeLast(Int.random(in: 1..<bytes.count - 8, using: &generator))
            default:
                let at = Int.random(in: 8..<bytes.count - 4, using: &generator)
                bytes.replaceSubrange(at..<at + 4, with: [0xFF, 0xFF, 0xFF, 0xF0])
            }
            do {
                let image = try PNGImage(Data(bytes))
                #expect(image.rgb.count == image.width * image.height * 3)
            } catch let error as SDKError {
                #expect(error.code == .invalidInput)
                refused += 1
            }
        }
        #expect(refused > 0)
    }

    @Test func theEmbeddedGradientIsTheOneItsScriptDescribes() throws {
        let frames = try GradientFrames()
        #expect(frames.source.width == 224 && frames.source.height == 224)
        for (x, y) in [(0, 0), (223, 0), (0, 223), (100, 57), (223, 223)] {
            let pixel = Array(frames.source.rgb[(y * 224 + x) * 3..<(y * 224 + x) * 3 + 3])
            #expect(pixel == [UInt8(x * 255 / 223), UInt8(y * 255 / 223), 128])
        }
    }

    @Test func framesAreRolledAndLiftedByTheirNumber() throws {
        let frames = try GradientFrames()
        let source = frames.source
        for index in [0, 1, 7, 149] {
            let frame = frames.rgb(index)
            #expect(frame == frames.rgb(index))
            for (x, y) in [(0, 0), (5, 9), (223, 100)] {
                let from = (y * 224 + (x + 224 - (3 * index) % 224) % 224) * 3
                #expect(frame[(y * 224 + x) * 3] == source.rgb[from] &+ UInt8(truncatingIfNeeded: 5 * index))
            }
            let planar = frames.planar(index)
            #expect(planar.count == 3 * 224 * 224)
            #expect(planar[224 * 224 + 3] == Float(frame[3 * 3 + 1]) / 255)
        }
        #expect(frames.rgb(1) != frames.rgb(2))
    }
}
