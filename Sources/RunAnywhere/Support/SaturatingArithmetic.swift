/// Arithmetic that stops at the type's bounds instead of trapping, for sizes and counts that come
/// from outside the process (a model file's header, a request): an estimate that would overflow
/// is simply as large as an estimate can be, and is then refused by the checks that follow.
extension FixedWidthInteger {
    /// `self + other`, or the bound it passes.
    package func saturatingAdd(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, or the bound it passes.
    package func saturatingSubtract(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }

    /// `self * other`, or the bound it passes.
    package func saturatingMultiply(_ other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : product
    }
}
