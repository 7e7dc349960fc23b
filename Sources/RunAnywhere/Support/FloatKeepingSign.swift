extension Float {
    /// `number` as a Float that keeps its sign and non-zero-ness: a number too small in size for
    /// a Float's normal range (5e-324, which Foundation refuses to read as a Float and a plain
    /// conversion makes 0) is the smallest normal Float of its sign, so that a bound such as
    /// `topP`'s "more than 0" holds for it as it does for the number written. Nil beyond
    /// ±``greatestFiniteMagnitude`` and for NaN.
    package init?(keepingSign number: Double) {
        guard number.isFinite, number.magnitude <= Double(Float.greatestFiniteMagnitude) else { return nil }
        if number != 0, number.magnitude < Double(Float.leastNormalMagnitude) {
            self = number < 0 ? -Float.leastNormalMagnitude : Float.leastNormalMagnitude
        } else {
            self = Float(number)
        }
    }
}
