import Testing

@testable import RunAnywhereWhisperCpp

/// The encoder window whisper gets for a clip: twice the clip and 2.5 s more, in 20 ms frames, so
/// a spoken question is not encoded as 30 s; a long clip keeps the whole 30 s window (0).
@Suite struct WhisperWindowTests {
    @Test func aShortClipGetsAWindowTwiceItsLengthAndLongOnesTheWholeWindow() {
        #expect(WhisperSTTService.audioContext(samples: 3 * 16_000) == 2 * 150 + 128)
        #expect(WhisperSTTService.audioContext(samples: 1) == 2 + 128)
        #expect(WhisperSTTService.audioContext(samples: 13 * 16_000) == 2 * 650 + 128)
        #expect(WhisperSTTService.audioContext(samples: 14 * 16_000) == 0)
        #expect(WhisperSTTService.audioContext(samples: 60 * 16_000) == 0)
    }
}
