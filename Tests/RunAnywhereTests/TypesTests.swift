import Foundation
import Testing

@testable import RunAnywhere

@Suite struct TypesTests {
    @Test func wireStringsMatchTheSDK() {
        #expect(ModelCategory.speechRecognition.rawValue == "speech-recognition")
        #expect(ModelCategory.imageGeneration.rawValue == "image-generation")
        #expect(InferenceFramework.llamaCpp.rawValue == "LlamaCpp")
        #expect(InferenceFramework.llamaCpp.displayName == "llama.cpp")
        #expect(InferenceFramework.llamaCpp.analyticsKey == "llama_cpp")
        #expect(InferenceFramework(caseInsensitive: "llama.cpp") == .llamaCpp)
        #expect(InferenceFramework(caseInsensitive: "llamacpp") == .llamaCpp)
        #expect(InferenceFramework(caseInsensitive: "CoreML") == .coreml)
        #expect(InferenceFramework(caseInsensitive: "nope") == nil)
        #expect(SDKEnvironment.allCases.map(\.rawValue) == ["development", "staging", "production"])
    }

    @Test func appleOnlyFrameworksSayWhy() {
        for framework in [InferenceFramework.coreml, .mlx, .foundationModels, .systemTTS, .whisperKitCoreML] {
            #expect(framework.platformRestriction?.contains("only available on Apple platforms") == true)
        }
        #expect(InferenceFramework.llamaCpp.platformRestriction == nil)
    }

    @Test func modelInfoInitRules() {
        let language = ModelInfo(id: "a", name: "A", category: .language, format: .gguf, framework: .llamaCpp, supportsThinking: true)
        #expect(language.contextLength == 2048)
        #expect(language.thinkingPattern == .defaultPattern)
        let speech = ModelInfo(id: "b", name: "B", category: .speechRecognition, format: .bin, framework: .onnx, supportsThinking: true)
        #expect(speech.contextLength == nil)
        #expect(!speech.supportsThinking)
        #expect(speech.thinkingPattern == nil)
        #expect(!speech.isDownloaded)
    }

