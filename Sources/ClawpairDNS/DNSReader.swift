// The decoding cursor. Every read is bounds-checked against `end`: the end of the message, or,
// inside a record body, the end of its RDLENGTH window. Reading past a window is
// `bodyOverrunsLength`; past the message, `truncated`. Nothing here can trap.

/// A bounds-checked cursor over one message.
struct DNSReader {
    let bytes: [UInt8]
    /// The next byte to read.
    var offset: Int
    /// Reads stop here: the message end, or the end of the current record body.
    private(set) var end: Int
    /// The RDLENGTH of the record body being read, if any.
    private var rdlength: Int?
    /// Compression pointers may not target bytes before this (the header, in a message).
    let pointerFloor: Int

    init(_ bytes: [UInt8], offset: Int = 0, pointerFloor: Int = 0) {
        self.bytes = bytes
        self.offset = max(0, offset)
        self.end = bytes.count
        self.pointerFloor = pointerFloor
    }

    /// Bytes left before `end`.
    var remaining: Int { max(0, end - offset) }

    /// The error for a read that would pass `end` at `position`.
    private func pastEnd(_ position: Int) -> DNSError {
        if let rdlength { return DNSError(.bodyOverrunsLength(rdlength: rdlength), offset: position) }
        return DNSError(.truncated, offset: position)
    }

    /// Fails unless `count` more bytes are available.
    func need(_ count: Int) throws(DNSError) {
        guard count <= end - offset else { throw pastEnd(offset) }
    }

    mutating func u8() throws(DNSError) -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(DNSError) -> UInt16 {
        try need(2)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u32() throws(DNSError) -> UInt32 {
        try need(4)
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    mutating func take(_ count: Int) throws(DNSError) -> [UInt8] {
        try need(count)
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Runs `body` on the next `length` bytes as a record body: reads inside stop at the window
    /// and a body that stops short of it is an error.
    mutating func window<T>(_ length: Int, _ body: (inout DNSReader) throws(DNSError) -> T) throws(DNSError) -> T {
        try need(length)
        let outerEnd = end
        let outerLength = rdlength
        end = offset + length
        rdlength = length
        let start = offset
        let value = try body(&self)
        guard offset == end else {
            throw DNSError(.bodyUnderrunsLength(rdlength: length, used: offset - start), offset: offset)
        }
        end = outerEnd
        rdlength = outerLength
        return value
    }

    /// Reads a possibly compressed name (RFC 1035 §4.1.4).
    ///
    /// Inline labels must fit the current window; labels reached through a pointer may be
    /// anywhere earlier in the message. Each pointer must target a place before where the
    /// current run of labels started, so every jump goes strictly backwards and reading ends;
    /// a pointer back into bytes already read is reported as a loop.
    mutating func name() throws(DNSError) -> DNSName {
        var wire: [UInt8] = []
        wire.reserveCapacity(32)
        var position = offset
        var limit = end
        var inline = true
        var segmentStart = offset
        var visited: [Range<Int>] = []
        var jumps = 0
        while true {
            guard position < limit else { throw inline ? pastEnd(position) : DNSError(.truncated, offset: position) }
            let length = bytes[position]
            switch length & 0xC0 {
            case 0x00:
                if length == 0 {
                    wire.append(0)
                    if inline { offset = position + 1 }
                    return DNSName(uncheckedWire: wire)
                }
                let count = Int(length)
                guard position + 1 + count <= limit else {
                    throw inline ? pastEnd(position) : DNSError(.truncated, offset: position)
                }
                let total = wire.count + 1 + count + 1
                guard total <= DNSLimits.maxNameLength else { throw DNSError(.nameTooLong(length: total), offset: position) }
                wire.append(contentsOf: bytes[position ..< position + 1 + count])
                position += 1 + count
            case 0xC0:
                guard position + 2 <= limit else {
                    throw inline ? pastEnd(position) : DNSError(.truncated, offset: position)
                }
                let target = Int(length & 0x3F) << 8 | Int(bytes[position + 1])
                visited.append(segmentStart ..< position + 2)
                if inline {
                    offset = position + 2
                    inline = false
                }
                jumps += 1
                guard jumps <= DNSLimits.maxPointerJumps else { throw DNSError(.tooManyPointers, offset: position) }
                guard target >= pointerFloor, target < bytes.count else {
                    throw DNSError(.pointerOutOfRange(target: target), offset: position)
                }
                if visited.contains(where: { $0.contains(target) }) {
                    throw DNSError(.pointerLoop, offset: position)
                }
                guard target < segmentStart else { throw DNSError(.forwardPointer(target: target), offset: position) }
                segmentStart = target
                position = target
                limit = bytes.count
            default:
                throw DNSError(.reservedLabelType(length & 0xC0), offset: position)
            }
        }
    }
}

/// The encoding buffer, with the compression table (RFC 1035 §4.1.4).
struct DNSWriter {
    var bytes: [UInt8] = []
    /// Name suffix in wire form (exact case, so a round trip keeps every byte) → its offset.
    private var suffixes: [[UInt8]: Int] = [:]

    init() { bytes.reserveCapacity(512) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    mutating func u32(_ value: UInt32) {
        bytes.append(UInt8(value >> 24))
        bytes.append(UInt8((value >> 16) & 0xFF))
        bytes.append(UInt8((value >> 8) & 0xFF))
        bytes.append(UInt8(value & 0xFF))
    }

    mutating func append(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    /// Overwrites the 16-bit value at `offset`.
    mutating func patch16(_ value: UInt16, at offset: Int) {
        bytes[offset] = UInt8(value >> 8)
        bytes[offset + 1] = UInt8(value & 0xFF)
    }

    /// Writes `name`, ending in a pointer to an earlier copy of its longest known suffix when
    /// `compress` is true. Suffixes written here are remembered either way, so later names may
    /// point at them.
    mutating func name(_ name: DNSName, compress: Bool) {
        let wire = name.wire
        var i = 0
        while i < wire.count, wire[i] != 0 {
            let suffix = Array(wire[i...])
            if compress, let target = suffixes[suffix] {
                u16(0xC000 | UInt16(target))
                return
            }
            if bytes.count <= DNSLimits.maxPointerOffset, suffixes[suffix] == nil {
                suffixes[suffix] = bytes.count
            }
            let length = Int(wire[i])
            bytes.append(contentsOf: wire[i ..< i + 1 + length])
            i += 1 + length
        }
        bytes.append(0)
    }
}
