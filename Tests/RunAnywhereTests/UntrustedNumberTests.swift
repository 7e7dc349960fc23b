import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Numbers from outside the process — a request, a flag, a saved file, a model's header — that
/// no Swift conversion or arithmetic can hold end in a value or an `SDKError`, never a trap
/// (issue 38: `"keep_alive": 1e300` ended the server with SIGILL).
@Suite struct UntrustedNumberTests {
    @Test func keepAliveBeyondWhatADurationHoldsIsForEver() {
        for seconds in [1e300, .greatestFiniteMagnitude, KeepAlive.longestSeconds, -1, -1e300] {
            #expect(KeepAlive(seconds: seconds) == .forever, "\(seconds)")
        }
        for seconds in [Double.nan, .infinity, -.infinity] {
            #expect(KeepAlive(seconds: seconds) == nil, "\(seconds) is no duration")
        }
        #expect(KeepAlive(seconds: 0) == .duration(.zero))
        #expect(KeepAlive(seconds: 1.5) == .duration(.milliseconds(1500)))
        #expect(KeepAlive(seconds: KeepAlive.longestSeconds.nextDown)?.seconds ?? 0 > 9e9, "just below the limit is still a duration")
        #expect(KeepAlive(parsing: "1e300") == .forever)
        #expect(KeepAlive(parsing: "1e308h") == .forever, "a finite value times its unit may overflow to infinity")
        #expect(KeepAlive(parsing: "-1e308h") == .forever)
        for text in ["nan", "inf", "-inf", "infs", "nanm", "soon", "1h30", "m", "-", "1x", "1h-5m", ".s"] {
            #expect(KeepAlive(parsing: text) == nil, "\(text)")
        }
        // Go's time.ParseDuration, as ollama reads keep_alive: numbers each with their unit.
        for (text, seconds) in [("5m30s", 330.0), ("1h30m", 5400), ("1.5h", 5400), ("2m500ms", 120.5), ("90S", 90), ("+10s", 10)] {
            #expect(KeepAlive(parsing: text)?.seconds == seconds, "\(text)")
        }
        #expect(KeepAlive(parsing: "-1h30m") == .forever)
        #expect(KeepAlive(parsing: "5m")?.seconds == 300)
    }

    @Test func theLargestMaxTokensFitsTheContextWithoutOverflow() throws {
        let words: (String) -> Int = { $0.split(separator: " ").count }
        let chat = try ContextWindow.fit(
            system: nil, history: [Message(role: .user, content: "a b"), Message(role: .assistant, content: "c d")],
            newMessages: [Message(role: .user, content: "e f")], maxMessages: 10, contextLength: 100, maxTokens: .max - 1,
            render: { PromptText($0.map(\.content).joined(separator: " ")) }, countTokens: { words($0.text) }
        )
        #expect(chat.maxNewTokens == 94 && chat.droppedMessages == 0, "the history is kept, and the rest of the context is the limit")
        let raw = try ContextWindow.fit(rawPrompt: "a b c", contextLength: 100, maxTokens: .max, countTokens: words)
        #expect(raw.maxNewTokens == 97)
    }

    @Test func loadOptionsOutOfRangeAreRefusedBeforeAnyEngine() throws {
        try ModelLoadOptions().validate()
        try ModelLoadOptions(contextLength: SDKConstants.Limits.maxContextLength, threads: 512, parallel: SDKConstants.Limits.maxParallel)
            .validate()
        try ModelLoadOptions(rpcWorkers: ["127.0.0.1:50052", "worker-2.lan:1"]).validate()
        let refused = [
            ModelLoadOptions(contextLength: 1 << 40), ModelLoadOptions(contextLength: 8), ModelLoadOptions(threads: Int(Int32.max) + 1),
            ModelLoadOptions(threads: 0), ModelLoadOptions(batchSize: 0), ModelLoadOptions(parallel: 1 << 20),
            ModelLoadOptions(queueLimit: -1),
            ModelLoadOptions(gpuLayers: -1),
            // An RPC worker is HOST:PORT with an IPv4 host: no port, a port out of range, IPv6, no host.
            ModelLoadOptions(rpcWorkers: ["localhost"]), ModelLoadOptions(rpcWorkers: ["127.0.0.1:65536"]),
            ModelLoadOptions(rpcWorkers: ["::1:50052"]), ModelLoadOptions(rpcWorkers: [":50052"]),
            ModelLoadOptions(rpcWorkers: ["127.0.0.1:50052", "127.0.0.1:50052"]),
        ]
        for options in refused {
            #expect(throws: SDKError.self, "\(options)") { try options.validate() }
        }
    }

