import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Importing safetensors and ONNX files: what their metadata says decides what is registered, and
/// what no engine here runs is refused before anything is copied.
@Suite struct ModelImportFormatTests {
    func makeRuntime(_ folder: URL) -> RunAnywhereRuntime {
        RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data")
            ))
    }

    /// The models folder holds nothing but the registry and hidden files.
    func expectNothingLeft(in folder: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("models").path)) ?? []
        #expect(left.allSatisfy { $0.hasPrefix(".") || $0 == "registry.json" }, "left behind: \(left)", sourceLocation: sourceLocation)
    }

    @Test func aSafetensorsDiffusionCheckpointIsImportedWithItsMetadata() throws {
        try ModelMetadataTests.withFolder { folder in
            let source = folder.appendingPathComponent("Tiny Diffusion.safetensors")
            try ModelMetadataTests.sampleSafetensors().write(to: source)
            let runtime = makeRuntime(folder)
            let model = try runtime.importModel(at: source)
            #expect(model.id == "tiny-diffusion")
            #expect(model.category == .imageGeneration && model.framework == .stableDiffusionCpp && model.format == .safetensors)
            #expect(model.name == "Tiny Diffusion" && model.license == "MIT" && model.isDownloaded)
            #expect(model.downloadSize == Int64(try Data(contentsOf: source).count))
            #expect(try runtime.modelMetadata(of: model)?.tensorTypes == ["F32": 6, "F16": 4, "BF16": 1, "F4": 6])
        }
    }

    @Test func otherSafetensorsAndONNXFilesAreRefusedAndLeaveNothing() throws {
        try ModelMetadataTests.withFolder { folder in
            let runtime = makeRuntime(folder)
            let weights = folder.appendingPathComponent("llm.safetensors")
            try SafetensorsWriter(tensors: [.float32("model.layers.0.mlp.weight", shape: [2, 2], values: [1, 2, 3, 4])]).write(to: weights)
            let refusedWeights = try #require(throws: SDKError.self) { try runtime.importModel(at: weights) }
            #expect(
                refusedWeights.code == .modelIncompatible && refusedWeights.message.contains("convert_hf_to_gguf"),
                "\(refusedWeights.message)")

            let classifier = folder.appendingPathComponent("classifier.onnx")
            try ModelMetadataTests.handWrittenONNX().write(to: classifier)
            let refusedClassifier = try #require(throws: SDKError.self) { try runtime.importModel(at: classifier) }
            #expect(
                refusedClassifier.code == .modelIncompatible && refusedClassifier.message.contains("not a Piper voice"),
                "\(refusedClassifier.message)")

            let lonelyVoice = folder.appendingPathComponent("voice.onnx")
            try ModelMetadataTests.handWrittenONNX(properties: [("comment", "piper")]).write(to: lonelyVoice)
            let refusedVoice = try #require(throws: SDKError.self) { try runtime.importModel(at: lonelyVoice) }
            #expect(refusedVoice.code == .fileNotFound && refusedVoice.message.contains("tokens.txt"), "\(refusedVoice.message)")

            let cut = folder.appendingPathComponent("cut.onnx")
            try ModelMetadataTests.handWrittenONNX().prefix(40).write(to: cut)
            let refusedCut = try #require(throws: SDKError.self) { try runtime.importModel(at: cut) }
            #expect(refusedCut.code == .invalidModelFormat && refusedCut.message.contains("truncated"), "\(refusedCut.message)")

            let cutWeights = folder.appendingPathComponent("cut.safetensors")
            try ModelMetadataTests.sampleSafetensors().data().dropLast(2).write(to: cutWeights)
            let refusedCutWeights = try #require(throws: SDKError.self) { try runtime.importModel(at: cutWeights) }
            #expect(
                refusedCutWeights.code == .invalidModelFormat && refusedCutWeights.message.contains("truncated"),
                "\(refusedCutWeights.message)")

            expectNothingLeft(in: folder)
            #expect(runtime.availableModels().allSatisfy { $0.source == .remote })
        }
    }

    @Test(.enabled(if: ModelMetadataTests.piperInstalled, "needs the Piper voice of scripts/setup"))
    func aPiperVoiceIsImportedWithTheFilesBesideIt() throws {
        try ModelMetadataTests.withFolder { folder in
            let runtime = makeRuntime(folder)
            let model = try runtime.importModel(at: ModelMetadataTests.piperVoice, id: "joe-copy")
            #expect(
                model.category == .speechSynthesis && model.framework == .onnx && model.format == .onnx && model.name == "en_US-joe-medium")
            let copied = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("models/joe-copy").path).sorted()
            #expect(copied == ["en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json", "tokens.txt"])
            #expect(model.primaryFile?.lastPathComponent == "en_US-joe-medium.onnx")
            let metadata = try #require(try runtime.modelMetadata(of: model))
            #expect(metadata.architecture == "vits" && metadata.inputs.map(\.name) == ["input", "input_lengths", "scales"])
        }
    }
}
