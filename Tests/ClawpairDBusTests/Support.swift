@testable import ClawpairDBus

/// Bytes from a hex string (whitespace ignored); traps on bad hex, which only a test typo makes.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd hex length")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0 ... $0 + 1]), radix: 16)! }
}

/// Decodes a whole message, expecting every byte used.
func decodeWhole(_ bytes: [UInt8], limits: DBusLimits = DBusLimits()) throws -> DBusMessage? {
    guard let (message, length) = try DBusWire.decode(bytes, limits: limits) else { return nil }
    precondition(length == bytes.count, "decoded \(length) of \(bytes.count) bytes")
    return message
}

/// The error decoding `bytes` throws, or nil if it decodes (or is incomplete).
func decodeError(_ bytes: [UInt8], limits: DBusLimits = DBusLimits()) -> DBusWireError? {
    do {
        _ = try DBusWire.decode(bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// The error encoding `message` throws, or nil if it encodes.
func encodeError(_ message: DBusMessage, limits: DBusLimits = DBusLimits()) -> DBusWireError? {
    do {
        _ = try DBusWire.encode(message, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// Builds wire bytes by hand in either byte order, independently of the codec's writer.
/// Alignment is counted from the first byte.
struct Bytes {
    var data: [UInt8] = []
    var bigEndian: Bool

    init(bigEndian: Bool) { self.bigEndian = bigEndian }

    mutating func pad(_ boundary: Int) { while data.count % boundary != 0 { data.append(0) } }
    mutating func int(_ value: UInt64, size: Int) {
        pad(size)
        let little = (0 ..< size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
        data += bigEndian ? little.reversed() : little
    }
    mutating func u8(_ v: UInt8) { data.append(v) }
    mutating func u32(_ v: UInt32) { int(UInt64(v), size: 4) }
    mutating func string(_ s: String) { u32(UInt32(s.utf8.count)); data += Array(s.utf8) + [0] }
    mutating func signature(_ s: String) { u8(UInt8(s.utf8.count)); data += Array(s.utf8) + [0] }
    /// One header field: 8-aligned code, then a variant of `sig` written by `value`.
    mutating func field(_ code: UInt8, _ sig: String, _ value: (inout Bytes) -> Void) {
        pad(8); u8(code); signature(sig); value(&self)
    }

    /// A whole message: the fixed header, `fields`, padding, then `body`, lengths filled in.
    static func message(
        bigEndian: Bool = false, type: UInt8 = 1, flags: UInt8 = 0, version: UInt8 = 1, serial: UInt32 = 7,
        fields: (inout Bytes) -> Void, body: (inout Bytes) -> Void = { _ in }, bodyLengthDelta: Int = 0
    ) -> [UInt8] {
        var b = Bytes(bigEndian: bigEndian)
        b.u8(bigEndian ? UInt8(ascii: "B") : UInt8(ascii: "l"))
        b.u8(type); b.u8(flags); b.u8(version)
        b.u32(0); b.u32(serial); b.u32(0)
        fields(&b)
        let fieldsLength = b.data.count - 16
        b.pad(8)
        let bodyStart = b.data.count
        body(&b)
        var lengths = Bytes(bigEndian: bigEndian)
        lengths.u32(UInt32(b.data.count - bodyStart + bodyLengthDelta))
        b.data.replaceSubrange(4 ..< 8, with: lengths.data)
        lengths.data = []
        lengths.u32(UInt32(fieldsLength))
        b.data.replaceSubrange(12 ..< 16, with: lengths.data)
        return b.data
    }

    /// The fields of a method call to `/a` member `M`, with body signature `sig` if given.
    static func callFields(signature sig: String? = nil) -> (inout Bytes) -> Void {
        { b in
            b.field(1, "o") { $0.string("/a") }
            b.field(3, "s") { $0.string("M") }
            if let sig { b.field(8, "g") { $0.signature(sig) } }
        }
    }
}
