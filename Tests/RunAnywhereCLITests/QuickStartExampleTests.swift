import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// examples/QuickStart, the app the README's SDK section walks through: a separate package that
/// depends on this one by path. `make test` builds its source as this package's `QuickStart` target,
/// which sees only the public API (`packageAccess: false`), as the example's own package does, and
/// checks that the products its manifest names are this package's. It streams an answer from the
/// default model and transcribes a file; with no engines installed it ends with the SDK's message
/// naming the install command.
@Suite(.processLane, .serialized)
struct QuickStartExampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let package = repository.appendingPathComponent("examples/QuickStart")
    static let binary = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("QuickStart")

    /// A runner for the example's binary, or a recorded issue when it was not built.
    static func example(environment: [String: String] = [:]) -> CLIRunner? {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            Issue.record("\(binary.path) is missing: make test builds it (swift build --build-tests)")
            return nil
        }
        return CLIRunner(environment: environment, executable: binary)
    }

    /// A package's manifest as SwiftPM reads it (`swift package dump-package`), with a scratch
    /// folder of its own: the tests' `swift test` holds the repository's.
    static func manifest(of package: URL) throws -> [String: Any] {
        let scratch = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let swift = ProcessInfo.processInfo.environment["SWIFT"] ?? "swift"
        let (status, output) = try CLIRunner.output(
            "/usr/bin/env", [swift, "package", "--package-path", package.path, "--scratch-path", scratch.path, "dump-package"])
        try #require(status == 0, "\(output)")
        let start = try #require(output.firstIndex(of: "{"), "\(output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(output[start...].utf8)) as? [String: Any])
    }

    /// The example's own package depends on this one's library products by name; a product renamed
    /// or dropped here would break it (and every app) while the build here still passed.
    @Test func theExamplesManifestNamesThisPackagesLibraries() throws {
        let example = try Self.manifest(of: Self.package)
        let this = try Self.manifest(of: Self.repository)
        let libraries = Set(
            (this["products"] as? [[String: Any]] ?? []).filter { ($0["type"] as? [String: Any])?["library"] != nil }
                .compactMap { $0["name"] as? String })
        let named = (example["targets"] as? [[String: Any]] ?? []).flatMap { $0["dependencies"] as? [[String: Any]] ?? [] }
            .compactMap { ($0["product"] as? [Any])?.first as? String }
        #expect(!named.isEmpty && libraries.contains("RunAnywhere"), "\(named) \(libraries)")
        #expect(Set(named).isSubset(of: libraries), "\(Set(named).subtracting(libraries)) are not libraries of this package")
        // The target built here from the same source uses what the example's package uses.
        let target = (this["targets"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "QuickStart" }
        let used = (target?["dependencies"] as? [[String: Any]] ?? []).compactMap { ($0["byName"] as? [Any])?.first as? String }
        #expect(Set(used) == Set(named), "\(used) \(named)")
    }

    @Test(
        .enabled(
            if: TestEnvironment.speechInstalled && TestEnvironment.engineInstalled,
            "needs the engines and models: run scripts/setup --tests --build tests"))
    func streamsAnAnswerAndTranscribesAFile() throws {
        guard let example = Self.example() else { return }
        try CLIRunner.withData { cli, folder in
            let sentence = "The quick brown fox jumps over the lazy dog."
            let wav = folder.appendingPathComponent("fox.wav").path
            let spoken = try cli.run(["speak", sentence, "--output", wav, "--threads", "1"])
            try #require(spoken.status == 0, "\(spoken.stderr)")
            let ran = try example.run(["--threads", "1", "--max-tokens", "8", "--transcribe", wav, "Name", "a", "color."])
            #expect(ran.status == 0 && !ran.crashed, "\(ran.stderr)")
            let lines = ran.stdout.split(separator: "\n").map(String.init)
            // The answer streamed, then its measurements: "[model: N tokens, R tokens/s]".
            let summary = try #require(lines.first { $0.hasPrefix("[\(RunAnywhere.defaultModelID): ") }, "\(ran.stdout)")
            let tokens = Int(summary.split(separator: " ")[1]) ?? 0
            #expect((1...8).contains(tokens), "\(summary)")
            #expect(
                !(ran.stdout.components(separatedBy: "[\(RunAnywhere.defaultModelID): ").first ?? "").trimmingCharacters(
                    in: .whitespacesAndNewlines
                ).isEmpty)
            let transcript = try #require(lines.first { $0.hasPrefix("transcript: ") }, "\(ran.stdout)")
            let (errors, words) = wordErrors(sentence, String(transcript.dropFirst("transcript: ".count)))
            #expect(errors <= 2, "\(errors) of \(words) words wrong in \(transcript)")
        }
    }

    /// On a machine where the engines were never installed, the app gets a clear error that names
    /// the one command that installs them: no crash, no signal. With the models there (a link to
    /// the installed ones) it is the engine that is missing; with nothing, the default model.
    @Test(.enabled(if: TestEnvironment.defaultModelFile != nil, "needs the default model: run scripts/setup"))
    func withoutEnginesItNamesTheInstallCommand() throws {
        let home = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["RUNANYWHERE_HOME": home.path, "RUNANYWHERE_DATA": home.appendingPathComponent("data").path]
        guard let example = Self.example(environment: environment) else { return }
        let nothing = try example.run(["--max-tokens", "4"])
        #expect(nothing.status == 1 && !nothing.crashed, "\(nothing.stdout) \(nothing.stderr)")
        #expect(
            nothing.stderr.contains("is not downloaded") && nothing.stderr.contains("\(EngineInstallation.command) installs it"),
            "\(nothing.stderr)")

        try FileManager.default.createSymbolicLink(
            at: home.appendingPathComponent("models"), withDestinationURL: TestEnvironment.installedModelsDirectory)
        let noEngine = try example.run(["--max-tokens", "4"])
        #expect(noEngine.status == 1 && !noEngine.crashed, "\(noEngine.stdout) \(noEngine.stderr)")
        #expect(noEngine.stderr.contains("llama.cpp is not installed"), "\(noEngine.stderr)")
        #expect(noEngine.stderr.contains("install the engines with `\(EngineInstallation.command)`"), "\(noEngine.stderr)")
    }
}
