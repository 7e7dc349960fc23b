/// One entry of a GGUF file's tensor table, as ``GGUFReader`` read it.
package struct GGUFTensorInfo: Sendable, Equatable {
    /// The tensor's name, e.g. `blk.0.attn_q.weight`.
    package let name: String
    /// Its dimensions, innermost first (ggml's order).
    package let shape: [UInt64]
    /// Its ggml type id (0 F32, 1 F16…).
    package let type: UInt32
    /// Where its data starts, from the start of the data section.
    package let offset: UInt64
}
