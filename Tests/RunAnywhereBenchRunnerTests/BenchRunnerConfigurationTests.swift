import Foundation
import RunAnywhere
import RunAnywhereBenchRunner
import Testing

@Suite struct BenchRunnerConfigurationTests {
    @Test func theSeedsDefaults() throws {
        let configuration = try BenchRunnerConfiguration(environment: [:])
        #expect(configuration == BenchRunnerConfiguration())
        #expect(configuration.warmupFrames == 45 && configuration.measureSeconds == 60 && configuration.extendedMinutes == nil)
        #expect(
            configuration.frameCount == 150 && configuration.telemetryURL == "http://localhost:8000/telemetry" && !configuration.useTFLite)
    }

    @Test func everyVariableIsRead() throws {
        let configuration = try BenchRunnerConfiguration(environment: [
            "BENCH_WARMUP_FRAMES": "10", "BENCH_MEASURE_SECONDS": "2.5", "BENCH_EXTENDED_MINUTES": "0.5", "BENCH_FRAME_COUNT": "30",
            "BENCH_TELEMETRY_URL": "http://10.0.0.2:9000/telemetry", "BENCH_USE_TFLITE": "1",
        ])
        #expect(configuration.warmupFrames == 10 && configuration.measureSeconds == 2.5 && configuration.extendedMinutes == 0.5)
        #expect(configuration.frameCount == 30 && configuration.telemetryURL == "http://10.0.0.2:9000/telemetry" && configuration.useTFLite)
        #expect(configuration.notes.isEmpty)
    }

    /// As the seed says: set without a usable number, or enabled with BENCH_ENABLE_EXTENDED, the pass lasts 15 minutes.
    @Test(arguments: [
        ["BENCH_EXTENDED_MINUTES": "yes"], ["BENCH_EXTENDED_MINUTES": "0"], ["BENCH_EXTENDED_MINUTES": "-3"],
        ["BENCH_ENABLE_EXTENDED": "1"],
    ])
    func theExtendedPassDefaultsToFifteenMinutes(_ environment: [String: String]) throws {
        let configuration = try BenchRunnerConfiguration(environment: environment)
        #expect(configuration.extendedMinutes == 15)
        #expect(configuration.notes.count == (environment["BENCH_EXTENDED_MINUTES"] == nil ? 0 : 1))
    }

    @Test(arguments: [
        ("BENCH_WARMUP_FRAMES", "ten", "BENCH_WARMUP_FRAMES=ten is not a whole number"),
        ("BENCH_WARMUP_FRAMES", "-1", "warm-up frame count"),
        ("BENCH_MEASURE_SECONDS", "0", "measured loop"),
        ("BENCH_MEASURE_SECONDS", "nan", "BENCH_MEASURE_SECONDS=nan is not a number"),
        ("BENCH_FRAME_COUNT", "0", "frame count"),
        ("BENCH_FRAME_COUNT", "100000", "frame count"),
        ("BENCH_TELEMETRY_URL", "localhost:8000", "http or https URL"),
        ("BENCH_TELEMETRY_URL", "ftp://host/telemetry", "http or https URL"),
    ])
    func badValuesAreRefusedNamingTheSetting(_ name: String, _ value: String, _ message: String) {
        #expect {
            try BenchRunnerConfiguration(environment: [name: value])
        } throws: { error in
            (error as? SDKError)?.code == .invalidInput && (error as? SDKError)?.message.contains(message) == true
        }
    }
}
