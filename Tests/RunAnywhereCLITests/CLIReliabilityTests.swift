import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Damaged model files against the real binary: seeded mutations of the default model's header,
/// each imported and, when that succeeds, used; and of whisper tiny.en's, each added and used.
/// Every case must end in a clear error or an answer, never a signal: what GGUFReader and
/// WhisperGGMLReader cannot see, the check in a child process contains.
/// (A longer run: benchmarks/fuzz-models.)
@Suite(
    .serverLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct CLIReliabilityTests {
    /// `original` with 1 to 4 bytes changed: half in the first 4 KiB (counts, lengths, keys,
    /// scalar values), half anywhere in the first MiB (the vocabulary and merges).
    static func mutate(_ original: Data, _ random: inout SeededGenerator) -> Data {
        var bytes = original
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let span = Bool.random(using: &random) ? 4096 : min(1 << 20, original.count)
            let at = Int.random(in: 0..<span, using: &random)
            bytes[at] = [0x00, 0xFF, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
        }
        return bytes
    }

    @Test func damagedModelsEndInAnErrorOrAnAnswerNeverASignal() throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let original = try Data(contentsOf: try #require(TestEnvironment.defaultModelFile))
        var random = SeededGenerator(seed: 20_261_123)
        var outcomes: [String: Int] = [:]
        for index in 0..<12 {
            let file = home.appendingPathComponent("damaged-\(index).gguf")
            try Self.mutate(original, &random).write(to: file)
            let imported = try cli.run(["models", "import", file.path, "--id", "damaged-\(index)"])
            try FileManager.default.removeItem(at: file)
            #expect(
                !imported.crashed && [0, 1].contains(imported.status),
                "case \(index): import ended with \(imported.status): \(imported.stderr)")
            guard imported.status == 0 else {
                #expect(imported.stderr.hasPrefix("error: "), "case \(index): \(imported.stderr)")
                outcomes["refused by import", default: 0] += 1
                continue
            }
            let answer = try cli.run(["generate", "--model", "damaged-\(index)", "--max-tokens", "2", "--threads", "1", "Hi"])
            #expect(
                !answer.crashed && [0, 1].contains(answer.status), "case \(index): generate ended with \(answer.status): \(answer.stderr)")
            if answer.status == 1 { #expect(answer.stderr.contains("error: "), "case \(index): \(answer.stderr)") }
            outcomes[
                answer.status == 0 ? "answered" : answer.stderr.contains("crashed") ? "contained by the check" : "refused at load",
                default: 0] += 1
            _ = try cli.run(["models", "rm", "--yes", "damaged-\(index)"])
        }
        print("damaged models: \(outcomes)")
    }

    @Test(.enabled(if: TestEnvironment.speechInstalled, "needs the speech models of scripts/setup --build"))
    func damagedWhisperModelsEndInAnErrorOrATranscriptNeverASignal() throws {
        let (cli, home) = try CLIRunner.isolated(allEngines: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let speech = home.appendingPathComponent("hello.wav").path
        let spoken = try CLIRunner(environment: ["RUNANYWHERE_DATA": home.appendingPathComponent("data").path])
            .run(["speak", "Hello there, this is a test.", "--output", speech, "--threads", "1"])
        #expect(spoken.status == 0, "\(spoken.stderr)")
        let original = try Data(
            contentsOf: TestEnvironment.installedModelsDirectory.appendingPathComponent("whisper-tiny.en/ggml-tiny.en.bin"))

        // An intact copy is checked once in a child process, then remembered.
        let intact = home.appendingPathComponent("intact.bin")
        try original.write(to: intact)
        #expect(try cli.run(["models", "add", intact.absoluteString, "--category", "speech-recognition", "--id", "intact"]).status == 0)
        let heardIntact = try cli.run(["transcribe", speech, "--model", "intact", "--threads", "1"])
        #expect(heardIntact.status == 0 && heardIntact.stdout.lowercased().contains("hello"), "\(heardIntact.stderr)")
        let record = try String(contentsOf: home.appendingPathComponent("models/.checked-models.json"), encoding: .utf8)
        #expect(record.contains("intact"), "the whisper file passed the check process: \(record)")
        var random = SeededGenerator(seed: 20_261_126)
        var outcomes: [String: Int] = [:]
        for index in 0..<8 {
            let file = home.appendingPathComponent("damaged-\(index).bin")
            try Self.mutate(original, &random).write(to: file)
            let added = try cli.run(["models", "add", file.absoluteString, "--category", "speech-recognition", "--id", "damaged-\(index)"])
            try FileManager.default.removeItem(at: file)
            #expect(added.status == 0, "case \(index): \(added.stderr)")
            let heard = try cli.run(["transcribe", speech, "--model", "damaged-\(index)", "--threads", "1"])
            #expect(
                !heard.crashed && [0, 1].contains(heard.status), "case \(index): transcribe ended with \(heard.status): \(heard.stderr)")
            if heard.status == 1 { #expect(heard.stderr.hasPrefix("error: "), "case \(index): \(heard.stderr)") }
            outcomes[heard.status == 0 ? "transcribed" : "refused at load", default: 0] += 1
            _ = try cli.run(["models", "rm", "--yes", "damaged-\(index)"])
        }
        print("damaged whisper models: \(outcomes)")
    }

    /// The bundled Piper voice with one byte of its network changed (found by
    /// `benchmarks/fuzz-models --kind onnx`): ONNX Runtime aborts on it. The check in a child
    /// process takes the abort; `speak` says so and exits 1.
    @Test(.enabled(if: TestEnvironment.speechInstalled, "needs the speech models of scripts/setup --build"))
    func aVoiceThatAbortsONNXRuntimeIsRefusedByTheCheck() throws {
        let (cli, home) = try CLIRunner.isolated(allEngines: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let installed = TestEnvironment.installedModelsDirectory.appendingPathComponent("piper-en_US-joe-medium")
        let voice = home.appendingPathComponent("models/piper-en_US-joe-medium")
        try FileManager.default.createDirectory(at: voice, withIntermediateDirectories: true)
        for name in ["tokens.txt", "en_US-joe-medium.onnx.json"] {
            try FileManager.default.createSymbolicLink(
                at: voice.appendingPathComponent(name), withDestinationURL: installed.appendingPathComponent(name))
        }
        var network = try Data(contentsOf: installed.appendingPathComponent("en_US-joe-medium.onnx"))
        network[889_549] = 0xFF
        try network.write(to: voice.appendingPathComponent("en_US-joe-medium.onnx"))
        let output = home.appendingPathComponent("hello.wav")
        let spoken = try cli.run(["speak", "Hello there.", "--voice", "piper-en_US-joe-medium", "--output", output.path, "--threads", "1"])
        #expect(spoken.status == 1 && !spoken.crashed, "\(spoken.stderr)")
        #expect(spoken.stderr.contains("crashed ONNX Runtime while loading in a check process (signal 6, SIGABRT)"), "\(spoken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
