/// Server VAD's reading of a realtime session's uncommitted input, window by window (Silero's
/// 32 ms windows, ``RunAnywhere/VADWindow``), as Silero's own segmenting reads them: speech
/// starts at a window at or above the threshold that is followed by 250 ms of speech; once it
/// has, a window under the threshold less 0.15 begins a silence that only a window at or above
/// the threshold ends. The session scores only the windows that came in since its last check,
/// so a check costs the same at the end of a long utterance as at its start.
struct SpeechTracker {
    /// The speech threshold (0…1).
    var threshold: Float
    /// Each window's probability, from the start of the input.
    private(set) var probabilities: [Float] = []
    /// Where speech started, once it has lasted the shortest speech.
    private(set) var speechStart: Int?
    /// A window at or above the threshold that may start speech, not yet long enough.
    private(set) var candidate: Int?
    /// The last window of speech, since the candidate or the start.
    private(set) var lastSpeech: Int?

    /// Windows of the shortest speech (250 ms) and of the gap that ends a candidate too short
    /// to be speech (100 ms).
    static let shortestSpeech = 8
    static let candidateGap = 3

    init(threshold: Float) { self.threshold = threshold }

    /// Reads the probabilities of the windows that follow those read so far.
    mutating func append<Scores: Sequence>(_ scores: Scores) where Scores.Element == Float {
        let quiet = max(threshold - 0.15, 0.01)
        for probability in scores {
            let window = probabilities.count
            probabilities.append(probability)
            if probability >= threshold || (probability >= quiet && lastSpeech == window - 1 && (candidate ?? speechStart) != nil) {
                if candidate == nil, speechStart == nil { candidate = window }
                lastSpeech = window
            }
            guard speechStart == nil, let start = candidate, let last = lastSpeech else { continue }
            if last - start + 1 >= Self.shortestSpeech {
                speechStart = start
                candidate = nil
            } else if window - last >= Self.candidateGap {
                candidate = nil
                lastSpeech = nil
            }
        }
    }

    /// Windows read so far.
    var count: Int { probabilities.count }

    /// Windows of silence since the last window of speech (0 while it goes on); nil before speech.
    var silence: Int? {
        guard speechStart != nil, let lastSpeech else { return nil }
        return probabilities.count - 1 - lastSpeech
    }

    /// Forgets the first `windows` windows, which hold no speech (the input dropped them).
    mutating func dropFirst(_ windows: Int) {
        guard windows > 0, speechStart == nil, candidate == nil else { return }
        probabilities.removeFirst(min(windows, probabilities.count))
        lastSpeech = nil
    }
}
