import Foundation

/// The file format a model is stored in.
public enum ModelFormat: String, CaseIterable, Codable, Sendable {
    /// An ONNX network.
    case onnx
    /// An ONNX Runtime format network.
    case ort
    /// A GGUF file (llama.cpp and stable-diffusion.cpp).
    case gguf
    /// A GGML file (whisper.cpp's older format).
    case ggml
    /// Safetensors weights.
    case safetensors
    /// A raw `.bin` file of the engine's own layout.
    case bin
    /// A Core ML model (Apple platforms only).
    case coreml
    /// A format the SDK does not recognise.
    case unknown

    /// The format a file name or URL path suggests, from its extension (query strings ignored).
    package static func detect(fromPath path: String) -> ModelFormat {
        let name = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        switch (name as NSString).pathExtension.lowercased() {
        case "gguf": return .gguf
        case "onnx": return .onnx
        case "ort": return .ort
        case "ggml": return .ggml
        case "safetensors": return .safetensors
        case "bin": return .bin
        case "mlmodel", "mlpackage", "mlmodelc": return .coreml
        default: return .unknown
        }
    }

    /// The format a download URL points to: its path's extension, also for Hugging Face
    /// `…/resolve/main/file.gguf?download=true` links and `…/blob/…` page links.
    package static func detectFromURL(_ url: URL) -> ModelFormat {
        detect(fromPath: url.path)
    }

    /// The format the file's first bytes show: GGUF magic, ggml magic, a safetensors JSON
    /// header, or an ONNX protobuf (ir_version first); `.unknown` for anything else.
    package static func sniff(fileAt url: URL) -> ModelFormat {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return .unknown }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        return sniff(head)
    }

    /// The format the given leading bytes show.
    package static func sniff(_ head: [UInt8]) -> ModelFormat {
        guard head.count >= 8 else { return .unknown }
        if head.starts(with: Array("GGUF".utf8)) { return .gguf }
        if head.starts(with: [0x6C, 0x6D, 0x67, 0x67]) || head.starts(with: [0x67, 0x67, 0x6D, 0x6C]) { return .ggml }
        let headerLength = head.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        if headerLength > 1, headerLength < 100_000_000, head.count > 8, head[8] == UInt8(ascii: "{") { return .safetensors }
        // ONNX ModelProto: field 1 (ir_version, varint) first, a small version number, then usually
        // field 2 (producer_name) or 8 (opset_import).
        if head[0] == 0x08, head[1] > 0, head[1] < 32, [0x12, 0x1A, 0x22, 0x2A, 0x32, 0x3A, 0x42].contains(head[2]) { return .onnx }
        return .unknown
    }
}
