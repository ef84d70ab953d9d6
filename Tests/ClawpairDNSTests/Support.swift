@testable import ClawpairDNS

/// Builds wire bytes by hand, independently of the codec's writer.
struct Bytes {
    var data: [UInt8] = []
    mutating func u8(_ v: UInt8) { data.append(v) }
    mutating func u16(_ v: UInt16) { data += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    mutating func u32(_ v: UInt32) { data += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    /// Labels given as text, then a zero octet, or a pointer instead of the zero when `pointer` is set.
    mutating func name(_ labels: [String], pointer: Int? = nil) {
        for label in labels {
            u8(UInt8(label.utf8.count))
            data += Array(label.utf8)
        }
        if let pointer { u16(0xC000 | UInt16(pointer)) } else { u8(0) }
    }
    mutating func header(id: UInt16 = 0, flags: UInt16 = 0, qd: UInt16 = 0, an: UInt16 = 0, ns: UInt16 = 0, ar: UInt16 = 0) {
        u16(id); u16(flags); u16(qd); u16(an); u16(ns); u16(ar)
    }
    var count: Int { data.count }
}

func name(_ text: String) -> DNSName { try! DNSName(text) }
