import Foundation
import RunAnywhere

@testable import RunAnywhereBenchmarks

enum Fixtures {
    static let device = BenchmarkDeviceInfo(
        modelName: "Test Machine", chipName: "Test CPU", totalMemoryBytes: 8 << 30, availableMemoryBytes: 4 << 30,
        osVersion: "Debian 12", appVersion: "0.1.0", sdkVersion: "0.1.0"
    )

    static let model = ModelInfo(
        id: "m", name: "Model, \"quoted\"", category: .language, format: .gguf, framework: .llamaCpp, downloadSize: 42)

    static func result(error: String? = nil, scenario: String = "Short generation") -> BenchmarkResult {
        var metrics = BenchmarkMetrics(
            loadTimeMs: 12.5, warmupTimeMs: 3, timeToFirstTokenMs: 20, tokensPerSecond: 42.5, endToEndLatencyMs: 2100,
            inputTokens: 12, outputTokens: 35, peakMemoryDeltaBytes: 10 << 20, sttTranscriptionTimeMs: 1, ttsSynthesisTimeMs: 2,
            vlmDescriptionTimeMs: 3, imageGenerationTimeMs: 4, error: error
        )
        metrics.repetitions = 3
        return BenchmarkResult(
            timestamp: Date(timeIntervalSince1970: 1_700_000_000), category: .llm, scenarioName: scenario,
            componentModelInfo: ComponentModelInfo(from: model, category: .llm), deviceInfo: device, metrics: metrics
        )
    }

    static func run(startedAt: TimeInterval = 1_700_000_000, results: [BenchmarkResult] = [result()]) -> BenchmarkRun {
        BenchmarkRun(
            startedAt: Date(timeIntervalSince1970: startedAt), completedAt: Date(timeIntervalSince1970: startedAt + 5), results: results,
            deviceInfo: device, status: .completed)
    }

    static func keys(_ value: some Encodable) throws -> Set<String> {
        Set((try JSONSerialization.jsonObject(with: JSONEncoder.runAnywhere.encode(value)) as? [String: Any] ?? [:]).keys)
    }

    /// Runs python3 with `script`, feeding `input`, and returns what it prints.
    static func python(_ script: String, input: Data) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }
}
