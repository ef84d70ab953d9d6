// JSON values for setup codes, RPC frames and `--json` output.
//
// The model keeps object members in insertion order (setup codes are byte-compared with upstream
// `JSON.stringify` output, so key order is part of the format). Parsing lives in
// `JSONParse.swift` (bounded, RFC 8259 strict, typed errors); serialization in
// `JSONSerialize.swift` (exactly JS `JSON.stringify`, compact or indented).
//
// Checklist, adding an accessor: keep it total (return `nil` on a type mismatch, never trap) and
// add a case to `JSONTests.swift`.

/// A JSON value whose objects keep their members in insertion order.
///
/// Numbers are split the way `JSONValue.parse` reads them: an integer literal that fits `Int64`
/// (no fraction, no exponent) is `.int`, every other number is `.double`.
/// Equality is structural and order-sensitive: two objects are equal when they hold the same
/// members in the same order; `.int(1)` and `.double(1)` are different values.
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer literal that fits `Int64`.
    case int(Int64)
    /// Any other number. Non-finite values serialize as `null`, as in JavaScript.
    case double(Double)
    /// A string (always valid Unicode; parsed strings had their UTF-8 and escapes checked).
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in insertion order. Parsed objects hold each key once.
    case object([(String, JSONValue)])
}

extension JSONValue: Equatable {
    /// Structural, order-sensitive equality (see the type's documentation).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) where x.0 != y.0 || x.1 != y.1 {
                return false
            }
            return true
        default: return false
        }
    }
}

// MARK: - Accessors

extension JSONValue {
    /// The member named `key` (the first one, if a hand-built object repeats it), or `nil` when
    /// this is not an object or has no such member. A member whose value is `null` gives `.null`.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        for (name, value) in members where name == key {
            return value
        }
        return nil
    }

    /// The element at `index`, or `nil` when this is not an array or the index is out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case let .array(elements) = self, index >= 0, index < elements.count else { return nil }
        return elements[index]
    }

    /// The string, when this is `.string`.
    public var stringValue: String? {
        if case let .string(s) = self { return s }
        return nil
    }

    /// The Boolean, when this is `.bool`.
    public var boolValue: Bool? {
        if case let .bool(b) = self { return b }
        return nil
    }

    /// The integer, when this is `.int`, or a `.double` holding an integral value that fits `Int64`.
    public var int64Value: Int64? {
        switch self {
        case let .int(i): return i
        case let .double(d):
            // 2^63 is exactly representable; anything below it and integral converts exactly.
            guard d.isFinite, d == d.rounded(.towardZero), d >= -9_223_372_036_854_775_808.0,
                  d < 9_223_372_036_854_775_808.0 else { return nil }
            return Int64(d)
        default: return nil
        }
    }

    /// The number as a `Double`, when this is `.int` or `.double`.
    public var doubleValue: Double? {
        switch self {
        case let .int(i): return Double(i)
        case let .double(d): return d
        default: return nil
        }
    }

    /// The elements, when this is `.array`.
    public var arrayValue: [JSONValue]? {
        if case let .array(a) = self { return a }
        return nil
    }

    /// The members in order, when this is `.object`.
    public var objectValue: [(String, JSONValue)]? {
        if case let .object(o) = self { return o }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's type, for error messages ("a string", "an array", ...).
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a Boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` → `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// `true`/`false` → `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal → `.int`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal → `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal → `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal → `.array`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Members keep the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
}
