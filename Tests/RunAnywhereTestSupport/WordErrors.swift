/// Word error rate: word-level edit distance over the reference's length, ignoring case and punctuation.
package func wordErrors(_ reference: String, _ hypothesis: String) -> (errors: Int, words: Int) {
    func words(_ text: String) -> [String] {
        text.lowercased().replacingOccurrences(of: "-", with: " ").split(whereSeparator: { $0 == " " })
            .map { $0.filter { $0.isLetter || $0.isNumber || $0 == "'" } }.filter { !$0.isEmpty }
    }
    let r = words(reference)
    let h = words(hypothesis)
    var previous = Array(0...h.count)
    for (i, word) in r.enumerated() {
        var current = [i + 1] + Array(repeating: 0, count: h.count)
        for j in 0..<h.count {
            current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (word == h[j] ? 0 : 1))
        }
        previous = current
    }
    return (previous[h.count], r.count)
}
