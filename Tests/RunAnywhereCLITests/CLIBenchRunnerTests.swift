import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere benchrunner` as a user runs it: short loops, 1 thread.
@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.speechInstalled, "scripts/setup --tests installs sherpa-onnx (ONNX Runtime) and the speech models"))
struct CLIBenchRunnerTests {
    private let short = ["--measure-seconds", "0.4", "--warmup-frames", "3", "--frame-count", "8", "--threads", "1"]
    /// Nothing listens on port 1 of the loopback address: a POST there fails at once.
    private let deadEndpoint = "http://127.0.0.1:1/telemetry"

    @Test func aRunPostsThePayloadToTheEndpoint() async throws {
        let server = try await TestHTTPServer.start(routes: ["/telemetry": .status(201)])
        let url = server.url("/telemetry").absoluteString
        let output = try CLIRunner().run(["benchrunner"] + short + ["--telemetry-url", url, "--json"])
        try await server.shutdown()
        #expect(output.status == 0, "\(output.stderr)")
        let printed = try output.json()
        let posts = server.requests.filter { $0.method == "POST" && $0.path == "/telemetry" }
        #expect(posts.count == 1)
        let post = try #require(posts.first)
        let sent = try #require(try JSONSerialization.jsonObject(with: post.body) as? [String: Any])
        let metrics = try #require(sent["metrics"] as? [String: Any])
        #expect(sent["platform"] as? String == "linux")
        #expect(metrics["run_id"] as? String == (printed["metrics"] as? [String: Any])?["run_id"] as? String)
        #expect(metrics["model_id"] as? String == "GradientIdentity" && metrics["backend"] as? String == "onnxruntime")
        #expect(metrics["telemetry_post_url"] as? String == url)
        #expect((metrics["frames_processed"] as? Int ?? 0) > 0)
        #expect(output.stderr.contains("Telemetry accepted (HTTP 201)"))
    }

    @Test func aDeadEndpointStillFinishesTheRun() throws {
        let output = try CLIRunner().run(["benchrunner"] + short + ["--telemetry-url", deadEndpoint])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("GradientIdentity") && output.stdout.contains("fps"))
        #expect(output.stderr.contains("telemetry to \(deadEndpoint) not sent"))
    }

    /// The environment configures the run, TensorFlow Lite included: GradientIdentity runs on LiteRT.
    @Test(.enabled(if: TestEnvironment.liteRTInstalled, "scripts/setup --tests installs LiteRT"))
    func theEnvironmentConfiguresTheRunOnTFLite() throws {
        var runner = CLIRunner()
        runner.environment = [
            "BENCH_WARMUP_FRAMES": "2", "BENCH_MEASURE_SECONDS": "0.3", "BENCH_FRAME_COUNT": "5", "BENCH_USE_TFLITE": "1",
            "BENCH_TELEMETRY_URL": deadEndpoint,
        ]
        let output = try runner.run(["benchrunner", "--json", "--threads", "1"])
        #expect(output.status == 0, "\(output.stderr)")
        let metrics = try #require(try output.json()["metrics"] as? [String: Any])
        #expect(metrics["warmup_frames"] as? Int == 2 && metrics["backend"] as? String == "tflite")
        #expect(metrics["telemetry_post_url"] as? String == deadEndpoint)
        #expect((metrics["frames_processed"] as? Int ?? 0) > 0)
    }

    /// When LiteRT cannot be opened (here a file that is not a library stands in for it), the run
    /// falls back to ONNX Runtime and says why, as the seed falls back to Core ML.
    @Test func tfLiteFallsBackToONNXRuntimeWithTheReason() throws {
        let broken = try TestEnvironment.temporaryDirectory("litert").appendingPathComponent("libLiteRt.so")
        try Data("not a library".utf8).write(to: broken)
        var runner = CLIRunner()
        runner.environment = ["RUNANYWHERE_TFLITE_LIB": broken.path]
        let output = try runner.run(["benchrunner", "--json", "--use-tflite", "--telemetry-url", deadEndpoint] + short)
        #expect(output.status == 0, "\(output.stderr)")
        let metrics = try #require(try output.json()["metrics"] as? [String: Any])
        #expect(metrics["backend"] as? String == "onnxruntime" && (metrics["frames_processed"] as? Int ?? 0) > 0)
        #expect(output.stderr.contains("TensorFlow Lite cannot run GradientIdentity here") && output.stderr.contains(broken.path))
        #expect(output.stderr.contains("running on ONNX Runtime"))
    }

    @Test func badSettingsAreRefusedBeforeRunning() throws {
        var runner = CLIRunner()
        runner.environment = ["BENCH_FRAME_COUNT": "0"]
        let output = try runner.run(["benchrunner"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("frame count must be between 1 and 1000, not 0"))
        let flag = try CLIRunner().run(["benchrunner", "--telemetry-url", "nowhere"])
        #expect(flag.status == 1 && flag.stderr.contains("must be an http or https URL"))
        let speech = try CLIRunner().run(["benchrunner", "--model", SDKConstants.Models.defaultVoiceID, "--telemetry-url", deadEndpoint])
        #expect(speech.status == 1 && speech.stderr.contains("does not work in frames"))
    }

    /// Installed models through the SDK: the voice activity detector (32 ms frames), one decode
    /// step of the default language model per frame, and Whisper over one-second windows.
    @Test(arguments: [
        (SDKConstants.Models.voiceActivityModelID, "whisper.cpp", "0.5"),
        (SDKConstants.Models.defaultModelID, "llama.cpp", "1"),
        (SDKConstants.Models.defaultSpeechRecognitionModelID, "whisper.cpp", "1"),
    ])
    func installedModelsRunFrameByFrame(_ model: String, _ backend: String, _ seconds: String) throws {
        let output = try CLIRunner().run([
            "benchrunner", "--model", model, "--measure-seconds", seconds, "--warmup-frames", "2", "--frame-count", "4", "--threads", "1",
            "--telemetry-url", deadEndpoint, "--json",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let metrics = try #require(try output.json()["metrics"] as? [String: Any])
        #expect(metrics["model_id"] as? String == model && metrics["backend"] as? String == backend)
        #expect((metrics["frames_processed"] as? Int ?? 0) > 0 && (metrics["model_file_mb"] as? Double ?? 0) > 0.5)
    }

    /// The vision-language fixture (SmolVLM's shape, random weights: the real code path, not real
    /// answers): one gradient frame encoded and one token generated per frame.
    @Test(.enabled(if: TestEnvironment.visionFixture != nil, "scripts/setup --tests writes the vision fixture"))
    func theVisionModelRunsOverImageFrames() throws {
        let output = try CLIRunner().run([
            "benchrunner", "--model", SDKConstants.Models.visionFixtureID, "--measure-seconds", "1", "--warmup-frames", "1",
            "--frame-count", "3", "--threads", "1", "--telemetry-url", deadEndpoint, "--json",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let metrics = try #require(try output.json()["metrics"] as? [String: Any])
        #expect(metrics["model_id"] as? String == SDKConstants.Models.visionFixtureID && metrics["backend"] as? String == "llama.cpp")
        #expect((metrics["frames_processed"] as? Int ?? 0) > 0 && (metrics["latency_p50_ms"] as? Double ?? 0) > 0)
    }

    @Test func ctrlCStopsTheRunWithoutSending() async throws {
        let output = try await CLIRunner().runInterrupted(
            ["benchrunner", "--measure-seconds", "30", "--telemetry-url", deadEndpoint], once: "frames", after: .milliseconds(500))
        #expect(output.status == 130, "\(output.stderr)")
        #expect(output.stderr.contains("Cancelled; nothing was sent."))
    }
}
