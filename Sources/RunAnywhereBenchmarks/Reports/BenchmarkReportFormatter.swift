import CSV
import Foundation
import RunAnywhere

/// A run as Markdown (to paste into a chat), JSON (spec 1.4) and CSV (spec 1.4 header, RFC 4180 quoting).
package enum BenchmarkReportFormatter {
    /// The export formats.
    package enum Format: String, Sendable, CaseIterable {
        /// A report format: Markdown, JSON or CSV.
        case md, json, csv
    }

    /// The JSON export's shape: when, on what, and the run.
    package struct Export: Codable, Sendable, Equatable {
        /// When the report was written.
        package let exportedAt: Date
        /// The machine the run was on.
        package let device: BenchmarkDeviceInfo
        /// The run reported.
        package let run: BenchmarkRun
    }

    /// The spec's CSV header, exactly.
    package static let csvHeader =
        "run_id,timestamp,category,scenario,model_id,model_name,framework,quantization,device,os,load_time_ms,warmup_ms,ttft_ms,tokens_per_sec,e2e_latency_ms,input_tokens,output_tokens,memory_delta_bytes,stt_time_ms,tts_time_ms,vlm_time_ms,diffusion_time_ms,error"

    /// The run in `format`.
    package static func format(_ run: BenchmarkRun, as format: Format, exportedAt: Date = Date()) throws -> String {
        switch format {
        case .md: markdown(run)
        case .json:
            String(
                decoding: try JSONEncoder.runAnywhere.encode(Export(exportedAt: exportedAt, device: run.deviceInfo, run: run)),
                as: UTF8.self) + "\n"
        case .csv: try csv(run)
        }
    }

    /// Device block, then results grouped by category with every metric that applies; errors are marked.
    package static func markdown(_ run: BenchmarkRun) -> String {
        func ms(_ value: Double) -> String { String(format: "%.0f ms", value) }
        var lines = ["# Benchmark Report", "", "**Date**: \(run.startedAt.formatted(.iso8601))", "**Status**: \(run.status.rawValue)"]
        if let duration = run.duration { lines.append("**Duration**: \(String(format: "%.1f", duration))s") }
        let device = run.deviceInfo
        lines += [
            "", "## Device", "- Model: \(device.modelName)", "- Chip: \(device.chipName)",
            "- RAM: \(String(format: "%.1f", Double(device.totalMemoryBytes) / 1_073_741_824)) GB (\(String(format: "%.1f", Double(device.availableMemoryBytes) / 1_073_741_824)) GB available)",
            "- OS: \(device.osVersion)", "- App: \(device.appVersion), SDK: \(device.sdkVersion)", "",
        ]
        let grouped = Dictionary(grouping: run.results, by: \.category)
        for category in BenchmarkCategory.allCases {
            guard let results = grouped[category], !results.isEmpty else { continue }
            lines += ["## \(category.displayName)", ""]
            for result in results {
                let m = result.metrics
                lines.append("### \(result.scenarioName) — \(result.componentModelInfo.modelName)")
                lines.append("- Model ID: \(result.componentModelInfo.modelId)")
                lines.append("- Framework: \(result.componentModelInfo.framework)")
                if let format = result.componentModelInfo.formatOrQuantization { lines.append("- Format: \(format)") }
                if let error = m.error {
                    lines += ["- **ERROR**: \(error)", ""]
                    continue
                }
                let range = { (min: Double?, max: Double?, unit: String) -> String in
                    guard let min, let max, m.repetitions ?? 1 > 1 else { return "" }
                    return String(format: " (min %.1f, max %.1f%@)", min, max, unit)
                }
                if let v = m.loadTimeMs { lines.append("- Load: \(ms(v))") }
                if let v = m.warmupTimeMs { lines.append("- Warmup: \(ms(v))") }
                if let v = m.timeToFirstTokenMs {
                    lines.append("- TTFT: \(ms(v))" + range(m.timeToFirstTokenMinMs, m.timeToFirstTokenMaxMs, " ms"))
                }
                if let v = m.tokensPerSecond {
                    lines.append("- Tokens/sec: \(String(format: "%.1f", v))" + range(m.tokensPerSecondMin, m.tokensPerSecondMax, ""))
                }
                if let v = m.promptTokensPerSecond { lines.append("- Prompt tokens/sec: \(String(format: "%.1f", v))") }
                if let v = m.decodeTokensPerSecond { lines.append("- Decode tokens/sec: \(String(format: "%.1f", v))") }
                if let v = m.draftAcceptanceRate { lines.append("- Speculative guesses kept: \(String(format: "%.0f", v * 100))%") }
                if let v = m.sentencesPerSecond {
                    lines.append(
                        "- Sentences/sec: \(String(format: "%.1f", v))" + range(m.sentencesPerSecondMin, m.sentencesPerSecondMax, ""))
                }
                lines.append("- E2E Latency: \(ms(m.endToEndLatencyMs))" + range(m.endToEndLatencyMinMs, m.endToEndLatencyMaxMs, " ms"))
                if let v = m.inputTokens { lines.append("- Input tokens: \(v)") }
                if let v = m.outputTokens { lines.append("- Output tokens: \(v)") }
                if let v = m.sttTranscriptionTimeMs { lines.append("- Transcription: \(ms(v))") }
                if let v = m.ttsSynthesisTimeMs { lines.append("- Synthesis: \(ms(v))") }
                if let v = m.vlmDescriptionTimeMs { lines.append("- VLM time: \(ms(v))") }
                if let v = m.imageGenerationTimeMs { lines.append("- Generation: \(ms(v))") }
                if let v = m.embeddingTimeMs { lines.append("- Embedding: \(ms(v))") }
                if let v = m.peakMemoryDeltaBytes { lines.append("- Memory delta: \(v / 1_048_576) MB") }
                if let v = m.peakRSSDeltaBytes { lines.append("- Peak RSS growth: \(v / 1_048_576) MB") }
                if let v = m.repetitions { lines.append("- Measured passes: \(v) (median shown)") }
                lines.append("")
            }
        }
        if run.results.isEmpty { lines += ["No results: no downloaded model in the selected categories.", ""] }
        return lines.joined(separator: "\n")
    }

    /// One row per result under the spec's header, CRLF line ends, written by CSV.swift.
    package static func csv(_ run: BenchmarkRun) throws -> String {
        func number(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "" }
        let stream = OutputStream.toMemory()
        stream.open()
        let writer = try CSVWriter(stream: stream, newline: .crlf)
        try writer.write(row: csvHeader.split(separator: ",").map(String.init))
        for r in run.results {
            let m = r.metrics
            writer.beginNewRow()
            try writer.write(row: [
                run.id, r.timestamp.formatted(.iso8601), r.category.rawValue, r.scenarioName, r.componentModelInfo.modelId,
                r.componentModelInfo.modelName, r.componentModelInfo.framework, r.componentModelInfo.formatOrQuantization ?? "",
                run.deviceInfo.modelName, run.deviceInfo.osVersion, number(m.loadTimeMs), number(m.warmupTimeMs),
                number(m.timeToFirstTokenMs), number(m.tokensPerSecond), number(m.endToEndLatencyMs),
                m.inputTokens.map(String.init) ?? "", m.outputTokens.map(String.init) ?? "", m.peakMemoryDeltaBytes.map(String.init) ?? "",
                number(m.sttTranscriptionTimeMs), number(m.ttsSynthesisTimeMs), number(m.vlmDescriptionTimeMs),
                number(m.imageGenerationTimeMs), m.error ?? "",
            ])
        }
        stream.close()
        let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
        return String(decoding: data, as: UTF8.self) + "\r\n"
    }
}
