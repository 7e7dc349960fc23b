import Foundation

/// What a model file says about itself, read from its header without loading its weights, in one
/// shape for every format (GGUF, safetensors, ONNX, or one an app adds with a
/// ``ModelMetadataExtractor``). What a format does not say is nil or empty.
public struct ModelMetadata: Sendable, Equatable, Codable {
    /// The file's format.
    public var format: ModelFormat
    /// The version of the format the file is written in: GGUF's version, ONNX's IR version.
    public var formatVersion: Int?
    /// The model's architecture, e.g. `llama` (GGUF's `general.architecture`), `vits` (an ONNX
    /// model's `model_type`), or what a safetensors header's metadata names.
    public var architecture: String?
    /// The model's own name, when the file has one.
    public var name: String?
    /// What wrote the file, e.g. `pytorch 2.0.0` (ONNX's producer).
    public var producer: String?
    /// Total number of weights, summed over the tensors (an ONNX model's initializers).
    public var parameterCount: Int64
    /// The quantization the file declares, e.g. `Q4_K_M` (GGUF's `general.file_type`).
    public var quantization: String?
    /// Weights by element type, in the format's own names (`Q4_1`, `F16`, `FLOAT`): what the
    /// tensors are stored as.
    public var tensorTypes: [String: Int64]
    /// The context length the model was trained with, in tokens, where the file says.
    public var contextLength: Int?
    /// Number of tensors (an ONNX model's initializers).
    public var tensorCount: Int
    /// The file's size in bytes.
    public var fileSize: UInt64
    /// The operator sets an ONNX model imports, by domain (`ai.onnx` for the default one).
    public var operatorSets: [String: Int]
    /// The graph's inputs (an ONNX model's; weights are not listed).
    public var inputs: [TensorSignature]
    /// The graph's outputs.
    public var outputs: [TensorSignature]
    /// Every key/value the file's metadata holds, as text: GGUF's keys (long values abbreviated),
    /// a safetensors header's `__metadata__`, an ONNX model's `metadata_props`.
    public var values: [String: String]

    /// Creates metadata; what the format does not say stays empty.
    public init(
        format: ModelFormat, formatVersion: Int? = nil, architecture: String? = nil, name: String? = nil, producer: String? = nil,
        parameterCount: Int64, quantization: String? = nil, tensorTypes: [String: Int64] = [:], contextLength: Int? = nil,
        tensorCount: Int, fileSize: UInt64, operatorSets: [String: Int] = [:], inputs: [TensorSignature] = [],
        outputs: [TensorSignature] = [],
        values: [String: String] = [:]
    ) {
        self.format = format
        self.formatVersion = formatVersion
        self.architecture = architecture
        self.name = name
        self.producer = producer
        self.parameterCount = parameterCount
        self.quantization = quantization
        self.tensorTypes = tensorTypes
        self.contextLength = contextLength
        self.tensorCount = tensorCount
        self.fileSize = fileSize
        self.operatorSets = operatorSets
        self.inputs = inputs
        self.outputs = outputs
        self.values = values
    }

    /// The parameter count for people: "135M", "1.2B", "15.7M".
    package var parameterCountLabel: String {
        let count = Double(parameterCount)
        if count >= 1e9 { return String(format: "%.1fB", count / 1e9) }
        if count >= 1e7 { return String(format: "%.0fM", count / 1e6) }
        if count >= 1e6 { return String(format: "%.1fM", count / 1e6) }
        return String(format: "%.0fK", count / 1e3)
    }
}

/// A tensor a model's graph takes or gives: its name, element type and shape.
public struct TensorSignature: Sendable, Equatable, Codable {
    /// One dimension of a shape: a fixed size, a named (symbolic) size, or one the file leaves open.
    public enum Dimension: Sendable, Equatable, Codable, CustomStringConvertible {
        /// A fixed size.
        case size(Int64)
        /// A size named in the graph (`batch_size`), fixed when the model runs.
        case symbol(String)
        /// A size the file leaves open.
        case unknown

        /// `3`, `batch_size` or `?`.
        public var description: String {
            switch self {
            case .size(let size): String(size)
            case .symbol(let name): name
            case .unknown: "?"
            }
        }

        /// Decodes a number, a string or null.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .unknown
            } else if let size = try? container.decode(Int64.self) {
                self = .size(size)
            } else {
                self = .symbol(try container.decode(String.self))
            }
        }

        /// Encodes a size as a number, a symbol as a string, an open dimension as null.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .size(let size): try container.encode(size)
            case .symbol(let name): try container.encode(name)
            case .unknown: try container.encodeNil()
            }
        }
    }

    /// The tensor's name in the graph.
    public var name: String
    /// Its element type in the format's own names (`FLOAT`, `INT64`), or the kind of value when it
    /// is not a tensor (`sequence`, `map`, `optional`).
    public var elementType: String
    /// Its dimensions; nil when the file leaves even the rank open.
    public var shape: [Dimension]?

    /// Creates a signature.
    public init(name: String, elementType: String, shape: [Dimension]?) {
        self.name = name
        self.elementType = elementType
        self.shape = shape
    }

    /// `input: INT64 [batch_size, phonemes]`.
    package var summary: String {
        "\(name): \(elementType)" + (shape.map { " [" + $0.map(\.description).joined(separator: ", ") + "]" } ?? "")
    }
}
