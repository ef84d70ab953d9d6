@testable import ClawpairDNS
import ClawpairTestSupport
import Testing

/// Malformed messages: every one fails with a typed error that names where, and nothing traps.
@Suite struct BadInputTests {
    func reason(_ bytes: [UInt8]) -> DNSError? {
        do {
            _ = try DNSMessage.unpack(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyTruncationFails() throws {
        let bytes = MessageTests.sampleResponse().bytes
        for length in 0..<bytes.count {
            let error = try #require(reason(Array(bytes[..<length])), "prefix of \(length) bytes parsed")
            // Cutting a record short shows up as a truncation, a count that cannot fit, or a
            // window that runs past the end; never anything else.
            switch error.reason {
            case .truncated, .countTooLarge: break
            default: Issue.record("prefix \(length): \(error)")
            }
        }
    }

    @Test func errorsNameTheirPlace() throws {
        // SRV target with a pointer to itself.
        var b = Bytes()
        b.header(an: 2)
        b.name(["x"]); b.u16(1); b.u16(1); b.u32(0); b.u16(4); b.data += [1, 2, 3, 4]
        b.name(["y"]); b.u16(33); b.u16(1); b.u32(0); b.u16(8)
        b.u16(0); b.u16(0); b.u16(1)
        let at = b.count
        b.u16(0xC000 | UInt16(at))
        let error = try #require(reason(b.data))
        #expect(error == DNSError(.pointerLoop, offset: at, context: ["answer 2", "SRV target"]))
        #expect(error.description == "answer 2: SRV target: pointer loop at offset \(at)")
        #expect(error.message == "DNS: answer 2: SRV target: pointer loop at offset \(at)")
    }

    @Test func pointerRules() throws {
        func message(_ build: (inout Bytes) -> Void) -> [UInt8] {
            var b = Bytes()
            b.header(qd: 1)
            build(&b)
            b.u16(1); b.u16(1)
            return b.data
        }
        // Pointer to itself, at the start of the name.
        #expect(reason(message { $0.u16(0xC00C) })?.reason == .pointerLoop)
        // Two labels then a pointer back to the name's own start.
        #expect(reason(message { $0.name(["a", "b"], pointer: 12) })?.reason == .pointerLoop)
        // Forward pointer (past itself, inside the message).
        #expect(reason(message { $0.u16(0xC010); $0.data += [0, 0] })?.reason == .forwardPointer(target: 16))
        // Out of range, and into the header.
        #expect(reason(message { $0.u16(0xC000 | 0x3FFF) })?.reason == .pointerOutOfRange(target: 0x3FFF))
        #expect(reason(message { $0.u16(0xC003) })?.reason == .pointerOutOfRange(target: 3))
        // A pointer cut in half.
        var cut = Bytes()
        cut.header(qd: 1)
        cut.data += [4] + Array("abcd".utf8) + [0xC0]
        #expect(reason(cut.data) == DNSError(.truncated, offset: 17, context: ["question 1", "name"]))
        // Reserved and extended label types.
        #expect(reason(message { $0.u8(0x40); $0.u8(0) })?.reason == .reservedLabelType(0x40))
        #expect(reason(message { $0.u8(0x80); $0.u8(0) })?.reason == .reservedLabelType(0x80))
    }

    @Test func twoNamesThatPointAtEachOtherAreALoopOrForward() throws {
        // Question 1 at 12: label "a" then pointer to question 2's name; question 2: pointer to 12.
        var b = Bytes()
        b.header(qd: 2)
        b.name(["a"], pointer: 21)   // 12..<17: 1 a C0 15 → forward pointer
        b.u16(1); b.u16(1)           // 17..<21
        b.u16(0xC00C)                // 21: pointer back to 12, which points forward to 21
        b.u16(1); b.u16(1)
        let error = try #require(reason(b.data))
        #expect(error.reason == .forwardPointer(target: 21))
        #expect(error.context == ["question 1", "name"])
    }

    @Test func pointerChainsAreCapped() throws {
        // A root name at 0, then pointers each to the one before: reading the last one follows
        // them all. `DNSName.unpack` on a raw buffer allows targets from offset 0.
        func chain(_ jumps: Int) -> ([UInt8], Int) {
            var bytes: [UInt8] = [0]
            var previous = 0
            for _ in 0..<jumps {
                let here = bytes.count
                bytes += [0xC0 | UInt8(previous >> 8), UInt8(previous & 0xFF)]
                previous = here
            }
            return (bytes, previous)
        }
        let (ok, okStart) = chain(DNSLimits.maxPointerJumps)
        let (root, end) = try DNSName.unpack(ok, at: okStart)
        #expect(root == .root && end == okStart + 2)
        let (bad, badStart) = chain(DNSLimits.maxPointerJumps + 1)
        #expect(throws: DNSError(.tooManyPointers, offset: 1)) { try DNSName.unpack(bad, at: badStart) }
    }

    @Test func namesOver255BytesThroughPointers() throws {
        // Each name's inline labels are under the cap; a pointer stitches them into 257 bytes.
        var b = Bytes()
        b.header()
        let first = b.count
        b.name(Array(repeating: String(repeating: "a", count: 63), count: 3))   // 193 bytes
        let second = b.count
        b.name([String(repeating: "b", count: 63)], pointer: first)
        #expect(throws: DNSError(.nameTooLong(length: 257), offset: first + 2 * 64)) {
            try DNSName.unpack(b.data, at: second)
        }
    }

    @Test func hugeCountsFailBeforeAllocating() throws {
        for (index, section) in ["question", "answer", "authority", "additional"].enumerated() {
            var b = Bytes()
            b.header()
            b.data[4 + 2 * index] = 0xFF
            b.data[5 + 2 * index] = 0xFF
            let error = try #require(reason(b.data))
            #expect(error == DNSError(.countTooLarge(count: 65535, remainingBytes: 0), offset: 12, context: ["\(section) count"]))
        }
    }

    @Test func rdlengthLies() throws {
        func record(type: UInt16, rdlength: UInt16, body: [UInt8], extra: [UInt8] = []) -> [UInt8] {
            var b = Bytes()
            b.header(an: 1)
            b.name(["x"]); b.u16(type); b.u16(1); b.u32(0); b.u16(rdlength)
            b.data += body + extra
            return b.data
        }
        // A with 3 or 5 bytes.
        #expect(reason(record(type: 1, rdlength: 3, body: [1, 2, 3], extra: [9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]))
                == DNSError(.bodyOverrunsLength(rdlength: 3), offset: 25, context: ["answer 1", "A address"]))
        #expect(reason(record(type: 1, rdlength: 5, body: [1, 2, 3, 4, 5]))
                == DNSError(.bodyUnderrunsLength(rdlength: 5, used: 4), offset: 29, context: ["answer 1", "A body"]))
        // RDLENGTH beyond the message.
        #expect(reason(record(type: 1, rdlength: 40, body: [1, 2, 3, 4]))?.reason == .truncated)
        // SRV whose target runs past RDLENGTH (the message goes on, so it is an overrun, not a truncation).
        let srvBody: [UInt8] = [0, 0, 0, 0, 0x49, 0x65, 4] + Array("host".utf8) + [0]
        #expect(reason(record(type: 33, rdlength: 9, body: srvBody))?.reason == .bodyOverrunsLength(rdlength: 9))
        #expect(reason(record(type: 33, rdlength: 9, body: srvBody))?.context == ["answer 1", "SRV target"])
        // SRV with bytes left over after the target.
        #expect(reason(record(type: 33, rdlength: UInt16(srvBody.count + 2), body: srvBody + [0, 0]))?.reason
                == .bodyUnderrunsLength(rdlength: srvBody.count + 2, used: srvBody.count))
        // TXT string longer than what is left of the body.
        #expect(reason(record(type: 16, rdlength: 3, body: [5, 65, 65], extra: [65, 65, 65]))
                == DNSError(.bodyOverrunsLength(rdlength: 3), offset: 26, context: ["answer 1", "TXT string 1"]))
        // AAAA with 4 bytes; PTR whose name is longer than the body.
        #expect(reason(record(type: 28, rdlength: 4, body: [1, 2, 3, 4], extra: Array(repeating: 0, count: 20)))?.reason == .bodyOverrunsLength(rdlength: 4))
        #expect(reason(record(type: 12, rdlength: 2, body: [3, 65, 65, 65, 0]))?.reason == .bodyOverrunsLength(rdlength: 2))
        // OPT option longer than the body.
        #expect(reason(record(type: 41, rdlength: 4, body: [0, 8, 0, 4], extra: [1, 2, 3, 4]))?.context == ["answer 1", "OPT option 1"])
    }

    @Test func badNSECBitmaps() throws {
        func nsec(_ bitmap: [UInt8]) -> DNSError? {
            var b = Bytes()
            b.header(an: 1)
            b.name(["x"]); b.u16(47); b.u16(1); b.u32(0); b.u16(UInt16(1 + bitmap.count))
            b.u8(0)
            b.data += bitmap
            return reason(b.data)
        }
        #expect(nsec([0, 0]) == nil, "an empty window is skipped (python-zeroconf sends one)")
        #expect(nsec([0, 33] + Array(repeating: 0xFF, count: 33))?.reason == .invalidTypeBitmap("window 0 has length 33"))
        #expect(nsec([1, 1, 0x40, 0, 1, 0x40])?.reason == .invalidTypeBitmap("window 0 after window 1"))
        #expect(nsec([0, 1, 0x40, 0, 1, 0x40])?.reason == .invalidTypeBitmap("window 0 after window 0"))
        #expect(nsec([0, 2])?.context == ["answer 1", "NSEC type bitmap"])
        #expect(nsec([0, 0, 0, 1, 0x40]) == nil, "an empty window before window 0 is skipped")
        // Trailing zero octets are tolerated.
        #expect(nsec([0, 3, 0x40, 0, 0]) == nil)
    }

    @Test func oversizedInput() {
        #expect(reason(Array(repeating: 0, count: 65_536)) == DNSError(.messageTooLarge(size: 65_536)))
    }

    @Test func randomJunkNeverTraps() {
        var generator = SeededGenerator(seed: 0xD15C0)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...80, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.count >= 12 { bytes[4] = 0; bytes[6] = 0; bytes[8] = 0; bytes[10] = 0 }
            if let message = try? DNSMessage.unpack(bytes) {
                #expect((try? DNSMessage.unpack(message.pack())) == message, "\(bytes)")
            }
        }
    }
}
