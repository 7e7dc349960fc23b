import Foundation

/// The prompt a RAG question is answered from: the retrieved passages numbered from 1, best
/// first, each with its document's file name, then the question, with the instruction to answer
/// from them and cite them by number.
enum RAGPrompt {
    static func make(question: String, sources: [RAGSource]) -> String {
        let passages = sources.enumerated().map { index, source in
            "[\(index + 1)] (\(URL(fileURLWithPath: source.documentPath).lastPathComponent))\n\(source.text)"
        }
        return """
            Answer the question using the numbered sources below. Cite the sources you use by their numbers in square brackets, \
            like [1]. If the sources do not contain the answer, say that they do not.

            Sources:

            \(passages.joined(separator: "\n\n"))

            Question: \(question)
            """
    }
}
