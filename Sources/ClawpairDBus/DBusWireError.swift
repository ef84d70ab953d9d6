import ClawpairCore

/// Why a D-Bus message could not be decoded or encoded.
///
/// Decoding a message that has not fully arrived is not an error (``DBusWire/decode(_:at:limits:)``
/// returns `nil`); every case here means the bytes, or the message to encode, break the spec
/// or the caller's ``DBusLimits``.
public enum DBusWireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message is this many bytes, more than ``DBusLimits/maxMessageSize`` (or the spec's
    /// 2^27). Encoding stops as soon as the limit is passed, so there the size may be partial.
    case tooLarge(Int)
    /// The first byte is neither `l` (little-endian) nor `B` (big-endian).
    case badEndianness(UInt8)
    /// The protocol version byte is not 1.
    case badVersion(UInt8)
    /// The message type byte is not one of method call, method return, error or signal.
    case badType(UInt8)
    /// The serial is 0, which the spec reserves.
    case zeroSerial
    /// A signature is invalid; the detail says which and why.
    case badSignature(String)
    /// A signature holds `h` (a Unix fd) or the UNIX_FDS header field is not 0: this codec
    /// never passes file descriptors.
    case unixFDsUnsupported
    /// A header field the message type requires is missing (e.g. `"PATH"`).
    case missingField(String)
    /// A known header field holds a variant of the wrong type.
    case badFieldType(code: UInt8, signature: String)
    /// A known header field appears twice.
    case duplicateField(UInt8)
    /// An alignment padding byte is not zero, at this offset from the message start.
    case badPadding(offset: Int)
    /// A string, object path or signature is not valid UTF-8.
    case badUTF8
    /// A string holds a NUL byte, or lacks its terminating one.
    case badNUL
    /// An object path is not `/` or a sequence of `/[A-Za-z0-9_]+` elements.
    case badObjectPath(String)
    /// A boolean is neither 0 nor 1.
    case badBoolean(UInt32)
    /// An array is longer than ``DBusLimits/maxArrayLength`` bytes.
    case arrayTooLong(Int)
    /// A length, or a value, runs past the end of what encloses it (the named array, the
    /// header fields, the body).
    case overrun(String)
    /// An array's elements do not end exactly where its length says.
    case arrayLengthMismatch(declared: Int, used: Int)
    /// The body's values do not fill exactly the declared body length.
    case bodyLengthMismatch(declared: Int, used: Int)
    /// Values nest deeper than ``DBusLimits/maxDepth``.
    case tooDeep
    /// A value to encode does not match the signature it is written under.
    case valueMismatch(expected: String, got: String)
    /// Anything else that breaks the spec, in words.
    case malformed(String)

    /// The problem in words, e.g. `boolean is 2, not 0 or 1`.
    public var description: String {
        switch self {
        case let .tooLarge(size): return "message is \(size) bytes, more than the limit"
        case let .badEndianness(byte): return "endianness byte 0x\(String(byte, radix: 16)) is neither 'l' nor 'B'"
        case let .badVersion(version): return "protocol version \(version), expected 1"
        case let .badType(type): return "unknown message type \(type)"
        case .zeroSerial: return "serial is 0"
        case let .badSignature(detail): return "invalid signature: \(detail)"
        case .unixFDsUnsupported: return "Unix file descriptors ('h', UNIX_FDS) are not supported"
        case let .missingField(name): return "required header field \(name) is missing"
        case let .badFieldType(code, signature): return "header field \(code) has type '\(signature)'"
        case let .duplicateField(code): return "header field \(code) appears twice"
        case let .badPadding(offset): return "non-zero padding byte at offset \(offset)"
        case .badUTF8: return "string is not valid UTF-8"
        case .badNUL: return "string holds a NUL byte or lacks its terminator"
        case let .badObjectPath(path): return "invalid object path \"\(path)\""
        case let .badBoolean(value): return "boolean is \(value), not 0 or 1"
        case let .arrayTooLong(length): return "array is \(length) bytes, more than \(DBusLimits.maxArrayLength)"
        case let .overrun(what): return "\(what) runs past its end"
        case let .arrayLengthMismatch(declared, used): return "array elements take \(used) bytes, its length says \(declared)"
        case let .bodyLengthMismatch(declared, used): return "body values take \(used) bytes, the header says \(declared)"
        case .tooDeep: return "values nest too deep"
        case let .valueMismatch(expected, got): return "value of type '\(got)' where '\(expected)' is declared"
        case let .malformed(detail): return detail
        }
    }
}

extension DBusWireError: ClawpairError {
    /// A malformed message is a plain failure.
    public var exitStatus: ExitStatus { .failure }
    /// `D-Bus: boolean is 2, not 0 or 1`.
    public var message: String { "D-Bus: \(description)" }
}
