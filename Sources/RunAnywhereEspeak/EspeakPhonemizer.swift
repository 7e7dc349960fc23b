internal import CEspeakNG
import Foundation
import RunAnywhere

/// IPA phonemes from eSpeak NG, sentence by sentence (what Piper voices read).
public struct EspeakPhonemizer: Phonemizer {
    /// What may follow a clause's punctuation: spaces and closing quotes or brackets.
    private static let trailing = CharacterSet(charactersIn: " \t\n\"'”’)")

    /// Creates the phonemizer; libespeak-ng is opened on first use.
    public init() {}

    /// eSpeak NG phonemizes clause by clause and drops the clause's punctuation, which Piper
    /// voices need for intonation; it is put back from the consumed text: `.` `?` `!` end a
    /// sentence, `,` `:` `;` are kept with a space. Output is in canonical decomposed form.
    public func phonemize(_ text: String, voice: String) throws -> [String] {
        let engine = try EspeakEngine.load()
        let bytes = Array(text.utf8) + [0]
        return try engine.withLock {
            try engine.setVoice(voice)
            var sentences: [String] = []
            var current = ""
            bytes.withUnsafeBufferPointer { buffer in
                let start = UnsafeRawPointer(buffer.baseAddress!)
                var pointer: UnsafeRawPointer? = start
                while let before = pointer {
                    guard let phonemes = engine.api.espeak_TextToPhonemes(&pointer, espeakCHARS_UTF8, espeakPHONEMES_IPA) else { break }
                    current += String(cString: phonemes)
                    let end = pointer.map { $0 - start } ?? (bytes.count - 1)
                    var consumed = String(decoding: bytes[(before - start)..<max(before - start, end)], as: UTF8.self)
                    if pointer != nil, !consumed.isEmpty { consumed.removeLast() }
                    let last = consumed.trimmingCharacters(in: Self.trailing).last
                    if let last, ".?!".contains(last) {
                        sentences.append((current + String(last)).decomposedStringWithCanonicalMapping)
                        current = ""
                    } else if let last, ",:;".contains(last) {
                        current += "\(last) "
                    } else if pointer != nil {
                        current += " "
                    }
                }
            }
            let rest = current.trimmingCharacters(in: .whitespaces)
            if !rest.isEmpty { sentences.append(rest.decomposedStringWithCanonicalMapping) }
            return sentences
        }
    }
}
