import Foundation

/// An ONNX model's metadata, read from its `ModelProto`: IR version, producer, operator sets,
/// `metadata_props`, the graph's inputs and outputs with their element types and shapes, and its
/// initializers (the weights: count, parameters, element types).
///
/// Read with a wire-format reader of the few fields needed, rather than with
/// SwiftProtobuf's runtime and message types: those would need either generated code (protoc and
/// its Swift plugin, not available here) or hand-written conformances to SwiftProtobuf's
/// underscored implementation protocols, and decoding a message copies its fields, so every
/// initializer's weights (hundreds of megabytes) would be copied out of the mapped file just to be
/// counted. The reader steps over the weights, checks every length against the file, and refuses
/// a field of the wrong wire type. Protobuf has no end marker: a file cut exactly between two
/// top-level fields reads as a model without the fields that followed (ONNX writers put the graph,
/// nearly all of the file, before `metadata_props`, so most cuts fall inside it and are refused).
package struct ONNXMetadataExtractor: ModelMetadataExtractor {
    /// ``ModelFormat/onnx``.
    package let format = ModelFormat.onnx

    /// Creates the extractor.
    package init() {}

    /// Reads the model's header and graph; the architecture is its `model_type` (or
    /// `architecture`) property, the name its `name` property, the producer its producer's name
    /// and version.
    package func extract(from url: URL) throws -> ModelMetadata {
        try Self.parse(try fileContents(of: url), name: url.lastPathComponent)
    }

    /// ONNX's element types (`TensorProto.DataType`) by number: name and bits per element (0
    /// for strings, which have no fixed size).
    static let elementTypes: [Int64: (name: String, bits: Int)] = [
        1: ("FLOAT", 32), 2: ("UINT8", 8), 3: ("INT8", 8), 4: ("UINT16", 16), 5: ("INT16", 16), 6: ("INT32", 32), 7: ("INT64", 64),
        8: ("STRING", 0), 9: ("BOOL", 8), 10: ("FLOAT16", 16), 11: ("DOUBLE", 64), 12: ("UINT32", 32), 13: ("UINT64", 64),
        14: ("COMPLEX64", 64), 15: ("COMPLEX128", 128), 16: ("BFLOAT16", 16), 17: ("FLOAT8E4M3FN", 8), 18: ("FLOAT8E4M3FNUZ", 8),
        19: ("FLOAT8E5M2", 8), 20: ("FLOAT8E5M2FNUZ", 8), 21: ("UINT4", 4), 22: ("INT4", 4), 23: ("FLOAT4E2M1", 4),
        24: ("FLOAT8E8M0", 8), 25: ("UINT2", 2), 26: ("INT2", 2),
    ]

    static func typeName(_ type: Int64) -> String { elementTypes[type]?.name ?? "type \(type)" }

    /// Parses and checks ONNX bytes (a buffer indexed from 0 when it is a slice, it is copied);
    /// `name` appears in error messages.
    static func parse(_ input: Data, name: String) throws -> ModelMetadata {
        let data = input.startIndex == 0 ? input : Data(input)
        func invalid(_ why: String) -> SDKError {
            SDKError.fileManagement(.invalidModelFormat, "\(name) is not a valid ONNX model: \(why)")
        }
        guard !data.isEmpty else { throw invalid("the file is empty") }
        do {
            var reader = ProtobufReader(data)
            var irVersion: Int64?
            var producer = ""
            var producerVersion = ""
            var operatorSets: [String: Int] = [:]
            var properties: [String: String] = [:]
            var graph: Graph?
            while let (number, value) = try reader.next() {
                switch number {
                case 1: irVersion = try int(value, "ir_version")
                case 2: producer = reader.string(try bytes(value, "producer_name"))
                case 3: producerVersion = reader.string(try bytes(value, "producer_version"))
                case 7: graph = try Graph(reader.message(try bytes(value, "graph")))
                case 8:
                    var entry = reader.message(try bytes(value, "opset_import"))
                    var domain = ""
                    var version: Int64 = 0
                    while let (field, value) = try entry.next() {
                        if field == 1 { domain = entry.string(try bytes(value, "opset_import.domain")) }
                        if field == 2 { version = try int(value, "opset_import.version") }
                    }
                    operatorSets[domain.isEmpty ? "ai.onnx" : domain] = Int(clamping: version)
                case 14:
                    let (key, text) = try stringPair(reader.message(try bytes(value, "metadata_props")))
                    properties[key] = text
                default: break  // fields this reader does not need: doc_string, functions, training_info…
                }
            }
            guard let irVersion, (1...100).contains(irVersion) else {
                throw invalid(
                    irVersion.map { "its ir_version, \($0), is not one ONNX has" } ?? "it has no ir_version (not an ONNX ModelProto)")
            }
            guard let graph else { throw invalid("it has no graph") }
            guard irVersion < 3 || !operatorSets.isEmpty else { throw invalid("it imports no operator set") }
            if let problem = graph.problem { throw invalid(problem) }
            let weights = Set(graph.initializers.map(\.name))
            var types: [String: Int64] = [:]
            for weight in graph.initializers {
                types[typeName(weight.type)] = (types[typeName(weight.type)] ?? 0).saturatingAdd(weight.elements)
            }
            return ModelMetadata(
                format: .onnx, formatVersion: Int(irVersion), architecture: properties["model_type"] ?? properties["architecture"],
                name: properties["name"],
                producer: producer.isEmpty ? nil : [producer, producerVersion].filter { !$0.isEmpty }.joined(separator: " "),
                parameterCount: graph.initializers.reduce(Int64(0)) { $0.saturatingAdd($1.elements) },
                tensorTypes: types,
                tensorCount: graph.initializers.count, fileSize: UInt64(data.count), operatorSets: operatorSets,
                // Before IR version 4 the weights were listed among the inputs as well.
                inputs: graph.inputs.filter { !weights.contains($0.name) }, outputs: graph.outputs, values: properties
            )
        } catch let error as ProtobufReader.Malformed {
            throw invalid(error.why)
        }
    }

    /// The parts of a `GraphProto` the metadata needs.
    private struct Graph {
        struct Initializer {
            let name: String
            let type: Int64
            let elements: Int64
        }

        var initializers: [Initializer] = []
        var inputs: [TensorSignature] = []
        var outputs: [TensorSignature] = []
        /// The first inconsistency found in a weight, for the caller's message.
        var problem: String?

        init(_ message: ProtobufReader) throws {
            var reader = message
            while let (number, value) = try reader.next() {
                switch number {
                case 5: try addInitializer(reader.message(try bytes(value, "graph.initializer")))
                case 15:  // a sparse initializer: its stored values count, under its own name
                    var sparse = reader.message(try bytes(value, "graph.sparse_initializer"))
                    while let (field, value) = try sparse.next() {
                        if field == 1 { try addInitializer(sparse.message(try bytes(value, "sparse_initializer.values"))) }
                    }
                case 11: inputs.append(try ONNXMetadataExtractor.signature(reader.message(try bytes(value, "graph.input"))))
                case 12: outputs.append(try ONNXMetadataExtractor.signature(reader.message(try bytes(value, "graph.output"))))
                default: break  // nodes, value_info, doc_string…
                }
            }
        }

        /// Reads a `TensorProto`: its dims, type and name, and checks that its inline weights
        /// (`raw_data`) are as many bytes as its shape and type need.
        private mutating func addInitializer(_ message: ProtobufReader) throws {
            var reader = message
            var dims: [UInt64] = []
            var type: Int64 = 0
            var name = ""
            var raw: Range<Int>?
            while let (number, value) = try reader.next() {
                switch number {
                case 1:
                    if case .varint(let dim) = value {
                        dims.append(dim)
                    } else {
                        dims += try reader.packedVarints(try bytes(value, "initializer.dims"))
                    }
                case 2: type = try int(value, "initializer.data_type")
                case 8: name = reader.string(try bytes(value, "initializer.name"))
                case 9: raw = try bytes(value, "initializer.raw_data")
                default: break
                }
            }
            var elements: UInt64 = 1
            for dim in dims {
                let (product, overflow) = elements.multipliedReportingOverflow(by: dim)
                guard Int64(bitPattern: dim) >= 0, !overflow, product <= UInt64(Int64.max) else {
                    problem = problem ?? "the initializer \(name) has the impossible shape \(dims.map { Int64(bitPattern: $0) })"
                    return
                }
                elements = product
            }
            if let raw, let bits = elementTypes[type]?.bits, bits > 0 {
                let needed = (elements.multipliedReportingOverflow(by: UInt64(bits)).partialValue + 7) / 8
                if UInt64(raw.count) != needed {
                    problem =
                        problem
                        ?? "the initializer \(name) holds \(raw.count) bytes of weights; its shape and type (\(typeName(type))) need \(needed)"
                }
            }
            initializers.append(Initializer(name: name, type: type, elements: Int64(elements)))
        }
    }

    /// A `ValueInfoProto`: a name and a `TypeProto`.
    private static func signature(_ message: ProtobufReader) throws -> TensorSignature {
        var reader = message
        var name = ""
        var elementType = "unknown"
        var shape: [TensorSignature.Dimension]?
        while let (number, value) = try reader.next() {
            if number == 1 { name = reader.string(try bytes(value, "value_info.name")) }
            guard number == 2 else { continue }
            var type = reader.message(try bytes(value, "value_info.type"))
            while let (kind, value) = try type.next() {
                switch kind {
                case 1, 8: (elementType, shape) = try tensorType(type.message(try bytes(value, "type.tensor_type")), sparse: kind == 8)
                case 4: elementType = "sequence"
                case 5: elementType = "map"
                case 9: elementType = "optional"
                default: break
                }
            }
        }
        return TensorSignature(name: name, elementType: elementType, shape: shape)
    }

    /// A `TypeProto.Tensor`: its element type, and its shape when the model gives one.
    private static func tensorType(_ message: ProtobufReader, sparse: Bool) throws -> (String, [TensorSignature.Dimension]?) {
        var reader = message
        var elementType = "unknown"
        var shape: [TensorSignature.Dimension]?
        while let (number, value) = try reader.next() {
            if number == 1 { elementType = typeName(try int(value, "tensor_type.elem_type")) }
            guard number == 2 else { continue }
            var dims = reader.message(try bytes(value, "tensor_type.shape"))
            shape = []
            while let (field, value) = try dims.next() {
                guard field == 1 else { continue }
                var dim = dims.message(try bytes(value, "shape.dim"))
                var dimension = TensorSignature.Dimension.unknown
                while let (kind, value) = try dim.next() {
                    if kind == 1 { dimension = .size(try int(value, "dim.dim_value")) }
                    if kind == 2 { dimension = .symbol(dim.string(try bytes(value, "dim.dim_param"))) }
                }
                shape?.append(dimension)
            }
        }
        return (sparse ? "sparse " + elementType : elementType, shape)
    }

    /// A `StringStringEntryProto`'s key and value.
    private static func stringPair(_ message: ProtobufReader) throws -> (String, String) {
        var reader = message
        var key = ""
        var value = ""
        while let (number, field) = try reader.next() {
            if number == 1 { key = reader.string(try bytes(field, "metadata_props.key")) }
            if number == 2 { value = reader.string(try bytes(field, "metadata_props.value")) }
        }
        return (key, value)
    }

    private static func int(_ value: ProtobufReader.Value, _ field: String) throws -> Int64 {
        guard let number = value.int64 else { throw ProtobufReader.Malformed(why: "\(field) is not a number") }
        return number
    }

    private static func bytes(_ value: ProtobufReader.Value, _ field: String) throws -> Range<Int> {
        guard let range = value.bytes else { throw ProtobufReader.Malformed(why: "\(field) is not a length-delimited field") }
        return range
    }
}
