/// bfloat16, ggml's `GGML_TYPE_BF16`: the upper 16 bits of an F32 (its sign, its 8-bit exponent and
/// 7 bits of its mantissa), so it keeps F32's range with less precision.
enum BFloat16 {
    /// ggml's type id for BF16 tensors.
    static let ggmlType: UInt32 = 30

    /// The bits of `value` as BF16, rounded to the nearest value, ties to even; a NaN stays a
    /// (quiet) NaN rather than rounding into an infinity.
    static func bits(_ value: Float) -> UInt16 {
        let bits = value.bitPattern
        if value.isNaN { return UInt16(truncatingIfNeeded: bits >> 16) | 0x0040 }
        let rounding: UInt32 = 0x7FFF + ((bits >> 16) & 1)
        return UInt16(truncatingIfNeeded: (bits &+ rounding) >> 16)
    }
}
