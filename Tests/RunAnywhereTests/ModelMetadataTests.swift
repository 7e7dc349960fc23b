import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The metadata extractors on real files: GGUF files (the default model, one written here),
/// safetensors files written here, ONNX models (the installed Piper voice, one the `onnx` package
/// writes, one written here byte by byte), and truncated, foreign and garbage files of each.
@Suite struct ModelMetadataTests {
    static let piperVoice = TestEnvironment.installedModelsDirectory.appendingPathComponent("piper-en_US-joe-medium/en_US-joe-medium.onnx")
    static let whisperModel = TestEnvironment.installedModelsDirectory.appendingPathComponent("whisper-tiny.en/ggml-tiny.en.bin")
    static let sileroModel = TestEnvironment.installedModelsDirectory.appendingPathComponent("silero-vad/silero-v6.2.0-ggml.bin")
    static var piperInstalled: Bool { FileManager.default.fileExists(atPath: piperVoice.path) }

    /// A folder for the test's files, deleted afterwards.
    static func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    /// `expected` must be in the message of the ``ErrorCode/invalidModelFormat`` error `body` throws.
    static func expectRefused(
        _ expected: String, _ comment: String, _ body: () throws -> Any, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try body()
            Issue.record("\(comment): read without an error", sourceLocation: sourceLocation)
        } catch let error as SDKError {
            #expect(error.code == .invalidModelFormat, "\(comment): \(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(expected), "\(comment): \(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(comment): \(error) is not an SDKError", sourceLocation: sourceLocation)
        }
    }

    // MARK: GGUF

    @Test func ggufMetadataIsWhatTheGGUFReaderReads() throws {
        try Self.withFolder { folder in
            let file = folder.appendingPathComponent("tiny.gguf")
            try GGUFWriter.tinyLlama().write(to: file)
            let metadata = try GGUFMetadataExtractor().extract(from: file)
            #expect(metadata.format == .gguf && metadata.formatVersion == 3)
            #expect(metadata.architecture == "llama" && metadata.name == "Tiny Test Llama" && metadata.contextLength == 512)
            #expect(metadata.quantization == "Q4_0" && metadata.tensorCount == 3)
            #expect(metadata.tensorTypes == ["F32": 64 * 4 + 64, "Q4_0": 256 * 2])
            #expect(metadata.parameterCount == 64 * 4 + 64 + 256 * 2)
            #expect(metadata.values["general.name"] == "\"Tiny Test Llama\"" && metadata.values["llama.context_length"] == "512")
            #expect(metadata.fileSize == UInt64(try Data(contentsOf: file).count))
        }
    }

    @Test(.enabled(if: TestEnvironment.defaultModelFile != nil, "needs the default model: run scripts/setup"))
    func theDefaultModelsMetadata() throws {
        let file = try #require(TestEnvironment.defaultModelFile)
        let metadata = try #require(try ModelMetadataExtractorRegistry().metadata(ofFileAt: file))
        let gguf = try GGUFReader.read(file)
        #expect(metadata.format == .gguf && metadata.architecture == "llama" && metadata.quantization == "Q4_1")
        #expect(metadata.parameterCount == gguf.parameterCount && metadata.tensorCount == gguf.tensorCount)
        #expect(metadata.tensorTypes.values.reduce(0, +) == gguf.parameterCount, "every weight has its type: \(metadata.tensorTypes)")
        #expect(metadata.tensorTypes["Q4_1", default: 0] > metadata.parameterCount / 2, "most weights are Q4_1: \(metadata.tensorTypes)")
    }

    // MARK: safetensors

    static func sampleSafetensors() -> SafetensorsWriter {
        SafetensorsWriter(
            tensors: [
                .float32("model.diffusion_model.out.weight", shape: [2, 3], values: [1, 2, 3, 4, 5, 6]),
                .init(name: "first_stage_model.bias", dtype: "F16", shape: [4], bytes: Data(repeating: 0x3C, count: 8)),
                .init(name: "scale", dtype: "BF16", shape: [], bytes: Data([0x80, 0x3F])),
                .init(name: "packed", dtype: "F4", shape: [3, 2], bytes: Data([0x12, 0x34, 0x56])),
            ],
            metadata: [
                "format": "pt", "modelspec.architecture": "stable-diffusion-v1", "modelspec.title": "Tiny Diffusion",
                "modelspec.license": "MIT",
            ])
    }

    @Test func aSafetensorsFileWrittenHereIsRead() throws {
        try Self.withFolder { folder in
            let file = folder.appendingPathComponent("tiny.safetensors")
            try Self.sampleSafetensors().write(to: file)
            let metadata = try SafetensorsMetadataExtractor().extract(from: file)
            #expect(metadata.format == .safetensors && metadata.formatVersion == nil)
            #expect(metadata.architecture == "stable-diffusion-v1" && metadata.name == "Tiny Diffusion")
            #expect(metadata.tensorCount == 4 && metadata.parameterCount == 6 + 4 + 1 + 6)
            #expect(metadata.tensorTypes == ["F32": 6, "F16": 4, "BF16": 1, "F4": 6])
            #expect(
                metadata.values == [
                    "format": "pt", "modelspec.architecture": "stable-diffusion-v1", "modelspec.title": "Tiny Diffusion",
                    "modelspec.license": "MIT",
                ])
            #expect(metadata.fileSize == UInt64(try Data(contentsOf: file).count))
            #expect(metadata.inputs.isEmpty && metadata.operatorSets.isEmpty && metadata.contextLength == nil)
            // Without __metadata__, and with the header's members in another order than their data.
            let bare = folder.appendingPathComponent("bare.safetensors")
            try SafetensorsWriter(tensors: [.float32("z", shape: [1], values: [0]), .float32("a", shape: [2], values: [1, 2])]).write(
                to: bare)
            let plain = try SafetensorsMetadataExtractor().extract(from: bare)
            #expect(plain.values.isEmpty && plain.name == nil && plain.parameterCount == 3 && plain.tensorTypes == ["F32": 3])
        }
    }

    /// `data` with its header (length and JSON) replaced by `json`, the tensors' bytes kept.
    static func replacingHeader(of data: Data, with json: String) -> Data {
        let oldLength = Int(data.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) })
        var out = Data((0..<8).map { UInt8(truncatingIfNeeded: UInt64(json.utf8.count) >> (8 * $0)) })
        out.append(Data(json.utf8))
        out.append(data.suffix(from: 8 + oldLength))
        return out
    }

    @Test func damagedSafetensorsAreRefusedWithAClearError() throws {
        let good = try Self.sampleSafetensors().data()
        let one = try SafetensorsWriter(tensors: [.float32("w", shape: [2], values: [1, 2])]).data()
        func header(_ json: String) -> Data { Self.replacingHeader(of: one, with: json) }
        func length(_ value: UInt64) -> Data { Data((0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }) + Data("{}".utf8) }
        let cases: [(String, Data, String)] = [
            ("empty", Data(), "fewer than the 8"),
            ("five bytes", Data([1, 2, 3, 4, 5]), "fewer than the 8"),
            ("header length beyond any allowed", length(1 << 40), "not one the format allows"),
            ("header length beyond the file", length(4096), "runs beyond the file"),
            ("cut inside the header", good.prefix(40), "runs beyond the file"),
            ("cut inside the data", good.prefix(good.count - 3), "truncated"),
            ("not JSON", header("{\"w\": nonsense}"), "not JSON"),
            ("a JSON array", header("[1, 2, 3]"), "not a JSON object"),
            ("offsets beyond the file", header(#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#), "beyond the file"),
            ("shape and offsets disagree", header(#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#), "needs 12 bytes"),
            ("unknown dtype", header(#"{"w":{"dtype":"F7","shape":[2],"data_offsets":[0,8]}}"#), "unknown dtype F7"),
            ("offsets reversed", header(#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}}"#), "not [begin, end]"),
            ("negative size", header(#"{"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}"#), "at w.shape"),
            ("missing offsets", header(#"{"w":{"dtype":"F32","shape":[2]}}"#), "data_offsets is missing"),
            ("a hole", header(#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#), "hole"),
            (
                "an overlap",
                header(#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"v":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#),
                "overlaps"
            ),
            ("bytes after the data", header(#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#), "4 bytes follow"),
            (
                "metadata of numbers", header(#"{"__metadata__":{"epochs":3},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#),
                "__metadata__.epochs"
            ),
            (
                "a member that is no tensor", header(#"{"notes":{"a":"b"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#),
                "notes is not a tensor"
            ),
        ]
        try Self.withFolder { folder in
            for (index, (name, data, expected)) in cases.enumerated() {
                let file = folder.appendingPathComponent("case\(index).safetensors")
                try data.write(to: file)
                Self.expectRefused(expected, name) { try SafetensorsMetadataExtractor().extract(from: file) }
            }
        }
    }

    // MARK: ONNX

    /// An ONNX model written byte by byte: IR version 7, opset 13, a 2×3 FLOAT weight, an input
    /// `x` of FLOAT [batch, 3] and an output `y` of FLOAT16 with one open dimension.
    static func handWrittenONNX(rawBytes: Int = 24, properties: [(String, String)] = [("model_type", "tiny")]) -> Data {
        let weight =
            Proto.field(1, 2) + Proto.field(1, 3) + Proto.field(2, 1) + Proto.field(8, "w")
            + Proto.field(9, [UInt8](repeating: 0, count: rawBytes))
        let input =
            Proto.field(1, "x")
            + Proto.field(
                2,
                Proto.field(
                    1, Proto.field(1, 1) + Proto.field(2, Proto.field(1, Proto.field(2, "batch")) + Proto.field(1, Proto.field(1, 3)))))
        let output = Proto.field(1, "y") + Proto.field(2, Proto.field(1, Proto.field(1, 10) + Proto.field(2, Proto.field(1, [UInt8]()))))
        let graph = Proto.field(2, "g") + Proto.field(5, weight) + Proto.field(11, input) + Proto.field(12, output)
        let props = properties.flatMap { Proto.field(14, Proto.field(1, $0.0) + Proto.field(2, $0.1)) }
        return Data(Proto.field(1, 7) + Proto.field(2, "swift-test") + Proto.field(8, Proto.field(2, 13)) + Proto.field(7, graph) + props)
    }

    @Test func anONNXModelWrittenByHandIsRead() throws {
        try Self.withFolder { folder in
            let file = folder.appendingPathComponent("tiny.onnx")
            try Self.handWrittenONNX().write(to: file)
            let metadata = try ONNXMetadataExtractor().extract(from: file)
            #expect(metadata.format == .onnx && metadata.formatVersion == 7 && metadata.producer == "swift-test")
            #expect(
                metadata.operatorSets == ["ai.onnx": 13] && metadata.architecture == "tiny" && metadata.values == ["model_type": "tiny"])
            #expect(metadata.tensorCount == 1 && metadata.parameterCount == 6 && metadata.tensorTypes == ["FLOAT": 6])
            #expect(metadata.inputs == [TensorSignature(name: "x", elementType: "FLOAT", shape: [.symbol("batch"), .size(3)])])
            #expect(metadata.outputs == [TensorSignature(name: "y", elementType: "FLOAT16", shape: [.unknown])])
            #expect(metadata.inputs.first?.summary == "x: FLOAT [batch, 3]")
        }
    }

    @Test func damagedONNXIsRefusedWithAClearError() throws {
        let good = Self.handWrittenONNX()
        var random = SeededGenerator(seed: 33)
        let garbage = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) })
        let cases: [(String, Data, String)] = [
            ("empty", Data(), "the file is empty"),
            ("text", Data("# a README, not a model\n".utf8), "not a valid ONNX model"),
            ("garbage", garbage, "not a valid ONNX model"),
            ("cut inside the graph", good.prefix(good.count - 30), "truncated"),
            ("no graph", Data(Proto.field(1, 7) + Proto.field(8, Proto.field(2, 13))), "it has no graph"),
            ("no ir_version", Data(Proto.field(2, "x") + Proto.field(7, Proto.field(2, "g"))), "it has no ir_version"),
            ("an impossible ir_version", Data(Proto.field(1, 5000) + Proto.field(7, Proto.field(2, "g"))), "5000"),
            ("no operator set", Data(Proto.field(1, 7) + Proto.field(7, Proto.field(2, "g"))), "imports no operator set"),
            (
                "ir_version of the wrong wire type", Data(Proto.field(1, "seven") + Proto.field(7, Proto.field(2, "g"))),
                "ir_version is not a number"
            ),
            ("weights of the wrong size", Self.handWrittenONNX(rawBytes: 20), "holds 20 bytes of weights"),
            ("a group (wire type 3)", Data([0x0B, 0x0C]), "wire type 3"),
            ("field number 0", Data([0x00, 0x01]), "field number 0"),
            ("an endless number", Data([0x08] + [UInt8](repeating: 0xFF, count: 11)), "longer than 10 bytes"),
        ]
        try Self.withFolder { folder in
            for (index, (name, data, expected)) in cases.enumerated() {
                let file = folder.appendingPathComponent("case\(index).onnx")
                try data.write(to: file)
                Self.expectRefused(expected, name) { try ONNXMetadataExtractor().extract(from: file) }
            }
        }
    }

    @Test(.enabled(if: piperInstalled, "needs the Piper voice of scripts/setup"))
    func thePiperVoiceIsReadAndATruncatedCopyRefused() throws {
        let metadata = try ONNXMetadataExtractor().extract(from: Self.piperVoice)
        #expect(metadata.format == .onnx && metadata.architecture == "vits" && metadata.values["comment"] == "piper")
        #expect(metadata.inputs.map(\.name) == ["input", "input_lengths", "scales"] && metadata.outputs.map(\.name) == ["output"])
        #expect(metadata.inputs.first?.elementType == "INT64" && metadata.outputs.first?.shape?.count == 4)
        #expect(metadata.tensorTypes["FLOAT", default: 0] > 10_000_000, "a medium voice has millions of weights: \(metadata.tensorTypes)")
        try Self.withFolder { folder in
            for bytes in [1 << 20, 30 << 20] {
                let cut = folder.appendingPathComponent("cut-\(bytes).onnx")
                try TestEnvironment.writeTruncatedCopy(of: Self.piperVoice, to: cut, bytes: bytes)
                Self.expectRefused("truncated", "the voice cut after \(bytes) bytes") { try ONNXMetadataExtractor().extract(from: cut) }
            }
        }
    }

    /// What the `onnx` package reads in `model` (Tests/clients/onnx_reference.py).
    struct Reference: Decodable {
        let irVersion: Int
        let producer: String?
        let operatorSets: [String: Int]
        let values: [String: String]
        let inputs: [TensorSignature]
        let outputs: [TensorSignature]
        let tensorCount: Int
        let parameterCount: Int64
        let tensorTypes: [String: Int64]
    }

    static let referenceScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/onnx_reference.py")

    /// Runs the reference script with the venv's Python; its standard output.
    static func reference(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = TestEnvironment.venvPython
        process.arguments = [referenceScript.path] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let problems = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SDKError(.invalidInput, "onnx_reference.py failed: \(String(decoding: problems, as: UTF8.self))")
        }
        return data
    }

    static var onnxPackageInstalled: Bool {
        guard let python = TestEnvironment.venvPython else { return false }
        let site = python.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: site.path)) ?? []
        return versions.contains {
            FileManager.default.fileExists(atPath: site.appendingPathComponent("\($0)/site-packages/onnx/__init__.py").path)
        }
    }

    @Test(.enabled(if: onnxPackageInstalled, "needs the onnx package in the venv of scripts/setup --tests"))
    func theReaderAgreesWithTheONNXPackage() throws {
        try Self.withFolder { folder in
            let made = folder.appendingPathComponent("reference.onnx")
            _ = try Self.reference(["make", made.path])
            for file in [made] + (Self.piperInstalled ? [Self.piperVoice] : []) {
                let expected = try JSONDecoder().decode(Reference.self, from: Self.reference(["describe", file.path]))
                let metadata = try ONNXMetadataExtractor().extract(from: file)
                #expect(metadata.formatVersion == expected.irVersion && metadata.producer == expected.producer, "\(file.lastPathComponent)")
                #expect(metadata.operatorSets == expected.operatorSets && metadata.values == expected.values, "\(file.lastPathComponent)")
                #expect(metadata.inputs == expected.inputs, "\(file.lastPathComponent): weights are not inputs")
                #expect(metadata.outputs == expected.outputs, "\(file.lastPathComponent)")
                #expect(
                    metadata.tensorCount == expected.tensorCount && metadata.parameterCount == expected.parameterCount,
                    "\(file.lastPathComponent)")
                #expect(metadata.tensorTypes == expected.tensorTypes, "\(file.lastPathComponent)")
            }
        }
    }

    // MARK: The registry

    @Test(.enabled(if: FileManager.default.fileExists(atPath: whisperModel.path), "needs the Whisper model of scripts/setup"))
    func foreignModelFilesAreRefusedByEachExtractorAndReadByNone() throws {
        let registry = ModelMetadataExtractorRegistry()
        for file in [Self.whisperModel, Self.sileroModel] where FileManager.default.fileExists(atPath: file.path) {
            #expect(try registry.metadata(ofFileAt: file) == nil, "no extractor reads ggml: \(file.lastPathComponent)")
            Self.expectRefused("not a valid GGUF model", "GGUF reading \(file.lastPathComponent)") {
                try GGUFMetadataExtractor().extract(from: file)
            }
            Self.expectRefused("not a valid safetensors file", "safetensors reading \(file.lastPathComponent)") {
                try SafetensorsMetadataExtractor().extract(from: file)
            }
            Self.expectRefused("not a valid ONNX model", "ONNX reading \(file.lastPathComponent)") {
                try ONNXMetadataExtractor().extract(from: file)
            }
        }
    }

    /// An app's extractor: a model format of its own, one `key=value` per line after a magic line.
    struct KeyValueModelExtractor: ModelMetadataExtractor {
        let format = ModelFormat.coreml
        var fileExtensions: [String] { ["kvmodel"] }
        func recognizes(head: [UInt8]) -> Bool { head.starts(with: Array("KVMODEL\n".utf8)) }
        func extract(from url: URL) throws -> ModelMetadata {
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst()
            let values = Dictionary(lines.map { line in (String(line.prefix { $0 != "=" }), String(line.drop { $0 != "=" }.dropFirst())) })
            { $1 }
            return ModelMetadata(
                format: format, name: values["name"], parameterCount: Int64(values["parameters"] ?? "") ?? 0, tensorCount: 0,
                fileSize: UInt64(try Data(contentsOf: url).count), values: values)
        }
    }

    @Test func theRegistryPicksByContentThenByExtensionAndAsksAppExtractorsFirst() throws {
        try Self.withFolder { folder in
            let registry = ModelMetadataExtractorRegistry()
            #expect(registry.formats == [.gguf, .safetensors, .onnx])
            let ggufNamedBin = folder.appendingPathComponent("weights.bin")
            try GGUFWriter.tinyLlama().write(to: ggufNamedBin)
            #expect(try registry.metadata(ofFileAt: ggufNamedBin)?.format == .gguf, "found by its magic bytes, whatever its name")
            let safetensorsNamedDat = folder.appendingPathComponent("weights.dat")
            try Self.sampleSafetensors().write(to: safetensorsNamedDat)
            #expect(try registry.metadata(ofFileAt: safetensorsNamedDat)?.format == .safetensors)
            let notes = folder.appendingPathComponent("notes.txt")
            try Data("just notes".utf8).write(to: notes)
            #expect(try registry.metadata(ofFileAt: notes) == nil)
            let textNamedONNX = folder.appendingPathComponent("notes.onnx")
            try Data("just notes".utf8).write(to: textNamedONNX)
            Self.expectRefused("not a valid ONNX model", "found by its extension") { try registry.metadata(ofFileAt: textNamedONNX) as Any }
            #expect(
                (try #require(throws: SDKError.self) { try registry.metadata(ofFileAt: folder.appendingPathComponent("gone.gguf")) }).code
                    == .fileNotFound)

            let own = folder.appendingPathComponent("voice.kvmodel")
            try Data("KVMODEL\nname=Mine\nparameters=42\n".utf8).write(to: own)
            #expect(try registry.metadata(ofFileAt: own) == nil)
            registry.register(KeyValueModelExtractor())
            #expect(registry.formats == [.coreml, .gguf, .safetensors, .onnx])
            let read = try #require(try registry.metadata(ofFileAt: own))
            #expect(read.name == "Mine" && read.parameterCount == 42 && read.values == ["name": "Mine", "parameters": "42"])
            registry.register(KeyValueModelExtractor())
            #expect(registry.formats == [.coreml, .gguf, .safetensors, .onnx], "registering a format again replaces its extractor")
        }
    }

    @Test(
        .enabled(
            if: piperInstalled && TestEnvironment.defaultModelFile != nil, "needs the default model and the Piper voice of scripts/setup"))
    func theRuntimeReadsAnInstalledModelsMetadata() throws {
        try Self.withFolder { folder throws in
            let runtime = RunAnywhereRuntime(
                configuration: RuntimeConfiguration(
                    modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: folder.appendingPathComponent("data")
                ))
            func metadata(_ id: String) throws -> ModelMetadata? { try runtime.modelMetadata(of: runtime.model(id: id)) }
            #expect(try metadata(SDKConstants.Models.defaultVoiceID)?.architecture == "vits")
            #expect(try metadata(RunAnywhere.defaultModelID)?.quantization == "Q4_1")
            #expect(try metadata(SDKConstants.Models.defaultSpeechRecognitionModelID) == nil, "no extractor reads ggml")
            #expect(try metadata("whisper-base.en") == nil, "not downloaded")
        }
    }
}

/// Protocol Buffers' wire format, written by hand: the ONNX test models.
enum Proto {
    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        repeat {
            out.append(UInt8(value & 0x7F) | (value > 0x7F ? 0x80 : 0))
            value >>= 7
        } while value > 0
        return out
    }

    /// A varint field.
    static func field(_ number: UInt64, _ value: UInt64) -> [UInt8] { varint(number << 3) + varint(value) }
    /// A length-delimited field.
    static func field(_ number: UInt64, _ bytes: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes }
    /// A string field.
    static func field(_ number: UInt64, _ text: String) -> [UInt8] { field(number, Array(text.utf8)) }
}
