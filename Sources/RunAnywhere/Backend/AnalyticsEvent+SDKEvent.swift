import Foundation

extension AnalyticsEvent {
    /// The analytics event of a completed generation, transcription or synthesis, with a new id,
    /// happening `date`; nil for the events the backend is not told about. Only measurements
    /// leave the device: no prompt, answer, audio or transcript.
    init?(_ event: SDKEvent, date: Date = Date()) {
        let properties: [String: AnalyticsValue]
        let type: String
        switch event {
        case .generationCompleted(let result):
            type = "generation"
            var values: [String: AnalyticsValue] = [
                "model_id": .text(result.modelUsed), "input_tokens": .integer(result.inputTokens),
                "output_tokens": .integer(result.tokensUsed),
                "response_tokens": .integer(result.responseTokens), "cached_input_tokens": .integer(result.cachedInputTokens),
                "latency_ms": .number(result.latencyMs), "tokens_per_second": .number(result.tokensPerSecond),
                "prompt_tokens_per_second": .number(result.promptTokensPerSecond),
                "decode_tokens_per_second": .number(result.decodeTokensPerSecond),
                "stop_reason": .text(result.stopReason.rawValue), "tool_calls": .integer(result.toolCalls.count),
            ]
            values["framework"] = result.framework.map(AnalyticsValue.text)
            values["backend"] = result.backend.map(AnalyticsValue.text)
            values["time_to_first_token_ms"] = result.timeToFirstTokenMs.map(AnalyticsValue.number)
            values["thinking_tokens"] = result.thinkingTokens.map(AnalyticsValue.integer)
            values["thinking_time_ms"] = result.thinkingTimeMs.map(AnalyticsValue.number)
            values["image_encode_time_ms"] = result.imageEncodeTimeMs.map(AnalyticsValue.number)
            properties = values
        case .transcriptionCompleted(let metadata):
            type = "transcription"
            properties = [
                "model_id": .text(metadata.modelId), "processing_ms": .number(metadata.processingTime * 1000),
                "audio_seconds": .number(metadata.audioLength), "real_time_factor": .number(metadata.realTimeFactor),
            ]
        case .synthesisCompleted(let metadata, let audioDuration):
            type = "synthesis"
            properties = [
                "voice": .text(metadata.voice), "language": .text(metadata.language),
                "processing_ms": .number(metadata.processingTime * 1000),
                "character_count": .integer(metadata.characterCount), "characters_per_second": .number(metadata.charactersPerSecond),
                "audio_seconds": .number(audioDuration),
            ]
        default:
            return nil
        }
        // JSON has no infinity nor NaN (a rate over no time): such a measurement is left out.
        self.init(
            id: UUID().uuidString.lowercased(), type: type,
            occurredAt: Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date),
            properties: properties.filter { if case .number(let number) = $0.value { number.isFinite } else { true } }
        )
    }
}
