import Foundation

/// The file format a model is stored in.
public enum ModelFormat: String, CaseIterable, Codable, Sendable {
    case onnx
    case ort
    case gguf
    case bin
    case coreml
    case unknown

    /// The format a file name or URL path suggests, from its extension (query strings ignored).
    public static func detect(fromPath path: String) -> ModelFormat {
        let name = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        switch (name as NSString).pathExtension.lowercased() {
        case "gguf": return .gguf
        case "onnx": return .onnx
        case "ort": return .ort
        case "bin": return .bin
        case "mlmodel", "mlpackage", "mlmodelc": return .coreml
        default: return .unknown
        }
    }
}
