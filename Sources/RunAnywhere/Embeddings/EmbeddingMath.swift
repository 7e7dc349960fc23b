/// Vector arithmetic for embeddings, in Double so that long vectors keep Float's precision.
public enum EmbeddingMath {
    /// The Euclidean (L2) length of `vector`.
    public static func norm(_ vector: [Float]) -> Double {
        vector.reduce(0) { $0 + Double($1) * Double($1) }.squareRoot()
    }

    /// `vector` scaled to unit length, as sentence-transformers' `Normalize` module scales it
    /// (dividing by the length, or by 1e-12 for a zero vector, which stays zero).
    public static func l2Normalized(_ vector: [Float]) -> [Float] {
        let length = max(norm(vector), 1e-12)
        return vector.map { Float(Double($0) / length) }
    }

    /// The cosine of the angle between `a` and `b` (-1 to 1); 0 when either is all zeros.
    /// Vectors of different lengths throw ``ErrorCode/invalidInput``.
    public static func cosineSimilarity(_ a: [Float], _ b: [Float]) throws -> Double {
        guard a.count == b.count else {
            throw SDKError(.invalidInput, "Vectors of \(a.count) and \(b.count) dimensions cannot be compared")
        }
        let lengths = norm(a) * norm(b)
        guard lengths > 0 else { return 0 }
        return zip(a, b).reduce(0) { $0 + Double($1.0) * Double($1.1) } / lengths
    }
}
