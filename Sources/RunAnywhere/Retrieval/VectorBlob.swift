import NIOCore

/// A vector as the RAG store keeps it: its Float32 values, little-endian, 4 bytes each.
package enum VectorBlob {
    /// The bytes of `vector`.
    package static func encode(_ vector: [Float]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: vector.count * 4)
        for value in vector { buffer.writeInteger(value.bitPattern, endianness: .little) }
        return buffer
    }

    /// The cosine similarity of `query` and the vector stored in `blob`, given `query`'s length
    /// (L2 norm); nil when the blob does not hold a vector as long as `query`, 0 for a zero vector.
    package static func cosine(_ query: [Float], queryNorm: Double, blob: ByteBuffer) -> Double? {
        guard blob.readableBytes == query.count * 4 else { return nil }
        return blob.withUnsafeReadableBytes { bytes in
            var dot = 0.0
            var squares = 0.0
            for index in query.indices {
                let value = Double(Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))))
                dot += value * Double(query[index])
                squares += value * value
            }
            let lengths = squares.squareRoot() * queryNorm
            return lengths > 0 ? dot / lengths : 0
        }
    }
}
