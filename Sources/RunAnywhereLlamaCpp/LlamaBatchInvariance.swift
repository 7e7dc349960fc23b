import CLlamaCpp
import RunAnywhere

/// When llama.cpp computes one sequence's numbers exactly the same whatever else shares its
/// decode calls, so that reproducible requests can be batched with everyone else.
///
/// On the CPU a sequence's logits and KV cache depend on its batch only through kernels chosen
/// by batch shape. Three of them matter: flash attention's tiled path (64 or more rows of one
/// sequence) and its split-KV path (one token over 512 or more cells), which sum in another
/// order than its per-row path, and, without flash attention, the F16 attention products that
/// llamafile's sgemm computes for two or more rows and ggml's dot product for one. With flash
/// attention on and the keys cached as Q8_0, ggml takes the per-row path for every call (the
/// other two take only F16 or F32 keys), and each sequence has a KV stream of its own
/// (`kv_unified` off), so its cells stay in position order. The weight products must not switch
/// kernels either: Q4_1's never do (no sgemm, no repacking), and Q8_0's two kernels (the dot
/// product for one row, sgemm for more) sum in the same order. Measured bit for bit on the
/// default model (Q4_1 layers, a Q8_0 output): the same logits and KV cache alone and among 1,
/// 3 or 7 other sequences, for a history decoded token by token and read again as a prompt, in
/// any prompt pieces, on 1 or 2 threads. Other weight types (F16, repacked Q4_0 and K-quants)
/// switch kernels by batch size, and GPU backends were not examined: neither is batch-invariant here.
enum LlamaBatchInvariance {
    /// ggml types of weight matrices whose products are the same at every batch size: Q4_1, Q8_0.
    static let weightTypes: Set<UInt32> = [3, 8]
    /// The K cache type that keeps flash attention on its per-row path.
    static let keyType = GGML_TYPE_Q8_0
    /// Q8_0's block length: each attention head's keys must fill whole blocks.
    static let keyBlock = 32

    /// Why a context for `metadata`'s model with `options` and `gpuLayers` on a GPU cannot be
    /// batch-invariant; nil when it can.
    static func obstacle(options: ModelLoadOptions, gpuLayers: Int, metadata: GGUFMetadata?) -> String? {
        if options.flashAttention == .disabled { return "flash attention is disabled" }
        if !options.rpcWorkers.isEmpty { return "layers run on RPC workers" }
        if gpuLayers > 0 { return "layers run on a GPU" }
        guard let metadata, metadata.architecture != nil else { return "the model's GGUF metadata is unreadable" }
        let other = metadata.tensors.first { $0.shape.count >= 2 && !weightTypes.contains($0.type) }
        if let other { return "its weight \(other.name) is \(GGMLType.name(of: other.type)), not Q4_1 or Q8_0" }
        let keyLength = metadata.keyLength ?? 0
        guard keyLength > 0, keyLength % keyBlock == 0 else { return "its attention heads' \(keyLength) keys do not fill Q8_0 blocks" }
        return nil
    }
}
