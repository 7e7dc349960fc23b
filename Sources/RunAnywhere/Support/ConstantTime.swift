/// Comparisons whose time does not depend on where two secrets differ.
package enum ConstantTime {
    /// Whether `a` and `b` are equal, comparing every byte (so timing reveals nothing of a key).
    package static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }

    /// Whether an `Authorization` header value is `Bearer <key>`, compared in constant time.
    package static func isBearer(_ header: String?, key: String) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        return equal(String(header.dropFirst(7)), key)
    }
}
