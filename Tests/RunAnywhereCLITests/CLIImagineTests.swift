import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere imagine` on the diffusion fixture (random weights: the image is noise).
@Suite(
    .processLane, .serialized,
    .enabled(
        if: TestEnvironment.diffusionFixture != nil,
        "needs the diffusion fixture and libstable-diffusion: run scripts/setup --tests --build tests"))
struct CLIImagineTests {
    static let small = ["--width", "64", "--height", "64", "--steps", "2", "--guidance", "1", "--threads", "1"]

    @Test func imagineWritesThePNG() throws {
        try CLIRunner.withData { cli, folder in
            let file = folder.appendingPathComponent("circle.png")
            let shown = try cli.run(["imagine", "A red circle on a white background", "--output", file.path, "--seed", "5"] + Self.small)
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stderr.contains("test fixture with random weights") && shown.stderr.contains("step 2/2"), "\(shown.stderr)")
            let first = try Data(contentsOf: file)
            let probe = try ImageProbe.probe(first)
            #expect(probe.format == .png && probe.width == 64 && probe.height == 64)
            let result = try cli.run(
                ["imagine", "A red circle on a white background", "-o", file.path, "--seed", "5", "--json"] + Self.small
            ).json()
            #expect(result["output"] as? String == file.path && result["modelId"] as? String == SDKConstants.Models.diffusionFixtureID)
            #expect(result["width"] as? Int == 64 && result["seedUsed"] as? Int == 5 && result["steps"] as? Int == 2)
            #expect((result["generationTimeMs"] as? Int ?? 0) > 0 && result["bytes"] as? Int == first.count)
            #expect(try Data(contentsOf: file) == first, "the same seed and options draw the same image")
        }
    }

    /// A fixture whose key-norm scale claims 255 values instead of 128: a valid GGUF file that
    /// makes stable-diffusion.cpp divide by zero (SIGFPE). The check in a child process takes the
    /// crash; the command says so and exits 1.
    @Test func aFileThatCrashesTheEngineIsRefusedByTheCheck() throws {
        let (cli, home) = try CLIRunner.isolated(allEngines: true)
        defer { try? FileManager.default.removeItem(at: home) }
        var bytes = try Data(contentsOf: try #require(TestEnvironment.diffusionFixture))
        let name = Data("model.diffusion_model.single_blocks.0.norm.key_norm.scale".utf8)
        let entry = try #require(bytes.range(of: name))
        bytes[entry.upperBound + 4] = 255  // after the name: 4 bytes of dimension count, then the first dimension (128)
        let file = home.appendingPathComponent("crashing.gguf")
        try bytes.write(to: file)
        #expect(try cli.run(["models", "import", file.path, "--id", "crashing"]).status == 0)
        let output = home.appendingPathComponent("out.png")
        let drawn = try cli.run(["imagine", "A red circle", "--model", "crashing", "--output", output.path] + Self.small)
        #expect(drawn.status == 1 && !drawn.crashed, "\(drawn.stderr)")
        #expect(
            drawn.stderr.contains("crashed stable-diffusion.cpp while loading in a check process (signal 8, SIGFPE)"), "\(drawn.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func badRequestsExitWithClearErrorsAndWriteNothing() throws {
        try CLIRunner.withData { cli, folder in
            let file = folder.appendingPathComponent("out.png")
            for (arguments, fragment) in [
                (["--width", "60"], "width must be 64 to 2048"),
                (["--steps", "0"], "steps must be 1 to 150"),
                (["--sampler", "lms"], "no 'lms' sampler"),
                (["--model", RunAnywhere.defaultModelID], "not an image-generation model"),
                (["--model", "no-such-model"], "no-such-model"),
            ] {
                let output = try cli.run(["imagine", "A cat", "-o", file.path] + Self.small + arguments)
                #expect(
                    output.status == 1 && output.stderr.contains("error: ") && output.stderr.contains(fragment),
                    "\(arguments): \(output.stderr)")
            }
            let nowhere = try cli.run(["imagine", "A cat", "-o", folder.appendingPathComponent("missing/out.png").path] + Self.small)
            #expect(nowhere.status == 1 && nowhere.stderr.contains("does not exist"), "\(nowhere.stderr)")
            let sampler = try cli.run(["imagine", "A cat", "-o", file.path, "--sampler", "bogus"])
            #expect(sampler.status != 0 && sampler.stderr.contains("unknown sampler 'bogus'"), "\(sampler.stderr)")
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func ctrlCStopsAndWritesNothing() async throws {
        try await CLIRunner.withData { cli, folder in
            let file = folder.appendingPathComponent("long.png")
            // 150 steps at 256×256 take far longer than one step and the delay on any machine.
            let arguments = [
                "imagine", "A long walk", "-o", file.path, "--width", "256", "--height", "256", "--steps", "150", "--threads", "1",
            ]
            let output = try await cli.runInterrupted(arguments, once: "step 1/", after: .milliseconds(500))
            #expect(output.status == 130, "\(output.stderr)")
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }
}
