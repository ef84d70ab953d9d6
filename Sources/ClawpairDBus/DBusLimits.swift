// Every bound the codec enforces, in one place, each with where it comes from.

/// The limits a caller chooses for one encode or decode: how large a message and how deep a
/// value may be. The spec's own fixed limits are the static constants.
public struct DBusLimits: Sendable {
    /// Largest whole message (fixed header, header fields, padding and body) read or written.
    /// Default 1 MiB; the spec allows up to ``specMaxMessageSize``.
    public var maxMessageSize: Int
    /// Deepest container nesting in a value: every array, struct, dict entry and variant counts
    /// one level. Default 32. Decoding recurses at most this deep.
    public var maxDepth: Int

    /// Creates limits; the defaults suit a D-Bus client talking to avahi-daemon.
    public init(maxMessageSize: Int = 1 << 20, maxDepth: Int = 32) {
        self.maxMessageSize = maxMessageSize
        self.maxDepth = maxDepth
    }

    /// Largest message the spec allows, header, padding and body together: 2^27 bytes
    /// (spec: "Message Format").
    public static let specMaxMessageSize = 1 << 27

    /// Largest array in bytes, padding after the length excluded: 2^26 (spec: "Marshaling
    /// (Wire Format)", ARRAY).
    public static let maxArrayLength = 1 << 26

    /// Longest signature, in bytes, NUL excluded (spec: "Valid Signatures").
    public static let maxSignatureLength = 255

    /// Most nested array type codes in one signature (spec: "Valid Signatures").
    public static let maxArrayNesting = 32

    /// Most nested open parentheses (structs and dict entries) in one signature
    /// (spec: "Valid Signatures").
    public static let maxStructNesting = 32

    /// The fixed part of the header: endianness, type, flags, version, body length, serial, and
    /// the header-fields array length that always follows (spec: "Message Format").
    public static let fixedHeaderSize = 16

    /// The protocol version this codec speaks (spec: "Message Format", major protocol version).
    public static let protocolVersion: UInt8 = 1
}
