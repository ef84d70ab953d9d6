import ClawpairTestSupport
import Testing

/// The "No gateways found … Searched …" line names domains that did not come from clawpair
/// (--domain, OPENCLAW_WIDE_AREA_DOMAIN, the config file): they reach the terminal sanitized
/// (issue #12). The only DNS server asked is a closed port on loopback.
@Suite("clawpair discover: nothing found")
struct DiscoverNotFoundTests {
    @Test("--timeout takes a unit, as other commands do; a bad one is a usage error")
    func timeoutUnits() throws {
        let result = try ClawpairBinary.run(["discover", "--wide-area-only", "--dns-server", "127.0.0.1:9",
                                             "--domain", "plain.example", "--timeout", "500ms"])
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.hasSuffix("No gateways found within 500 ms. Searched plain.example.\n"), "\(result)")
        let bad = try ClawpairBinary.run(["discover", "--timeout", "3x"])
        #expect(bad.status == 2 && bad.stderr.contains("--timeout '3x' is not a time"), "\(bad)")
    }

    @Test("escape, bell and bidi characters of a wide-area domain are escaped in the not-found line and the -v notes")
    func sanitizedDomains() throws {
        let hostile = "evil\u{1B}[31m\u{07}\u{202E}lab.example"
        let result = try ClawpairBinary.run(["discover", "--wide-area-only", "--dns-server", "127.0.0.1:9",
                                             "--domain", "plain.example", "--timeout", "500"],
                                            environment: ["OPENCLAW_WIDE_AREA_DOMAIN": hostile])
        // --domain replaces the environment's domain: only plain.example is searched.
        #expect(result.status == 3, "\(result)")
        // The dead server is reported without -v, and the domain's own dot ends the sentence.
        #expect(result.stderr == "warning: wide-area: plain.example.: DNS server 127.0.0.1:9: recv: Connection refused\n"
                    + "No gateways found within 500 ms. Searched plain.example.\n", "\(result)")

        let fromEnvironment = try ClawpairBinary.run(["discover", "--wide-area-only", "--dns-server", "127.0.0.1:9",
                                                      "--timeout", "500", "-v"],
                                                     environment: ["OPENCLAW_WIDE_AREA_DOMAIN": hostile])
        #expect(fromEnvironment.status == 3, "\(fromEnvironment)")
        // With -v the notes name the domain too.
        let lines = fromEnvironment.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("wide-area: evil") }, "\(fromEnvironment)")
        let line = try #require(lines.last)
        #expect(line.hasPrefix("No gateways found within 500 ms. Searched evil"), "\(fromEnvironment)")
        #expect(line.hasSuffix("lab.example.") && !line.hasSuffix(".."), "\(fromEnvironment)")
        #expect(!fromEnvironment.stderr.contains("warning: wide-area:"), "-v has the failure among its notes, once")
        let unsafe = fromEnvironment.stderr.unicodeScalars.filter { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }
        #expect(unsafe.isEmpty, "\(fromEnvironment.stderr.unicodeScalars.map { String($0.value, radix: 16) })")
    }
}
