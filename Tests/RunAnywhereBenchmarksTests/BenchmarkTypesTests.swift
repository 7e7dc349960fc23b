import Foundation
import RunAnywhere
import Testing

@testable import RunAnywhereBenchmarks

@Suite struct BenchmarkTypesTests {
    @Test func jsonKeysAreExactlyTheSpecs() throws {
        let run = Fixtures.run()
        #expect(try Fixtures.keys(run) == ["id", "startedAt", "completedAt", "results", "deviceInfo", "status"])
        #expect(
            try Fixtures.keys(run.results[0]) == [
                "id", "timestamp", "category", "scenarioName", "componentModelInfo", "deviceInfo", "metrics",
            ])
        #expect(
            try Fixtures.keys(run.results[0].componentModelInfo) == [
                "modelId", "modelName", "framework", "category", "formatOrQuantization", "downloadSizeBytes",
            ])
        #expect(
            try Fixtures.keys(Fixtures.device) == [
                "modelName", "chipName", "totalMemoryBytes", "availableMemoryBytes", "osVersion", "appVersion", "sdkVersion",
            ])
        let specMetrics: Set = [
            "loadTimeMs", "warmupTimeMs", "timeToFirstTokenMs", "tokensPerSecond", "endToEndLatencyMs", "inputTokens", "outputTokens",
            "peakMemoryDeltaBytes", "sttTranscriptionTimeMs", "ttsSynthesisTimeMs", "vlmDescriptionTimeMs", "imageGenerationTimeMs",
            "error",
        ]
        let metricKeys = try Fixtures.keys(Fixtures.result(error: "x").metrics)
        #expect(specMetrics.isSubset(of: metricKeys), "missing: \(specMetrics.subtracting(metricKeys))")
        #expect(metricKeys.subtracting(specMetrics) == ["repetitions"], "only additive fields beyond the spec")
        let export = try BenchmarkReportFormatter.format(run, as: .json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(export.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["exportedAt", "device", "run"])
        #expect((object["run"] as? [String: Any])?["status"] as? String == "completed")
        #expect(((object["run"] as? [String: Any])?["results"] as? [[String: Any]])?.first?["category"] as? String == "llm")
        #expect(try JSONDecoder.runAnywhere.decode(BenchmarkReportFormatter.Export.self, from: Data(export.utf8)).run == run)
        #expect(BenchmarkCategory.allCases.map(\.rawValue) == ["llm", "stt", "tts", "vlm", "diffusion", "embedding"])
        #expect(
            BenchmarkCategory.stt.modelCategory == .speechRecognition && BenchmarkCategory.vlm.modelCategory == .multimodal
                && BenchmarkCategory.embedding.modelCategory == .embedding)
    }

    @Test func csvHasTheSpecsHeaderAndSurvivesAStandardReader() throws {
        let awkward = "load failed: \"model.gguf\", line 3\nsecond line, with comma"
        let run = Fixtures.run(results: [Fixtures.result(), Fixtures.result(error: awkward, scenario: "Odd, \"quoted\" scenario")])
        let csv = try BenchmarkReportFormatter.csv(run)
        #expect(csv.hasPrefix(BenchmarkReportFormatter.csvHeader + "\r\n"))
        #expect(
            BenchmarkReportFormatter.csvHeader
                == "run_id,timestamp,category,scenario,model_id,model_name,framework,quantization,device,os,load_time_ms,warmup_ms,ttft_ms,tokens_per_sec,e2e_latency_ms,input_tokens,output_tokens,memory_delta_bytes,stt_time_ms,tts_time_ms,vlm_time_ms,diffusion_time_ms,error"
        )
        let parsed = try Fixtures.python(
            "import csv, json, sys; print(json.dumps(list(csv.reader(sys.stdin, strict=True))))", input: Data(csv.utf8))
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [[String]])
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.count == 23 })
        #expect(rows[2][22] == awkward)
        #expect(rows[2][3] == "Odd, \"quoted\" scenario")
        #expect(rows[1][5] == "Model, \"quoted\"")
        #expect(rows[1][13] == "42.5" && rows[1][15] == "12" && rows[1][22] == "")
    }

    @Test func markdownHasTheDeviceBlockTheMetricsAndMarksErrors() {
        let markdown = BenchmarkReportFormatter.markdown(Fixtures.run(results: [Fixtures.result(), Fixtures.result(error: "boom")]))
        for fragment in [
            "# Benchmark Report", "## Device", "- Chip: Test CPU", "- OS: Debian 12", "## LLM", "### Short generation — Model",
            "- Load: 12 ms", "- TTFT: 20 ms", "- Tokens/sec: 42.5", "- E2E Latency: 2100 ms", "- Input tokens: 12",
            "- Output tokens: 35", "- Memory delta: 10 MB", "- Transcription: 1 ms", "- **ERROR**: boom", "- Framework: llama.cpp",
        ] {
            #expect(markdown.contains(fragment), "missing \(fragment)")
        }
    }

    @Test func syntheticAudio() {
        let silence = SyntheticInputGenerator.silentAudio(durationSeconds: 2)
        #expect(silence.count == 64_000 && silence.allSatisfy { $0 == 0 })
        let tone = SyntheticInputGenerator.sineWaveAudio(durationSeconds: 3)
        #expect(tone.count == 96_000)
        let samples = stride(from: 0, to: tone.count, by: 2).map {
            Int16(littleEndian: Int16(bitPattern: UInt16(tone[$0]) | UInt16(tone[$0 + 1]) << 8))
        }
        #expect(samples.max() == Int16.max / 2 && samples.min()! <= -(Int16.max / 2) + 1)
        let crossings = zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect((1319...1321).contains(crossings), "440 Hz for 3 s")
    }

    /// The PNGs decode with an independent reader (Python's zlib) to the same pixels.
    @Test func syntheticImagesAreValidPNGs() throws {
        let red = SyntheticInputGenerator.solidColorImage(red: 255, green: 0, blue: 0)
        let gradient = SyntheticInputGenerator.gradientImage(from: (255, 0, 0), to: (0, 0, 255))
        #expect(red.rgb.count == 224 * 224 * 3 && Array(red.rgb.prefix(3)) == [255, 0, 0])
        #expect(Array(gradient.rgb.prefix(3)) == [255, 0, 0] && Array(gradient.rgb.suffix(3)) == [0, 0, 255])
        let script = """
            import struct, sys, zlib, hashlib
            data = sys.stdin.buffer.read()
            assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
            pos, idat = 8, b''
            while pos < len(data):
                length, kind = struct.unpack('>I4s', data[pos:pos+8]); body = data[pos+8:pos+8+length]
                assert struct.unpack('>I', data[pos+8+length:pos+12+length])[0] == zlib.crc32(kind + body)
                if kind == b'IHDR': width, height, depth, color = struct.unpack('>IIBB', body[:10])
                if kind == b'IDAT': idat += body
                pos += 12 + length
            raw = zlib.decompress(idat); stride = width * 3 + 1
            pixels = b''.join(raw[r*stride+1:(r+1)*stride] for r in range(height))
            print(width, height, depth, color, hashlib.sha256(pixels).hexdigest())
            """
        for image in [red, gradient] {
            let reply = try Fixtures.python(script, input: image.pngData).trimmingCharacters(in: .whitespacesAndNewlines)
            let digest = try Fixtures.python(
                "import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())", input: Data(image.rgb))
            #expect(reply == "224 224 8 2 \(digest.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }
}
