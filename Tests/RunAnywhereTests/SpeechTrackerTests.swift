import Testing

@testable import RunAnywhere

/// Server VAD's reading of window probabilities, as Silero segments them: speech starts only
/// after the shortest speech, a short blip starts nothing, a silence begins under the threshold
/// less 0.15 and only a window at or above the threshold ends it, and reading in parts is
/// reading at once.
@Suite struct SpeechTrackerTests {
    static func windows(_ pattern: String) -> [Float] {
        pattern.map { character -> Float in
            switch character {
            case "#": 0.9
            case "~": 0.4  // between the threshold less 0.15 and the threshold
            default: 0.05
            }
        }
    }

    @Test func speechStartsAfterTheShortestSpeechAndEndsInSilence() {
        var tracker = SpeechTracker(threshold: 0.5)
        tracker.append(Self.windows("....###......"))
        #expect(tracker.speechStart == nil && tracker.candidate == nil, "a blip of 3 windows is not speech")
        tracker.append(Self.windows("#########"))
        #expect(tracker.speechStart == 13 && tracker.silence == 0)
        tracker.append(Self.windows("~~..."))
        #expect(tracker.lastSpeech == 23 && tracker.silence == 3, "quiet windows right after speech are speech")
        tracker.append(Self.windows("~~"))
        #expect(tracker.silence == 5, "a quiet window ends no silence")
        tracker.append(Self.windows("#."))
        #expect(tracker.lastSpeech == 29 && tracker.silence == 1)

        var once = SpeechTracker(threshold: 0.5)
        once.append(Self.windows("....###......" + "#########" + "~~..." + "~~" + "#."))
        #expect(once.probabilities == tracker.probabilities && once.lastSpeech == tracker.lastSpeech && once.speechStart == 13)
    }

    @Test func silenceBeforeSpeechIsDroppedAndACandidateKept() {
        var tracker = SpeechTracker(threshold: 0.5)
        tracker.append(Self.windows("......"))
        tracker.dropFirst(4)
        #expect(tracker.count == 2)
        tracker.append(Self.windows("###"))
        #expect(tracker.candidate == 2)
        tracker.dropFirst(2)
        #expect(tracker.count == 5, "nothing is dropped while speech may be starting")
        tracker.append(Self.windows("#####"))
        #expect(tracker.speechStart == 2)
    }
}
