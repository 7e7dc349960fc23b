/// Storage layout of ggml tensor types: how many elements a block holds and its size in bytes.
/// Used to compute where a GGUF file's tensor data must end, so truncated files are caught.
package enum GGMLType {
    /// (elements per block, bytes per block) by ggml type id, as ggml 0.25 defines them.
    private static let layouts: [UInt32: (block: Int, bytes: Int)] = [
        0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 9: (32, 40),
        10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210), 15: (256, 292),
        16: (256, 66), 17: (256, 74), 18: (256, 98), 19: (256, 50), 20: (32, 18), 21: (256, 110),
        22: (256, 82), 23: (256, 136), 24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8),
        29: (256, 56), 30: (1, 2), 34: (256, 54), 35: (256, 66), 39: (32, 17), 40: (64, 36), 41: (128, 18),
    ]

    /// Bytes a tensor of `type` with `elements` elements occupies, or nil for an unknown type or
    /// a row that is not a whole number of blocks.
    static func byteCount(type: UInt32, elements: UInt64, rowLength: UInt64) -> UInt64? {
        guard let layout = layouts[type], rowLength % UInt64(layout.block) == 0 else { return nil }
        let (blocks, overflow) = (elements / UInt64(layout.block)).multipliedReportingOverflow(by: UInt64(layout.bytes))
        return overflow ? nil : blocks
    }

    /// The name ggml gives a tensor type (`GGML_TYPE_Q4_K` → "Q4_K"), or `type <id>` for one not known here.
    package static func name(of type: UInt32) -> String {
        let names: [UInt32: String] = [
            0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 8: "Q8_0", 9: "Q8_1", 10: "Q2_K", 11: "Q3_K",
            12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 15: "Q8_K", 16: "IQ2_XXS", 17: "IQ2_XS", 18: "IQ3_XXS", 19: "IQ1_S", 20: "IQ4_NL",
            21: "IQ3_S", 22: "IQ2_S", 23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64", 29: "IQ1_M", 30: "BF16",
            34: "TQ1_0", 35: "TQ2_0", 39: "MXFP4", 40: "NVFP4", 41: "Q1_0", 42: "Q2_0",
        ]
        return names[type] ?? "type \(type)"
    }

    /// The name llama.cpp gives a `general.file_type` value (`llama_ftype`), e.g. 15 → "Q4_K_M".
    static func fileTypeName(_ fileType: Int) -> String? {
        let names: [Int: String] = [
            0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
            11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
            17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
            23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
            29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4_MOE",
            39: "NVFP4", 40: "Q1_0", 41: "Q2_0",
        ]
        return names[fileType]
    }
}
