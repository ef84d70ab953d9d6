import CClawpairHeadStart
@testable import ClawpairAvahi
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The constructor's decision: only a one-shot `discover` that may use Avahi starts a browse.
@Suite("discover's head start")
struct HeadStartTests {
    static func applies(_ arguments: [String]) -> Bool {
        let argv = (["clawpair"] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        let pointers = argv.map { UnsafePointer<CChar>($0) }
        return pointers.withUnsafeBufferPointer { CClawpairHeadStart_applies(Int32($0.count), $0.baseAddress) } == 1
    }

    @Test("one-shot discover through Avahi or auto", arguments: [
        ["discover"], ["discover", "--first", "--json"], ["discover", "--backend", "avahi", "--timeout", "500"],
        ["discover", "--backend=auto", "-v"], ["discover", "--local-only"],
    ])
    func applies(arguments: [String]) {
        #expect(Self.applies(arguments))
    }

    @Test("anything else", arguments: [
        [], ["probe"], ["qr", "discover"], ["discover", "--backend", "native"], ["discover", "--backend=native"],
        ["discover", "--wide-area-only"], ["discover", "--watch"], ["discover", "--help"], ["discover", "-h"],
    ])
    func doesNotApply(arguments: [String]) {
        #expect(!Self.applies(arguments))
    }

    @Test("nothing started in a process that is not clawpair discover")
    func notStartedHere() {
        #expect(CClawpairHeadStart_started() == 0)
    }
}

/// The bytes the constructor sends are the ones AvahiBrowser would send for the same browse:
/// otherwise CAvahiBus_take would not match and the head start would silently be lost.
@Suite("discover's head start: the messages")
struct HeadStartMessageTests {
    @Test("CClawpairHeadStart_opening is AvahiBus.opening for the gateway service type")
    func openingMatchesTheBrowser() throws {
        var length = 0
        let pointer = try #require(CClawpairHeadStart_opening(&length))
        let constant = Array(UnsafeBufferPointer(start: pointer, count: length))
        let encoded = try AvahiBus.opening(type: CCLAWPAIR_HEAD_START_TYPE, domain: nil)
        #expect(constant == encoded, "regenerate head_start.c's bytes: \(encoded.map { String($0) }.joined(separator: ","))")
    }
}
