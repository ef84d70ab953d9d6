// The values a D-Bus message body carries, one case per type code (spec: "Type System").
// `h` (Unix fd) is deliberately absent: this codec never passes file descriptors.

/// The kind of a D-Bus message (spec: "Message Types").
public enum DBusMessageType: UInt8, Sendable {
    /// A method call; expects a reply unless NO_REPLY_EXPECTED is set.
    case methodCall = 1
    /// A successful method reply.
    case methodReturn = 2
    /// An error reply.
    case error = 3
    /// A signal emission.
    case signal = 4
}

/// One D-Bus value with its type.
///
/// An array of bytes (`ay`) always decodes to ``bytes(_:)``; ``array(element:_:)`` with element
/// `"y"` encodes to the same wire bytes but does not survive a round trip as itself.
public indirect enum DBusValue: Equatable, Sendable {
    /// `y`: an unsigned 8-bit integer.
    case byte(UInt8)
    /// `b`: a boolean, 0 or 1 in a 32-bit word on the wire.
    case boolean(Bool)
    /// `n`: a signed 16-bit integer.
    case int16(Int16)
    /// `q`: an unsigned 16-bit integer.
    case uint16(UInt16)
    /// `i`: a signed 32-bit integer.
    case int32(Int32)
    /// `u`: an unsigned 32-bit integer.
    case uint32(UInt32)
    /// `x`: a signed 64-bit integer.
    case int64(Int64)
    /// `t`: an unsigned 64-bit integer.
    case uint64(UInt64)
    /// `d`: an IEEE 754 double.
    case double(Double)
    /// `s`: a UTF-8 string without NUL bytes.
    case string(String)
    /// `o`: an object path, `/` or `/[A-Za-z0-9_]+` elements.
    case objectPath(String)
    /// `g`: a signature, at most 255 bytes.
    case signature(String)
    /// `ay`: an array of bytes; decoding always produces this case for `ay`.
    case bytes([UInt8])
    /// `a…`: any other array; `element` is the element's signature (e.g. `"s"`, `"{sv}"`).
    case array(element: String, [DBusValue])
    /// `(…)`: a struct of one or more values.
    case structure([DBusValue])
    /// `{…}`: a dict entry, valid only as an array element; the key is a basic type.
    case dictEntry(DBusValue, DBusValue)
    /// `v`: a value with its own signature, a single complete type.
    case variant(signature: String, DBusValue)

    /// The signature of this value (e.g. "ay", "a{sv}", "(is)").
    public var signature: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .bytes: return "ay"
        case let .array(element, _): return "a" + element
        case let .structure(fields): return "(" + fields.map(\.signature).joined() + ")"
        case let .dictEntry(key, value): return "{" + key.signature + value.signature + "}"
        case .variant: return "v"
        }
    }

    /// A variant holding `value`, its signature taken from the value.
    public static func variant(_ value: DBusValue) -> DBusValue {
        .variant(signature: value.signature, value)
    }

    /// True when this value nests deeper than `limit` containers. Recurses at most `limit + 1`
    /// levels, so it is safe to call before anything that recurses without bound (``signature``).
    func nests(deeperThan limit: Int) -> Bool {
        guard limit >= 0 else { return true }
        switch self {
        case let .array(_, items): return limit == 0 || items.contains { $0.nests(deeperThan: limit - 1) }
        case let .structure(fields): return limit == 0 || fields.contains { $0.nests(deeperThan: limit - 1) }
        case let .dictEntry(key, value):
            return limit == 0 || key.nests(deeperThan: limit - 1) || value.nests(deeperThan: limit - 1)
        case let .variant(_, value): return limit == 0 || value.nests(deeperThan: limit - 1)
        case .bytes: return limit == 0
        default: return false
        }
    }
}