    @Test func modelInfoJSONRoundTrip() throws {
        let model = ModelInfo(
            id: "x", name: "X", category: .language, format: .gguf, framework: .llamaCpp,
            downloadURL: URL(string: "https://example.com/x.gguf"), localPath: URL(fileURLWithPath: "/tmp/x.gguf"),
            downloadSize: 42, contextLength: 4096, supportsThinking: true, description: "d", source: .local,
            createdAt: Date(timeIntervalSince1970: 1_000_000), updatedAt: Date(timeIntervalSince1970: 2_000_000),
            sha256: "ab", license: "MIT"
        )
        let data = try JSONEncoder.runAnywhere.encode(model)
        #expect(try JSONDecoder.runAnywhere.decode(ModelInfo.self, from: data) == model)
        let keys = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]).keys
        for key in [
            "id", "name", "category", "format", "downloadURL", "localPath", "downloadSize", "framework", "contextLength",
            "supportsThinking", "thinkingPattern", "description", "source", "createdAt", "updatedAt",
        ] {
            #expect(keys.contains(key), "ModelInfo JSON lacks \(key)")
        }
    }

    @Test func generationResultJSONHasTheSpecKeys() throws {
        let result = LLMGenerationResult(
            text: "hi", inputTokens: 3, tokensUsed: 2, modelUsed: "m", latencyMs: 10, framework: "llama.cpp", tokensPerSecond: 200,
            timeToFirstTokenMs: 5)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder.runAnywhere.encode(result)) as? [String: Any])
        for key in [
            "text", "inputTokens", "tokensUsed", "responseTokens", "latencyMs", "tokensPerSecond", "timeToFirstTokenMs",
            "modelUsed", "framework", "promptTokensPerSecond", "decodeTokensPerSecond", "stopReason",
        ] {
            #expect(object[key] != nil, "result JSON lacks \(key)")
        }
        #expect(result.responseTokens == 2)
        #expect(object["stopReason"] as? String == "stop")
    }

    @Test func generationOptionDefaultsAndValidation() throws {
        let options = LLMGenerationOptions()
        #expect(options.maxTokens == 100)
        #expect(options.temperature == 0.8)
        #expect(options.topP == 1.0)
        #expect(options.stopSequences.isEmpty)
        try options.validate()
        for bad in [
            LLMGenerationOptions(maxTokens: 0), LLMGenerationOptions(temperature: -1), LLMGenerationOptions(temperature: 2.5),
            LLMGenerationOptions(topP: 0), LLMGenerationOptions(topK: -1), LLMGenerationOptions(stopSequences: [""]),
            LLMGenerationOptions(threads: 0), LLMGenerationOptions(temperature: .nan),
            LLMGenerationOptions(samplers: [.typical(p: 0)]), LLMGenerationOptions(samplers: [.xtc(probability: 0.5, threshold: -1)]),
            LLMGenerationOptions(samplers: [.mirostat(version: 3, tau: 5, eta: 0.1)]), LLMGenerationOptions(samplers: [.topNSigma(.nan)]),
            LLMGenerationOptions(samplers: [.dry(multiplier: 1, base: 0.5, allowedLength: 2, lastN: nil, sequenceBreakers: [])]),
            LLMGenerationOptions(samplers: [.typical(p: 0.9), .typical(p: 0.5)]),
        ] {
            let error = try #require(throws: SDKError.self) { try bad.validate() }
            #expect(error.code == .invalidInput)
            if !bad.samplers.isEmpty { #expect(bad.firstInvalidOption()?.name == "samplers", "\(bad.samplers)") }
        }
        try LLMGenerationOptions(samplers: [.typical(p: 1), .dry(multiplier: 0, base: 1, allowedLength: 0, lastN: 0, sequenceBreakers: [])])
            .validate()
    }

    /// A segment's compression ratio is whisper's: its UTF-8 size over what Python's
    /// `zlib.compress` makes of it (the sizes here are zlib's).
    @Test func aSegmentsCompressionRatioIsZlibs() {
        for (text, compressed) in [
            (" The quick brown fox jumps over the lazy dog.", 52), (" " + Array(repeating: "the", count: 30).joined(separator: " "), 15),
            (" second 1", 17),
        ] {
            let segment = TranscriptionSegment(text: text, startTime: 0, endTime: 1, confidence: 1)
            #expect(segment.compressionRatio == Double(text.utf8.count) / Double(compressed), "\(text)")
        }
        #expect(TranscriptionSegment(text: "", startTime: 0, endTime: 1, confidence: 1).compressionRatio == 0)
    }

    @Test func modelIDValidation() throws {
        for good in ["smollm2-135m-instruct-q4_1", "a", "Qwen2.5_0.5B"] { try ModelInfo.validateID(good) }
        for bad in [
            "", "../etc", "a/b", "a..b", ".hidden", "-flag", "tab\there", "new\nline", "sp ace", String(repeating: "x", count: 129),
        ] {
            let error = try #require(throws: SDKError.self, "\(bad.debugDescription)") { try ModelInfo.validateID(bad) }
            #expect(error.code == .invalidInput)
        }
    }

    @Test func formatDetectionFromPaths() {
        #expect(ModelFormat.detect(fromPath: "https://h/x/model.Q4_K_M.gguf?download=true") == .gguf)
        #expect(ModelFormat.detect(fromPath: "voice.onnx") == .onnx)
        #expect(ModelFormat.detect(fromPath: "weights") == .unknown)
    }

    @Test func errorsDescribeThemselves() {
        let error = SDKError.llm(.contextTooLong, "too long")
        #expect(error.localizedDescription == "too long")
        #expect(error.failureReason == "[LLM] contextTooLong")
        #expect(error.description == "SDKError[llm.contextTooLong]: too long")
    }

    @Test func hardwareProfileReadsThisMachine() {
        let profile = HardwareProfile.current()
        #expect(profile.cores >= 1)
        #expect(profile.totalMemoryBytes > 0)
        #expect(profile.availableMemoryBytes > 0)
        #expect(profile.availableMemoryBytes <= profile.totalMemoryBytes)
        #expect(!profile.cpuModel.isEmpty)
        #expect((1...4).contains(profile.defaultThreads))
    }
}

@Suite struct AsyncMutexTests {
    actor Counter {
        var inside = 0
        var most = 0
        func enter() {
            inside += 1
            most = max(most, inside)
        }
        func leave() { inside -= 1 }
    }

    @Test func admitsOneHolderAtATimeAcrossSuspensions() async {
        let mutex = AsyncMutex()
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await mutex.withLock {
                        await counter.enter()
                        try? await Task.sleep(for: .milliseconds(1))
                        await counter.leave()
                    }
                }
            }
        }
        #expect(await counter.most == 1)
    }
}
