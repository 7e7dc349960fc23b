import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// Seeded damage (1 to 8 bytes, half in the first 512) to a zip and a tar.gz model archive:
/// each extraction gives the folder or an `SDKError`, never a trap, and leaves no staging folder
/// behind. `RUNANYWHERE_FUZZ_CASES` sets the number per kind (40 by default).
@Suite struct ArchiveFuzzTests {
    /// A voice-like folder (`voice/model.onnx`, `voice/tokens.txt`, `voice/espeak-ng-data/phontab`)
    /// packed by Python's zipfile or by tar.
    static func archive(_ type: ArchiveType, in folder: URL) throws -> URL {
        let source = folder.appendingPathComponent("source/voice/espeak-ng-data")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        var random = SeededGenerator(seed: 9)
        try Data((0..<20_000).map { _ in UInt8.random(in: 0...15, using: &random) }).write(
            to: source.deletingLastPathComponent().appendingPathComponent("model.onnx"))
        try Data((0..<300).map { "token\($0) \($0)\n" }.joined().utf8).write(
            to: source.deletingLastPathComponent().appendingPathComponent("tokens.txt"))
        try Data(repeating: 3, count: 4096).write(to: source.appendingPathComponent("phontab"))
        let output = folder.appendingPathComponent(type == .zip ? "voice.zip" : "voice.tar.gz")
        let process = Process()
        process.currentDirectoryURL = folder.appendingPathComponent("source")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            type == .zip ? ["python3", "-m", "zipfile", "-c", output.path, "voice"] : ["tar", "-czf", output.path, "voice"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return output
    }

    @Test(arguments: [ArchiveType.zip, .tarGz])
    func damagedArchivesExtractOrFailClearly(type: ArchiveType) throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = try Self.archive(type, in: folder)
        let original = try Data(contentsOf: archive)
        let models = folder.appendingPathComponent("models")
        try ArchiveExtractor.extract(archive, type: type, into: models.appendingPathComponent("intact"))
        #expect(FileManager.default.fileExists(atPath: models.appendingPathComponent("intact/voice/espeak-ng-data/phontab").path))

        var random = SeededGenerator(seed: 10)
        var outcomes: [String: Int] = [:]
        for index in 0..<(TestEnvironment.fuzzCases()) {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let at = Int.random(in: 0..<(Bool.random(using: &random) ? min(512, bytes.count) : bytes.count), using: &random)
                bytes[at] = [0x00, 0xFF, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
            }
            try bytes.write(to: archive)
            let destination = models.appendingPathComponent("case-\(index)")
            do {
                try ArchiveExtractor.extract(archive, type: type, into: destination)
                outcomes["extracted", default: 0] += 1
            } catch let error as SDKError {
                #expect(error.message.contains(archive.lastPathComponent), "case \(index): \(error.message)")
                #expect(!FileManager.default.fileExists(atPath: destination.path), "case \(index): a failed extraction leaves nothing")
                outcomes["refused", default: 0] += 1
            } catch {
                Issue.record("case \(index): \(error)")
            }
            let staging = try FileManager.default.contentsOfDirectory(atPath: models.path).filter { $0.hasPrefix(".") }
            #expect(staging.isEmpty, "case \(index): \(staging)")
        }
        print("damaged \(type) archives: \(outcomes)")
    }
}