    @Test func aDamagedModelsNumbersContextIsIgnored() {
        let model = ModelInfo(id: "m", name: "m", category: .language, format: .gguf, framework: .llamaCpp, contextLength: -5)
        #expect(ModelLoadOptions().resolvedContextLength(for: model, trainedContext: -1) == SDKConstants.Limits.defaultContextLength)
        #expect(
            ModelLoadOptions().resolvedContextLength(for: model, trainedContext: 1 << 40) == SDKConstants.Limits.maxDefaultContextLength)
    }

    /// A GGUF header whose attention shape multiplies past Int.max, or is negative, has no KV size.
    @Test func anOverflowingAttentionShapeHasNoKVSize() throws {
        let shapes: [[(String, GGUFWriter.Value)]] = [
            [
                ("llama.block_count", .u64(1 << 40)), ("llama.attention.head_count", .u32(4)),
                ("llama.attention.head_count_kv", .u64(1 << 30)),
            ],
            [("llama.block_count", .i64(-2)), ("llama.attention.head_count", .u32(4))],
            [
                ("llama.block_count", .u32(2)), ("llama.attention.head_count", .u32(4)),
                ("llama.attention.key_length", .u64(UInt64(Int.max))),
            ],
        ]
        for values in shapes {
            var file = GGUFWriter.tinyLlama()
            file.metadata += values
            #expect(try GGUFReader.parse(file.data(), name: "huge.gguf").kvBytesPerToken == nil, "\(values.map(\.0))")
        }
        var file = GGUFWriter.tinyLlama()
        file.metadata += [("llama.block_count", .u32(2)), ("llama.attention.head_count", .u32(4))]
        #expect(
            try GGUFReader.parse(file.data(), name: "sane.gguf").kvBytesPerToken == 2 * 4 * 32 * 2,
            "64 wide, 4 heads: keys and values of 16 each")
    }

    @Test func aGGUFHeaderThatOverflowsIsRefused() {
        var negative = GGUFWriter.tinyLlama()
        negative.metadata.removeAll { $0.0 == "general.alignment" }
        negative.metadata.append(("general.alignment", .i32(-32)))
        #expect(throws: SDKError.self) { try GGUFReader.parse(negative.data(), name: "negative.gguf") }
        // Two tensors of 2^62 weights each: the parameter count passes Int64.max before the size check.
        let huge = GGUFWriter(
            metadata: [("general.architecture", .string("llama"))],
            tensors: [
                .init(name: "a", shape: [1 << 31, 1 << 31], type: 2, bytes: 32),
                .init(name: "b", shape: [1 << 31, 1 << 31], type: 2, bytes: 32),
            ])
        #expect(throws: SDKError.self) { try GGUFReader.parse(huge.data(), name: "huge.gguf") }
    }

    /// A whisper.cpp file with a four-dimensional tensor of 2^24 a side: 2^96 elements.
    @Test func aWhisperTensorOfImpossibleShapeIsRefused() {
        var data = WhisperGGMLReaderTests.file(tokens: 0)
        let tensors = 4 + 11 * 4 + 8 + 80 * 201 * 4 + 4
        data.removeSubrange(tensors...)
        func i32(_ value: Int32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        i32(4)
        i32(6)
        i32(0)
        for _ in 0..<4 { i32(1 << 24) }
        data.append(Data("tensor".utf8))
        #expect(throws: SDKError.self) { try WhisperGGMLReader.parse(data, name: "huge.bin") }
    }

    /// A saved conversation is a file anyone may edit: its counts are summed without overflow,
    /// and its speeds are shown whatever they are.
    @Test func aConversationWithHugeAnalyticsIsSummedAndShown() {
        func analytics(tokens: Int, speed: Double) -> MessageAnalytics {
            MessageAnalytics(
                messageId: "m", conversationId: "c", modelId: "x", modelName: "x", framework: "llama.cpp", timestamp: Date(),
                timeToFirstToken: nil, totalGenerationTime: 1, thinkingTime: nil, responseTime: nil, inputTokens: tokens,
                outputTokens: tokens,
                thinkingTokens: nil, responseTokens: tokens, averageTokensPerSecond: speed, messageLength: tokens, wasThinkingMode: false,
                wasInterrupted: false, retryCount: 0, completionStatus: .complete, tokensPerSecondHistory: [], generationMode: .streaming,
                contextWindowUsage: 0, generationParameters: .init()
            )
        }
        var conversation = Conversation()
        conversation.append(ChatMessage(role: .user, content: "hi"))
        conversation.append(ChatMessage(role: .assistant, content: "a", analytics: analytics(tokens: .max, speed: 1e300)))
        conversation.append(ChatMessage(role: .assistant, content: "b", analytics: analytics(tokens: .max, speed: 2)))
        conversation.refreshAnalytics(currentModel: nil)
        #expect(conversation.performanceSummary?.totalTokens == .max)
        #expect(conversation.analytics?.averageMessageLength == .max / 2)
        #expect(conversation.messages[1].footer.contains("tok/s"))
        #expect(conversation.markdown.contains("tok/s"))
    }

    @Test func saturatingArithmeticStopsAtTheBounds() {
        #expect(Int64.max.saturatingAdd(1) == .max && Int64.min.saturatingAdd(-1) == .min && Int64(2).saturatingAdd(3) == 5)
        #expect(Int64.min.saturatingSubtract(1) == .min && Int64.max.saturatingSubtract(-1) == .max && UInt64(1).saturatingSubtract(2) == 0)
        #expect(
            Int64.max.saturatingMultiply(2) == .max && Int64.max.saturatingMultiply(-2) == .min && Int64.min.saturatingMultiply(-1) == .max)
        #expect(UInt64.max.saturatingMultiply(3) == .max && Int(6).saturatingMultiply(7) == 42)
    }
}
