import Foundation

/// The harness's image frames: the embedded gradient, varied deterministically per frame (rolled
/// sideways and brightened by an amount that depends only on the frame's number), so every
/// machine processes the same sequence.
struct GradientFrames {
    /// The image every frame is made from.
    let source: PNGImage

    /// The frames of the embedded 224×224 gradient.
    init() throws {
        guard let data = Data(base64Encoded: EmbeddedResources.gradientPNG, options: .ignoreUnknownCharacters) else {
            throw BenchRunnerError.resource("the embedded gradient image is not valid base64")
        }
        try self.init(source: PNGImage(data))
    }

    /// The frames of `source`.
    init(source: PNGImage) {
        self.source = source
    }

    /// Frame `index` as row-major RGB bytes: the image rolled `3·index` pixels to the right and
    /// each sample raised by `5·index` (wrapping at 256).
    func rgb(_ index: Int) -> [UInt8] {
        let (width, height) = (source.width, source.height)
        let shift = (3 * index) % width
        let lift = UInt8(truncatingIfNeeded: 5 * index)
        var frame = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let from = (y * width + (x + width - shift) % width) * 3
                let to = (y * width + x) * 3
                frame[to] = source.rgb[from] &+ lift
                frame[to + 1] = source.rgb[from + 1] &+ lift
                frame[to + 2] = source.rgb[from + 2] &+ lift
            }
        }
        return frame
    }

    /// Frame `index` as a [1, height, width, 3] tensor of values from 0 to 1 (interleaved RGB,
    /// TensorFlow Lite's layout).
    func interleaved(_ index: Int) -> [Float] {
        rgb(index).map { Float($0) / 255 }
    }

    /// Frame `index` as a [1, 3, height, width] tensor of values from 0 to 1 (planar RGB).
    func planar(_ index: Int) -> [Float] {
        let pixels = rgb(index)
        let plane = source.width * source.height
        var values = [Float](repeating: 0, count: plane * 3)
        for pixel in 0..<plane {
            for channel in 0..<3 {
                values[channel * plane + pixel] = Float(pixels[pixel * 3 + channel]) / 255
            }
        }
        return values
    }
}
