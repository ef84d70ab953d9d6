import ClawpairCore
@testable import ClawpairSetupCode
import Testing

@Suite struct PlaintextPolicyTests {
    @Test func acceptedVectors() throws {
        for vector in try Vectors.urlPolicy().plaintextWsAccepted {
            let endpoint = try #require(SetupURL.parse(vector.url, defaultScheme: .ws), "\(vector.url)")
            #expect(PlaintextPolicy.allowsPlaintext(host: endpoint.host), "\(vector.url) (\(vector.source))")
            #expect(PlaintextPolicy.allowsURL(vector.url) == true, "\(vector.url)")
            do {
                let decoded = try SetupCode.decode(vector.url, nowMs: Vectors.fixedNowMs)
                #expect(!decoded.primary.tls, "\(vector.url)")
                #expect(try SetupCode.decode(#"{"url":"\#(vector.url)","bootstrapToken":"t"}"#, nowMs: Vectors.fixedNowMs).primary.tls == false,
                        "\(vector.url) in a payload")
            } catch {
                Issue.record("\(vector.url) (\(vector.source)): \(error.message)")
            }
            #expect((try? SetupCode.make(urls: [vector.url], bootstrapToken: "t", expiresAtMs: 1, defaultScheme: .ws)) != nil,
                    "\(vector.url) mintable")
        }
    }

    @Test func refusedVectors() throws {
        for vector in try Vectors.urlPolicy().plaintextWsRefused {
            let endpoint = try #require(SetupURL.parse(vector.url, defaultScheme: .ws), "\(vector.url)")
            #expect(!PlaintextPolicy.allowsPlaintext(host: endpoint.host), "\(vector.url) (\(vector.source))")
            #expect(PlaintextPolicy.allowsURL(vector.url) == false, "\(vector.url)")
            #expect(throws: SetupCodeError.insecurePlaintextHost(host: endpoint.host), "\(vector.url)") {
                try SetupCode.decode(vector.url, nowMs: Vectors.fixedNowMs)
            }
            #expect(throws: SetupCodeError.insecurePlaintextHost(host: endpoint.host), "\(vector.url) in a payload") {
                try SetupCode.decode(#"{"url":"\#(vector.url)","bootstrapToken":"t"}"#, nowMs: Vectors.fixedNowMs)
            }
            #expect(throws: SetupCodeError.insecurePlaintextHost(host: endpoint.host), "\(vector.url) minting") {
                try SetupCode.make(urls: [vector.url], bootstrapToken: "t", expiresAtMs: 1, defaultScheme: .ws)
            }
            // The same host over TLS is fine.
            let secure = "wss://" + endpoint.urlHost
            #expect((try? SetupCode.decode(secure, nowMs: Vectors.fixedNowMs)) != nil, "\(secure)")
        }
    }

    @Test func alwaysAcceptedVectors() throws {
        for vector in try Vectors.urlPolicy().alwaysAccepted {
            #expect(PlaintextPolicy.allowsURL(vector.url) == true, "\(vector.url)")
            #expect((try? SetupCode.decode(vector.url, nowMs: Vectors.fixedNowMs))?.primary.tls == true, "\(vector.url)")
        }
    }

    @Test(arguments: [
        ("localhost", true), ("LOCALHOST.", true), ("127.0.0.1", true), ("127.255.255.254", true), ("[::1]", true),
        ("::1", true), ("::ffff:127.0.0.1", true), ("[::ffff:7f00:1]", true), ("10.0.2.2", true), ("10.255.0.1", true),
        ("172.16.0.0", true), ("172.31.255.255", true), ("192.168.0.1", true), ("169.254.0.1", true),
        ("fe80::1%eth0", true), ("[FE80::1%25en0]", true), ("febf::1", true), ("fc00::1", true), ("fdff::1", true),
        ("openclaw.local", true), ("Studio.Local.", true),
        ("172.15.255.255", false), ("172.32.0.0", false), ("192.169.0.1", false), ("169.253.0.1", false),
        ("100.64.0.1", false), ("100.127.255.255", false), ("8.8.8.8", false), ("0.0.0.0", false),
        ("fec0::1", false), ("fe00::1", false), ("fb00::1", false), ("2001:db8::1", false), ("::", false),
        ("::ffff:192.168.1.1", false), ("::ffff:8.8.8.8", false), ("gateway.tailnet.ts.net", false),
        ("127.attacker.example", false), ("localhost.attacker.example", false), ("local", false), ("studio", false),
        ("127.1", false), ("010.0.0.1", false), ("0x7f.0.0.1", false), ("", false), ("[", false), ("%", false),
        ("openclaw.local.evil.com", false), ("openclaw.localhost", false),
    ])
    func hostClasses(host: String, allowed: Bool) {
        #expect(PlaintextPolicy.allowsPlaintext(host: host) == allowed, "\(host)")
    }

    @Test func loopback() {
        for host in ["localhost", "Localhost.", "127.0.0.1", "127.9.9.9", "::1", "[::1]", "::ffff:127.0.0.2"] {
            #expect(PlaintextPolicy.isLoopback(host: host), "\(host)")
        }
        for host in ["192.168.1.20", "10.0.2.2", "openclaw.local", "::2", "128.0.0.1", "localhost.localdomain"] {
            #expect(!PlaintextPolicy.isLoopback(host: host), "\(host)")
        }
    }

    @Test func refusalMessage() {
        #expect(PlaintextPolicy.refusalMessage.hasPrefix(
            "Tailscale and public mobile pairing require a secure gateway URL (wss://)"))
        #expect(PlaintextPolicy.refusalMessage.contains("tailscale serve"))
        #expect(PlaintextPolicy.refusalMessage.contains("gateway.tls.enabled"))
        #expect(PlaintextPolicy.refusalMessage(host: "8.8.8.8").contains("8.8.8.8"))
        #expect(PlaintextPolicy.allowsURL("mailto:x@y") == nil)
    }
}
