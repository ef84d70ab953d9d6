// The encoding buffer: little-endian, alignment counted from the message start, and each value
// checked against the type it is written under. Every write keeps the buffer within
// `limits.maxMessageSize`, so encoding a huge value fails early instead of filling memory.

/// A little-endian message buffer.
struct DBusWriter {
    private(set) var bytes: [UInt8] = []
    let limits: DBusLimits

    init(limits: DBusLimits) {
        self.limits = limits
        bytes.reserveCapacity(256)
    }

    /// Fails once the buffer is larger than the message limit.
    func checkSize() throws(DBusWireError) {
        let cap = min(limits.maxMessageSize, DBusLimits.specMaxMessageSize)
        guard bytes.count <= cap else { throw .tooLarge(bytes.count) }
    }

    /// Zero padding up to the next multiple of `boundary`.
    mutating func align(_ boundary: Int) {
        while bytes.count % boundary != 0 { bytes.append(0) }
    }

    /// An unsigned integer of `size` bytes (1, 2, 4 or 8), aligned to its size.
    mutating func unsigned(_ value: UInt64, size: Int) {
        align(size)
        for i in 0 ..< size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u32(_ value: UInt32) { unsigned(UInt64(value), size: 4) }

    /// Overwrites the 32-bit value at `offset`.
    mutating func patch32(_ value: UInt32, at offset: Int) {
        for i in 0 ..< 4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    /// `s`: length, UTF-8 bytes, NUL. The text may not hold a NUL.
    mutating func string(_ text: String) throws(DBusWireError) {
        let utf8 = Array(text.utf8)
        guard !utf8.contains(0) else { throw .badNUL }
        guard utf8.count <= Int(UInt32.max) else { throw .tooLarge(utf8.count) }
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
        try checkSize()
    }

    /// `g`: length byte, type codes, NUL. The text must be a valid signature.
    mutating func signature(_ text: String) throws(DBusWireError) {
        _ = try DBusType.parseList(text)
        bytes.append(UInt8(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    /// Writes `value` as a `type`, `depth` containers deep; fails if the value is not a `type`.
    mutating func write(_ value: DBusValue, as type: DBusType, depth: Int) throws(DBusWireError) {
        switch (type, value) {
        case let (.byte, .byte(v)): u8(v)
        case let (.boolean, .boolean(v)): u32(v ? 1 : 0)
        case let (.int16, .int16(v)): unsigned(UInt64(UInt16(bitPattern: v)), size: 2)
        case let (.uint16, .uint16(v)): unsigned(UInt64(v), size: 2)
        case let (.int32, .int32(v)): u32(UInt32(bitPattern: v))
        case let (.uint32, .uint32(v)): u32(v)
        case let (.int64, .int64(v)): unsigned(UInt64(bitPattern: v), size: 8)
        case let (.uint64, .uint64(v)): unsigned(v, size: 8)
        case let (.double, .double(v)): unsigned(v.bitPattern, size: 8)
        case let (.string, .string(v)): try string(v)
        case let (.objectPath, .objectPath(v)):
            try DBusObjectPath.validate(v)
            try string(v)
        case let (.signature, .signature(v)): try signature(v)
        case let (.array(.byte), .bytes(items)):
            try enter(depth)
            try array(element: .byte) { (writer: inout DBusWriter) throws(DBusWireError) in
                writer.bytes.append(contentsOf: items)
            }
        case let (.array(element), .array(signature, items)):
            try enter(depth)
            guard signature == element.signature else {
                throw .valueMismatch(expected: "a" + element.signature, got: "a" + signature)
            }
            try array(element: element) { (writer: inout DBusWriter) throws(DBusWireError) in
                for item in items {
                    try writer.write(item, as: element, depth: depth + 1)
                    try writer.checkSize()
                }
            }
        case let (.structure(types), .structure(fields)):
            try enter(depth)
            guard types.count == fields.count else {
                throw .valueMismatch(expected: type.signature, got: "a struct of \(fields.count) fields")
            }
            align(8)
            for (field, fieldType) in zip(fields, types) { try write(field, as: fieldType, depth: depth + 1) }
        case let (.dictEntry(keyType, valueType), .dictEntry(key, entryValue)):
            try enter(depth)
            align(8)
            try write(key, as: keyType, depth: depth + 1)
            try write(entryValue, as: valueType, depth: depth + 1)
        case let (.variant, .variant(signature, inner)):
            try enter(depth)
            let innerType = try DBusType.parseSingle(signature)
            try self.signature(signature)
            try write(inner, as: innerType, depth: depth + 1)
        default:
            throw .valueMismatch(expected: type.signature, got: value.nests(deeperThan: limits.maxDepth) ? "…" : value.signature)
        }
    }

    /// Fails when entering one more container would pass the depth limit.
    private func enter(_ depth: Int) throws(DBusWireError) {
        guard depth < limits.maxDepth else { throw .tooDeep }
    }

    /// An array: length, padding to the element's alignment, then `elements`; the length is
    /// patched in afterwards and must be within the spec's 64 MiB.
    private mutating func array(
        element: DBusType, _ elements: (inout DBusWriter) throws(DBusWireError) -> Void
    ) throws(DBusWireError) {
        align(4)
        let lengthAt = bytes.count
        u32(0)
        align(element.alignment)
        let start = bytes.count
        try elements(&self)
        let length = bytes.count - start
        guard length <= DBusLimits.maxArrayLength else { throw .arrayTooLong(length) }
        patch32(UInt32(length), at: lengthAt)
        try checkSize()
    }
}
