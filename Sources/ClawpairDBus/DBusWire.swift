// The D-Bus message codec (spec: "Message Format", "Marshaling (Wire Format)").
//
// Layout: a 12-byte fixed header (endianness, type, flags, version, body length, serial), the
// header fields as an array of (BYTE, VARIANT) structs, zero padding to a multiple of 8, then
// the body, whose types the SIGNATURE field gives.
//
// Decoding order matters for a reader fed from a socket: the first 16 bytes give the total
// length, which is checked against the limits before anything else is read; only a message
// that is all there is parsed, inside windows that every length is checked against.
//
// Adding a header field: a case in `DBusHeaderField` (its code and variant type), a property on
// `DBusMessage`, a line in `decodeFields` and in `encodeFields`, and a fixture or round-trip test.

/// Encodes and decodes whole D-Bus messages. No I/O: bytes in, bytes out.
public enum DBusWire {
    /// Encodes `message` little-endian ('l'). Throws for a message the spec forbids (missing
    /// required header fields for its type, serial 0, invalid signature, a value that does not
    /// match its declared signature, strings with NUL, object paths that are not valid paths,
    /// too large/deep).
    public static func encode(_ message: DBusMessage, limits: DBusLimits = DBusLimits()) throws(DBusWireError) -> [UInt8] {
        guard message.serial != 0 else { throw .zeroSerial }
        try message.checkRequiredFields()
        for value in message.body where value.nests(deeperThan: limits.maxDepth) { throw .tooDeep }
        var types: [DBusType] = []
        for value in message.body { types.append(try DBusType.parseSingle(value.signature)) }
        let signature = message.signature
        _ = try DBusType.parseList(signature)

        var writer = DBusWriter(limits: limits)
        writer.u8(UInt8(ascii: "l"))
        writer.u8(message.type.rawValue)
        writer.u8(message.flags)
        writer.u8(DBusLimits.protocolVersion)
        writer.u32(0)  // body length, patched below
        writer.u32(message.serial)
        writer.u32(0)  // header fields length, patched below
        let fieldsStart = writer.bytes.count
        try encodeFields(message, signature: signature, into: &writer)
        writer.patch32(UInt32(writer.bytes.count - fieldsStart), at: 12)
        writer.align(8)
        let bodyStart = writer.bytes.count
        for (value, type) in zip(message.body, types) { try writer.write(value, as: type, depth: 0) }
        try writer.checkSize()
        let bodyLength = writer.bytes.count - bodyStart
        writer.patch32(UInt32(bodyLength), at: 4)
        return writer.bytes
    }

    /// The total length of the message that starts at `bytes[offset...]`, once its first 16
    /// bytes are there (nil before); throws if those 16 bytes are already invalid or the length
    /// exceeds the limit. For a reader that buffers socket input.
    public static func messageLength(
        _ bytes: [UInt8], at offset: Int = 0, limits: DBusLimits = DBusLimits()
    ) throws(DBusWireError) -> Int? {
        guard offset >= 0, offset <= bytes.count else { throw .malformed("offset \(offset) is outside the input") }
        guard bytes.count - offset >= DBusLimits.fixedHeaderSize else { return nil }
        let bigEndian: Bool
        switch bytes[offset] {
        case UInt8(ascii: "l"): bigEndian = false
        case UInt8(ascii: "B"): bigEndian = true
        default: throw .badEndianness(bytes[offset])
        }
        guard DBusMessageType(rawValue: bytes[offset + 1]) != nil else { throw .badType(bytes[offset + 1]) }
        guard bytes[offset + 3] == DBusLimits.protocolVersion else { throw .badVersion(bytes[offset + 3]) }
        var reader = DBusReader(bytes, base: offset, end: offset + DBusLimits.fixedHeaderSize, bigEndian: bigEndian)
        reader.offset += 4
        let bodyLength = Int(try reader.u32())
        guard try reader.u32() != 0 else { throw .zeroSerial }
        let fieldsLength = Int(try reader.u32())
        guard fieldsLength <= DBusLimits.maxArrayLength else { throw .arrayTooLong(fieldsLength) }
        let total = DBusLimits.fixedHeaderSize + (fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= min(limits.maxMessageSize, DBusLimits.specMaxMessageSize) else { throw .tooLarge(total) }
        return total
    }

    /// Decodes the message that starts at `bytes[offset...]`: nil when not all of it is there
    /// yet; else the message and its total length.
    public static func decode(
        _ bytes: [UInt8], at offset: Int = 0, limits: DBusLimits = DBusLimits()
    ) throws(DBusWireError) -> (message: DBusMessage, length: Int)? {
        guard let total = try messageLength(bytes, at: offset, limits: limits), bytes.count - offset >= total else {
            return nil
        }
        var reader = DBusReader(bytes, base: offset, end: offset + total,
                                bigEndian: bytes[offset] == UInt8(ascii: "B"))
        _ = try reader.u8()  // endianness, checked by messageLength
        let typeCode = try reader.u8()
        guard let type = DBusMessageType(rawValue: typeCode) else { throw .badType(typeCode) }
        let flags = try reader.u8()
        _ = try reader.u8()  // version, checked by messageLength
        let bodyLength = Int(try reader.u32())
        let serial = try reader.u32()
        var message = DBusMessage(type: type, flags: flags, serial: serial)
        let types = try decodeFields(into: &message, reader: &reader, limits: limits)
        try reader.align(8)
        message.body = try reader.window(bodyLength, "body", mismatch: { used in
            .bodyLengthMismatch(declared: bodyLength, used: used)
        }) { (reader: inout DBusReader) throws(DBusWireError) in
            var body: [DBusValue] = []
            for type in types { body.append(try reader.value(as: type, depth: 0, limits: limits)) }
            return body
        }
        try message.checkRequiredFields()
        return (message, total)
    }
}
