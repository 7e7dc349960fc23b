import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere describe` on the vision-language fixture (random weights: the answer is noise).
@Suite(
    .processLane, .serialized,
    .enabled(
        if: TestEnvironment.visionFixture != nil && TestEnvironment.ffmpeg != nil,
        "needs the vision-language fixture and ffmpeg: run scripts/setup --tests --build tests"))
struct CLIVisionTests {
    @Test func describeAnImage() throws {
        try CLIRunner.withData { cli, folder in
            let image = folder.appendingPathComponent("red.jpg")
            try TestEnvironment.encodeImage(width: 96, height: 64, as: "mjpeg").write(to: image)
            let streamed = try cli.run(["describe", image.path, "--max-tokens", "5", "--threads", "1", "--temperature", "0"])
            #expect(streamed.status == 0, "\(streamed.stderr)")
            #expect(streamed.stderr.contains("test fixture with random weights"), "the fixture says what it is: \(streamed.stderr)")
            let result = try cli.run([
                "describe", image.path, "--prompt", "What colour is it?", "--max-tokens", "5", "--threads", "1", "--temperature", "0",
                "--json",
            ]).json()
            #expect(result["modelId"] as? String == SDKConstants.Models.visionFixtureID)
            #expect((result["completionTokens"] as? Int ?? 0) > 0 && (result["promptTokens"] as? Int ?? 0) > 10)
            #expect(result["imageEncodeTimeMs"] as? Double != nil && result["tokensPerSecond"] as? Double != nil)
        }
    }

    @Test func badImagesExitWithClearErrors() throws {
        try CLIRunner.withData { cli, folder in
            let text = folder.appendingPathComponent("notes.png")
            try Data("just text".utf8).write(to: text)
            let good = folder.appendingPathComponent("red.png")
            try TestEnvironment.encodeImage(width: 32, height: 32).write(to: good)
            for (arguments, fragment) in [
                (["describe", text.path], "not an image"),
                (["describe", folder.appendingPathComponent("missing.png").path], "No such file"),
                (["describe", folder.path], "it is a folder; name a file"),
                (["describe", good.path, "--model", RunAnywhere.defaultModelID], "no vision projector"),
                (["describe", good.path, "--model", "no-such-model"], "no-such-model"),
            ] {
                let output = try cli.run(arguments + ["--threads", "1"])
                #expect(
                    output.status == 1 && output.stderr.hasPrefix("error: ") && output.stderr.contains(fragment),
                    "\(arguments): \(output.stderr)")
            }
        }
    }
}
