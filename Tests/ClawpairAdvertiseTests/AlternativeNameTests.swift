import ClawpairAdvertise
import Testing

/// Avahi's rename rule (avahi-common/alternative.c), as the advertiser applies it to a name
/// already registered on the same daemon.
@Suite struct AlternativeNameTests {
    @Test(arguments: [
        ("Taken OpenClaw", "Taken OpenClaw #2"),
        ("Taken OpenClaw #2", "Taken OpenClaw #3"),
        ("Taken OpenClaw #9", "Taken OpenClaw #10"),
        ("a #1 #41", "a #1 #42"),
        ("Lab #0", "Lab #0 #2"),
        ("Lab #x", "Lab #x #2"),
        ("Lab #", "Lab # #2"),
    ])
    func nextName(_ name: String, _ expected: String) {
        #expect(AlternativeServiceName.next(after: name) == expected, "\(name)")
    }

    @Test func longNamesAreCutToFitALabelOnACharacterBoundary() {
        let long = String(repeating: "é", count: 40) // 80 bytes
        let next = AlternativeServiceName.next(after: long)
        #expect(next.utf8.count <= 63)
        #expect(next.hasSuffix(" #2"))
        #expect(next == String(repeating: "é", count: 30) + " #2") // 60 bytes of base: 30 whole characters
        let counted = String(repeating: "x", count: 59) + " #99"
        #expect(AlternativeServiceName.next(after: counted) == String(repeating: "x", count: 58) + " #100")
    }
}
