// The decoding cursor. Every read is bounds-checked against `end`: the end of the message, or
// inside an array, the header fields or the body, the end of that window. Alignment is counted
// from the message start (`base`) and every padding byte must be zero. Nothing here can trap.

/// A bounds-checked cursor over one message, in the message's byte order.
struct DBusReader {
    let bytes: [UInt8]
    /// The message's first byte: alignment is relative to it.
    let base: Int
    let bigEndian: Bool
    /// The next byte to read.
    var offset: Int
    /// Reads stop here.
    private(set) var end: Int
    /// What the current window is, for errors ("array", "header fields", "body").
    private(set) var window: String

    init(_ bytes: [UInt8], base: Int, end: Int, bigEndian: Bool) {
        self.bytes = bytes
        self.base = base
        self.offset = base
        self.end = end
        self.bigEndian = bigEndian
        self.window = "message"
    }

    /// Fails unless `count` more bytes are available in the window.
    func need(_ count: Int) throws(DBusWireError) {
        guard count >= 0, count <= end - offset else { throw .overrun(window) }
    }

    /// Skips padding up to the next multiple of `boundary` from the message start; the padding
    /// must be zero and inside the window.
    mutating func align(_ boundary: Int) throws(DBusWireError) {
        let misalignment = (offset - base) % boundary
        guard misalignment != 0 else { return }
        let padding = boundary - misalignment
        try need(padding)
        for position in offset ..< offset + padding where bytes[position] != 0 {
            throw .badPadding(offset: position - base)
        }
        offset += padding
    }

    /// Reads an unsigned integer of `size` bytes (1, 2, 4 or 8), aligned to its size.
    mutating func unsigned(_ size: Int) throws(DBusWireError) -> UInt64 {
        try align(size)
        try need(size)
        var value: UInt64 = 0
        for i in 0 ..< size {
            let byte = UInt64(bytes[offset + (bigEndian ? i : size - 1 - i)])
            value = value << 8 | byte
        }
        offset += size
        return value
    }

    mutating func u8() throws(DBusWireError) -> UInt8 { UInt8(truncatingIfNeeded: try unsigned(1)) }
    mutating func u16() throws(DBusWireError) -> UInt16 { UInt16(truncatingIfNeeded: try unsigned(2)) }
    mutating func u32() throws(DBusWireError) -> UInt32 { UInt32(truncatingIfNeeded: try unsigned(4)) }
    mutating func u64() throws(DBusWireError) -> UInt64 { try unsigned(8) }

    /// The next `count` bytes, unaligned.
    mutating func take(_ count: Int) throws(DBusWireError) -> [UInt8] {
        try need(count)
        defer { offset += count }
        return Array(bytes[offset ..< offset + count])
    }

    /// Text of `length` bytes followed by a NUL: valid UTF-8 and no NUL inside.
    private mutating func text(length: Int) throws(DBusWireError) -> String {
        try need(length + 1)
        let content = bytes[offset ..< offset + length]
        guard bytes[offset + length] == 0, !content.contains(0) else { throw .badNUL }
        guard let text = String(validating: content, as: UTF8.self) else { throw .badUTF8 }
        offset += length + 1
        return text
    }

    /// `s`: a 32-bit length, the UTF-8 bytes, a NUL.
    mutating func string() throws(DBusWireError) -> String {
        let length = try u32()
        return try text(length: Int(length))
    }

    /// `o`: a string that is a valid object path.
    mutating func objectPath() throws(DBusWireError) -> String {
        let path = try string()
        try DBusObjectPath.validate(path)
        return path
    }

    /// `g`: an 8-bit length, the type codes, a NUL; the signature must be valid.
    mutating func signature() throws(DBusWireError) -> (text: String, types: [DBusType]) {
        let length = try u8()
        let text = try text(length: Int(length))
        return (text, try DBusType.parseList(text))
    }

    /// Runs `body` on the next `length` bytes, called `name`: reads inside stop at the window
    /// and `mismatch(used)` is thrown when `body` stops short of it.
    mutating func window<T>(
        _ length: Int, _ name: String, mismatch: (Int) -> DBusWireError,
        _ body: (inout DBusReader) throws(DBusWireError) -> T
    ) throws(DBusWireError) -> T {
        try need(length)
        let outerEnd = end
        let outerName = window
        let start = offset
        end = offset + length
        window = name
        let value = try body(&self)
        guard offset == end else { throw mismatch(offset - start) }
        end = outerEnd
        window = outerName
        return value
    }

    /// True while the current window has bytes left.
    var hasMore: Bool { offset < end }
}

/// Object path rules (spec: "Valid Object Paths").
enum DBusObjectPath {
    /// Throws unless `path` is `/` or one or more `/` + `[A-Za-z0-9_]+` elements.
    static func validate(_ path: String) throws(DBusWireError) {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { throw .badObjectPath(path) }
        if bytes.count == 1 { return }
        guard bytes.last != UInt8(ascii: "/") else { throw .badObjectPath(path) }
        var previous = UInt8(ascii: "/")
        for byte in bytes.dropFirst() {
            let allowed = byte == UInt8(ascii: "_") || byte == UInt8(ascii: "/")
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            guard allowed, !(byte == UInt8(ascii: "/") && previous == byte) else { throw .badObjectPath(path) }
            previous = byte
        }
    }
}
