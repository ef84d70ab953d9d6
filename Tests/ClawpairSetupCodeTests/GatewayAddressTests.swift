import ClawpairSetupCode
import Testing

/// Gateway addresses as people type them: URL, bare host[:port], setup code.
@Suite struct GatewayAddressTests {
    @Test("URLs: http → ws, https → wss, default ports by scheme, context path kept")
    func urls() throws {
        #expect(try GatewayAddress.parse(" https://GW.example.com/openclaw-gw ")
                == .url(SetupEndpoint(host: "gw.example.com", explicitPort: nil, tls: true, contextPath: "/openclaw-gw")))
        guard case .url(let plain) = try GatewayAddress.parse("ws://192.168.1.5") else { Issue.record("not a URL"); return }
        #expect(plain.port == 18789 && !plain.tls)
    }

    @Test("host[:port]: 18789 by default; wss unless the plaintext policy allows the host")
    func hostPort() throws {
        #expect(try GatewayAddress.parse("192.168.1.5") == .hostPort(SetupEndpoint(host: "192.168.1.5", explicitPort: 18789, tls: false)))
        #expect(try GatewayAddress.parse("gw.example.com") == .hostPort(SetupEndpoint(host: "gw.example.com", explicitPort: 18789, tls: true)))
        #expect(try GatewayAddress.parse("[::1]:9000") == .hostPort(SetupEndpoint(host: "::1", explicitPort: 9000, tls: false)))
    }

    @Test("setup codes are classified as such; other text is unrecognized, shortened and redacted")
    func codesAndErrors() throws {
        let (code, _) = try SetupCode.make(urls: ["ws://192.168.1.5:18789"], bootstrapToken: "bootstrap-token-0123456789",
                                           expiresAtMs: 1_800_000_600_000, defaultScheme: .ws)
        guard case .setupCode(let decoded) = try GatewayAddress.parse(code) else { Issue.record("not a setup code"); return }
        #expect(decoded.bootstrapToken == "bootstrap-token-0123456789")
        #expect(throws: GatewayAddress.ParseError.unrecognized("ftp://x")) { try GatewayAddress.parse("ftp://x") }
        #expect(throws: GatewayAddress.ParseError.unrecognized("gw.example.com/path")) { try GatewayAddress.parse("gw.example.com/path") }
        #expect(GatewayAddress.redacted(code) == String(code.prefix(8)) + "…")
        #expect(GatewayAddress.trimmed("\t gw.local \n") == "gw.local")
    }

    @Test("a setup code that fails to decode is a bad code, never a host name for DNS (#25.9)")
    func brokenCodeIsNotAHost() throws {
        let (code, _) = try SetupCode.make(urls: ["ws://192.168.1.5:18789"], bootstrapToken: "bootstrap-token-0123456789",
                                           expiresAtMs: 1_800_000_600_000, defaultScheme: .ws)
        let broken = String(code.dropLast(3)) + "_x"  // damaged base64url: still the secret's characters
        do {
            let parsed = try GatewayAddress.parse(broken)
            Issue.record("parsed as \(parsed)")
        } catch {
            guard case .setupCode = error else { Issue.record("\(error)"); return }
        }
        // Host names of every shape still parse as hosts.
        #expect(try GatewayAddress.parse("gw-1.example.com:9000") == .hostPort(SetupEndpoint(host: "gw-1.example.com", explicitPort: 9000, tls: true)))
        #expect(try GatewayAddress.parse("kitchen-pi.local") == .hostPort(SetupEndpoint(host: "kitchen-pi.local", explicitPort: 18789, tls: false)))
    }
}
