/// What a decode call of a number of rows takes on one context, as measured there: the cost
/// model that decides how many guessed tokens a speculating request adds to a step.
///
/// On a GPU a call of a few more rows costs about what one row does, and guessing pays even when
/// many guesses fail; on a few CPU cores the model's products are compute-bound and every row
/// costs nearly as much as the first (measured on 2 cores with the default model: 5.5 ms for one
/// row, 11 ms for two, 30 ms for nine), so only guesses likely to be kept pay. Measuring rather
/// than assuming lets one scheduler do the right thing on both.
struct DecodeCost {
    /// Seconds of a call of `rows` rows, a moving average; nil where no call was measured.
    private var seconds: [Double?]

    /// A model for calls of up to `capacity` rows.
    init(capacity: Int) {
        seconds = Array(repeating: nil, count: max(capacity, 1) + 1)
    }

    /// Records a decode call of `rows` rows, each with its logits (generated tokens and guesses,
    /// not prompt chunks, which compute logits for one row only), that took `duration` seconds.
    mutating func record(rows: Int, seconds duration: Double) {
        guard rows > 0, rows < seconds.count, duration > 0 else { return }
        seconds[rows] = seconds[rows].map { 0.8 * $0 + 0.2 * duration } ?? duration
    }

    /// The seconds a call of `rows` rows is expected to take: measured; else interpolated
    /// between the nearest measured calls below and above; beyond them, hopefully: as long as
    /// the largest below, or in proportion to the smallest above, so that a size never tried
    /// looks cheap and gets tried (and measured). Nil before any call.
    func estimate(rows: Int) -> Double? {
        let rows = min(max(rows, 1), seconds.count - 1)
        if let measured = seconds[rows] { return measured }
        let below = (1..<rows).last { seconds[$0] != nil }
        let above = (rows + 1..<seconds.count).first { seconds[$0] != nil }
        switch (below, above) {
        case (let low?, let high?):
            let (a, b) = (seconds[low]!, seconds[high]!)
            return a + (b - a) * Double(rows - low) / Double(high - low)
        case (let low?, nil): return seconds[low]
        case (nil, let high?): return seconds[high]! * Double(rows) / Double(high)
        case (nil, nil): return nil
        }
    }

    /// How many of `available` guesses to add to a call that already has `rows` rows and is
    /// expected to yield `tokens` tokens, when each guess is kept with probability `kept` given
    /// the ones before it were: the count that maximizes the call's expected tokens a second
    /// (0 when guessing does not pay).
    func guesses(available: Int, rows: Int, tokens: Double, kept: Double) -> Int {
        guard available > 0, let base = estimate(rows: rows) else { return available }
        var best = (count: 0, rate: tokens / base)
        var expected = tokens
        var chance = 1.0
        for count in 1...available {
            chance *= kept
            expected += chance
            guard let time = estimate(rows: rows + count) else { continue }
            if expected / time > best.rate { best = (count, expected / time) }
        }
        return best.count
    }
}
