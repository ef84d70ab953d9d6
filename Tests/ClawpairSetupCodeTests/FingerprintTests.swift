@testable import ClawpairSetupCode
import Testing

@Suite struct FingerprintTests {
    @Test func vectors() throws {
        for vector in try Vectors.urlPolicy().tlsFingerprint {
            #expect(TLSFingerprint.normalize(vector.input) == vector.output, "\(vector.input.debugDescription)")
        }
    }

    @Test(arguments: [
        "", "sha256:", "sha256:sha256:" + String(repeating: "a", count: 64), String(repeating: "g", count: 64),
        String(repeating: "a", count: 65), String(repeating: "a", count: 63), String(repeating: "aa:", count: 32),
        ":" + String(repeating: "aa:", count: 31) + "aa", String(repeating: "a", count: 10_000),
        "SHA-256:" + String(repeating: "a", count: 64), String(repeating: "aa-", count: 31) + "aa",
        String(repeating: "é", count: 32),
    ])
    func invalid(input: String) {
        #expect(TLSFingerprint.normalize(input) == nil, "\(input.prefix(80))")
    }

    @Test func prefixAnyCaseAndWhitespace() {
        let hex = String(repeating: "0a", count: 32)
        #expect(TLSFingerprint.normalize("\tShA256:" + hex.uppercased() + "\n") == hex)
        #expect(TLSFingerprint.normalize("\u{3000}" + hex) == hex)
    }
}
