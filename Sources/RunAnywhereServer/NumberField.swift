import RunAnywhere

/// An optional number of a request body or form, as `@NumberField var maxTokens: Int?`: absent
/// or null is nil; a number JSON holds but `Value` cannot — `1e400`, `1e300` for a Float, an
/// integer with a fraction or beyond `Value`'s range —, a form's `nan` or `inf`, or a value of
/// another type is a 400 naming the field. Foundation refuses such a JSON number with an error
/// that names no field (its coding path is empty), and no such number may reach a conversion
/// that traps (issue 38).
@propertyWrapper
struct NumberField<Value: Decodable & Sendable>: Decodable, Sendable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    init(from decoder: any Decoder) throws {
        let field = decoder.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        var refusal = APIError(.badRequest, "\(field) must be \(Self.expected)", param: field.isEmpty ? nil : field)
        let value: Value?
        do {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = nil
            } else if let decoded = try? container.decode(Value.self) {
                value = decoded
            } else if Value.self == Float.self, let double = try? container.decode(Double.self), let real = Float(keepingSign: double) {
                value = real as? Value
            } else {
                // A fraction where a whole number goes is said so, not as a range it is within, and
                // a value of another type as what it is.
                let kind = Value.self is any FixedWidthInteger.Type ? "a whole number" : "a number"
                switch try? container.decode(JSONValue.self) {
                case .number(let real) where Value.self is any FixedWidthInteger.Type && real.isFinite && real.rounded() != real:
                    refusal = APIError(.badRequest, "\(field) must be a whole number, not \(real)", param: refusal.param)
                case .number(let real) where Value.self is any FixedWidthInteger.Type:
                    // Beyond the type's range: the side it is on, not the type's range, which reaches
                    // far beyond what the field takes.
                    refusal = APIError(.badRequest, "\(field) is too \(real > 0 ? "large" : "small")", param: refusal.param)
                case .string(let text):
                    let shown = text.count > 40 ? text.prefix(39) + "…" : text
                    refusal = APIError(.badRequest, "\(field) must be \(kind), not the text \"\(shown)\"", param: refusal.param)
                case .bool(let flag): refusal = APIError(.badRequest, "\(field) must be \(kind), not \(flag)", param: refusal.param)
                case .array: refusal = APIError(.badRequest, "\(field) must be \(kind), not an array", param: refusal.param)
                case .object: refusal = APIError(.badRequest, "\(field) must be \(kind), not an object", param: refusal.param)
                default: break
                }
                throw refusal
            }
        } catch {
            throw refusal
        }
        // Text (a form's field) can spell what JSON cannot: nan, inf, or 1e300 read as a Float's infinity.
        if let real = value as? any BinaryFloatingPoint, !real.isFinite { throw refusal }
        wrappedValue = value
    }

    /// What a value must be, for the error.
    private static var expected: String {
        if let integer = Value.self as? any FixedWidthInteger.Type { return "a whole number from \(integer.min) to \(integer.max)" }
        if let real = Value.self as? any BinaryFloatingPoint.Type {
            return "a number that a \(MemoryLayout<Value>.size * 8)-bit float holds: within ±\(real.greatestFiniteMagnitude)"
        }
        return "a \(Value.self)"
    }
}

extension KeyedDecodingContainer {
    /// A ``NumberField`` that is absent decodes as nil, as an optional property would.
    func decode<Value>(_ type: NumberField<Value>.Type, forKey key: Key) throws -> NumberField<Value> {
        try decodeIfPresent(type, forKey: key) ?? NumberField(wrappedValue: nil)
    }
}
