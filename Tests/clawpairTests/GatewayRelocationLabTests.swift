import ClawpairTestSupport
import Foundation
import Testing

/// Issue #24.6 end to end: a paired gateway moves to another address on the LAN (same beacon
/// instance name, new IP) and `gateways check` finds it again through discovery — a real
/// avahi-daemon on the paired machine's side, python-zeroconf advertising the stand-in gateway —
/// by its identity (the pinned certificate, or the stored token accepted), says so and updates
/// the registry's routes. A beacon under the same name whose gateway cannot prove it (another
/// certificate, even with the pinned fingerprint in its TXT; another plaintext gateway) is not
/// adopted, and pairing again with the moved gateway updates its one record.
@Suite("gateways check: a moved gateway is found again by identity (network lab)", .serialized, .networkLab)
struct GatewayRelocationLabTests {
    static let token = "reloc-shared-token-0123456789abcdef"
    static let port = 18789
    static let instance = "Lab Gateway"

    struct Lab {
        let g: LabHost
        let n: LabHost
        let link: LabLink
        let bus: DBusBus
        let directory: String
        let tokenFile: String
        let stateFile: String
        /// The gateway's certificate (nil: plaintext ws://).
        let certificate: TestCertificate?
        /// The paired machine's clawpair home (on N).
        var home: String { directory + "/node-home" }
        var nodeEnvironment: [String: String?] { ["CLAWPAIR_HOME": home, "DBUS_SYSTEM_BUS_ADDRESS": bus.address] }
        var scheme: String { certificate == nil ? "ws" : "wss" }

        func url(_ ip: String) -> String { "\(scheme)://\(ip):\(GatewayRelocationLabTests.port)" }

        /// A third address of G's link, in the link's /24.
        func address(_ last: Int) -> String {
            link.a.ipv4.split(separator: ".").dropLast().joined(separator: ".") + ".\(last)"
        }

        /// The stand-in gateway in G on `ip` and loopback; `certificate` and `stateFile` make it
        /// the paired gateway (nil: a stranger with its own certificate and pairings).
        func startGateway(at ip: String, certificate: TestCertificate?, stateFile: String?) async throws -> TestGateway {
            var options = TestGatewayOptions(token: GatewayRelocationLabTests.token, publicURL: url(ip), hosts: [ip, "127.0.0.1"],
                                             port: GatewayRelocationLabTests.port, certificate: certificate, stateFile: stateFile)
            options.localAutoApprove = true
            return try await startTestGateway(options, in: g)
        }

        /// The gateway's beacon from G: instance ``GatewayRelocationLabTests/instance``, A record `ip`;
        /// `fingerprint` goes into TXT gatewayTlsSha256 (what the beacon claims, never proof).
        func advertise(at ip: String, fingerprint: String?, in lab: NetworkLab) async throws -> ZeroconfAdvertiser {
            var txt = ["role": "gateway", "transport": "gateway", "gatewayPort": String(GatewayRelocationLabTests.port),
                       "displayName": "Lab Gateway"]
            if let fingerprint {
                txt["gatewayTls"] = "1"
                txt["gatewayTlsSha256"] = fingerprint
            }
            return try await lab.startZeroconfAdvertiser(in: g, instance: GatewayRelocationLabTests.instance,
                                                         port: UInt16(GatewayRelocationLabTests.port), txt: txt, addresses: [ip],
                                                         interfaceAddresses: [ip], server: "lab-gateway.local.")
        }

        /// Moves G's link address from `old` to `new` (the gateway's host got another lease).
        func move(from old: String, to new: String) async throws {
            try await g.ip("addr", "del", "\(old)/24", "dev", link.a.interface)
            try await g.ip("addr", "add", "\(new)/24", "dev", link.a.interface)
        }

        /// clawpair as the operator on G, over loopback.
        func asOperator(_ arguments: [String]) async throws -> ProcessResult {
            var trust: [String] = []
            if let certificate { trust = ["--tls-fingerprint", certificate.fingerprint] }
            return try await g.run([ClawpairBinary.path] + arguments
                                   + ["--url", "\(scheme)://127.0.0.1:\(GatewayRelocationLabTests.port)", "--token-file", tokenFile] + trust,
                                   environment: ["CLAWPAIR_HOME": directory + "/operator-home"], timeout: .seconds(30))
        }

        /// Mints a node setup code for `url(ip)` and writes it to a file.
        func mint(at ip: String) async throws -> String {
            let minted = try await asOperator(["qr", "--setup-code-only", "--node", "--public-url", url(ip)])
            try #require(minted.status.isSuccess, "\(minted)")
            let file = directory + "/code-\(UUID().uuidString.prefix(6)).txt"
            try minted.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }

        /// `clawpair pair` on N with a code for `ip` (trusting the certificate's pin); approves the
        /// request when the gateway asks for it. Returns pair's JSON document.
        func pair(at ip: String, gateway: TestGateway, expectApproval: Bool) async throws -> [String: Any] {
            let code = try await mint(at: ip)
            var command = [ClawpairBinary.path, "pair", "--code-file", code, "--name", "reloc-node", "--json"]
            if let certificate { command += ["--trust", certificate.fingerprint] }
            let pairing = try n.spawn(command, environment: ["CLAWPAIR_HOME": home], label: "pair")
            if expectApproval {
                let pending = try await gateway.waitForLog("pending", timeout: .seconds(20))
                let requestId = try #require(pending["requestId"] as? String)
                let approved = try await asOperator(["devices", "approve", requestId])
                #expect(approved.status.isSuccess, "\(approved)")
            }
            #expect(try await pairing.waitForExit(timeout: .seconds(30)) == .exited(0), "\(pairing.outputExcerpt)")
            return try GatewayRelocationLabTests.json(pairing.stdout)
        }

        /// The paired gateway (its certificate, its state) started at `ip`: pairing with a new code for
        /// it updates record `id`, which then lists `ip` first, and makes no second record.
        func pairingAgainUpdatesTheRecord(at ip: String, id: String) async throws {
            let gateway = try await startGateway(at: ip, certificate: certificate, stateFile: stateFile)
            let again = try await pair(at: ip, gateway: gateway, expectApproval: false)
            #expect(again["updatedRecord"] as? Bool == true, "\(again)")
            #expect((again["gateway"] as? [String: Any])?["id"] as? String == id, "\(again)")
            let records = try records()
            #expect(records.count == 1, "\(records)")
            #expect((records.first?["urls"] as? [String])?.first == url(ip), "\(records)")
            await gateway.stop(grace: .seconds(2))
        }

        /// `gateways check` on N (discovery through N's avahi-daemon).
        func check(_ extra: [String]) async throws -> ProcessResult {
            try await n.run([ClawpairBinary.path, "gateways", "check", "--timeout", "3s"] + extra, environment: nodeEnvironment,
                            timeout: .seconds(60))
        }

        /// The registry's records on N.
        func records() throws -> [[String: Any]] {
            let directory = home + "/gateways"
            return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted().map {
                try GatewayRelocationLabTests.json(try String(contentsOfFile: directory + "/" + $0, encoding: .utf8))
            }
        }
    }

    static func json(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestError("not a JSON object: \(text)")
        }
        return object
    }

    /// Hosts G (gateway) and N (the paired machine, with dbus-daemon and avahi-daemon) on one link.
    static func withRelocationLab(tls: Bool, _ body: (NetworkLab, Lab) async throws -> Void) async throws {
        try await withNetworkLab { lab in
            let g = try await lab.addHost("G")
            let n = try await lab.addHost("N")
            let link = try await lab.link(g, n)
            let bus = try await lab.startDBus(in: n)
            try await lab.startAvahi(in: n, bus: bus)
            let directory = lab.temporaryDirectory.path
            let base = link.a.ipv4.split(separator: ".").dropLast().joined(separator: ".")
            let certificate = tls
                ? try await TestCertificate.make(subjectAltName: "IP:127.0.0.1,IP:\(link.a.ipv4),IP:\(base).77,IP:\(base).99")
                : nil
            defer { certificate?.remove() }
            try await body(lab, Lab(g: g, n: n, link: link, bus: bus, directory: directory,
                                    tokenFile: try lab.writeFile("token", contents: token + "\n"),
                                    stateFile: directory + "/gateway-state.json", certificate: certificate))
        }
    }

    @Test("wss://: the moved gateway is found by its pinned certificate; a beacon with another certificate (claiming the pin in TXT) is not adopted; pairing again updates the one record")
    func pinnedGatewayMoves() async throws {
        try await Self.withRelocationLab(tls: true) { network, lab in
            let certificate = try #require(lab.certificate)
            let old = lab.link.a.ipv4, moved = lab.address(77), third = lab.address(99)
            var gateway = try await lab.startGateway(at: old, certificate: certificate, stateFile: lab.stateFile)
            var beacon = try await lab.advertise(at: old, fingerprint: certificate.fingerprint, in: network)
            let paired = try await lab.pair(at: old, gateway: gateway, expectApproval: true)
            let record = try #require(paired["gateway"] as? [String: Any])
            let id = try #require(record["id"] as? String)
            #expect(record["tlsFingerprint"] as? String == certificate.fingerprint, "\(paired)")
            #expect(try await lab.check([]).status.isSuccess)

            // The gateway's host gets another address; the gateway comes back there with its state and certificate,
            // and its beacon (same instance name) now names the new address.
            try await beacon.stop()
            await gateway.stop(grace: .seconds(2))
            try await lab.move(from: old, to: moved)
            gateway = try await lab.startGateway(at: moved, certificate: certificate, stateFile: lab.stateFile)
            beacon = try await lab.advertise(at: moved, fingerprint: certificate.fingerprint, in: network)

            let found = try await lab.check([])
            #expect(found.status.isSuccess, "\(found)")
            #expect(found.stderr.contains("No route answered; looking for the gateway through discovery"), "\(found)")
            #expect(found.stderr.contains("Found it at \(lab.url(moved)) (TLS pin matched); its routes in the registry are updated."),
                    "\(found)")
            #expect(found.stdout.hasPrefix("Gateway \(try #require(record["name"] as? String)) at \(lab.url(moved))\n"), "\(found)")
            #expect(found.stdout.contains("node: "), "\(found)")
            var records = try lab.records()
            #expect(records.count == 1)
            #expect((records.first?["urls"] as? [String])?.first == lab.url(moved), "\(records)")
            #expect(records.first?["tlsFingerprint"] as? String == certificate.fingerprint)
            // The token was accepted over the new route: the gateway heard this device there.
            #expect(gateway.logs("connect-ok").contains { $0["role"] as? String == "node" && $0["auth"] as? String == "device-token" })

            // An impostor under the same instance name at another address, whose TXT even claims the pinned
            // fingerprint, but whose certificate is another: nothing is sent to it, nothing is adopted.
            try await beacon.stop()
            await gateway.stop(grace: .seconds(2))
            try await lab.move(from: moved, to: third)
            let other = try await TestCertificate.make(subjectAltName: "IP:127.0.0.1,IP:\(third)")
            defer { other.remove() }
            let impostor = try await lab.startGateway(at: third, certificate: other, stateFile: nil)
            let liar = try await lab.advertise(at: third, fingerprint: certificate.fingerprint, in: network)
            let refused = try await lab.check(["--json"])
            #expect(refused.status == .exited(3), "\(refused)")
            let document = try Self.json(refused.stdout)
            #expect(document["ok"] as? Bool == false)
            #expect(document["relocated"] == nil, "\(document)")
            records = try lab.records()
            #expect((records.first?["urls"] as? [String])?.first == lab.url(moved), "the routes stay: \(records)")
            #expect(records.first?["tlsFingerprint"] as? String == certificate.fingerprint)
            #expect(impostor.logs().allSatisfy { !($0["log"] as? String ?? "").hasPrefix("connect") },
                    "no connect reached the impostor: \(impostor.logs())")
            try await liar.stop()
            await impostor.stop(grace: .seconds(2))

            // The real gateway at that address: pairing again (a new code) updates its record, no second one.
            try await lab.pairingAgainUpdatesTheRecord(at: third, id: id)
        }
    }

    @Test("ws://: the moved gateway is found because it accepts the stored token (--json says how); another gateway under the same name is not adopted and the token is kept")
    func plaintextGatewayMoves() async throws {
        try await Self.withRelocationLab(tls: false) { network, lab in
            let old = lab.link.a.ipv4, moved = lab.address(77), third = lab.address(99)
            var gateway = try await lab.startGateway(at: old, certificate: nil, stateFile: lab.stateFile)
            var beacon = try await lab.advertise(at: old, fingerprint: nil, in: network)
            let paired = try await lab.pair(at: old, gateway: gateway, expectApproval: true)
            let id = try #require((paired["gateway"] as? [String: Any])?["id"] as? String)

            try await beacon.stop()
            await gateway.stop(grace: .seconds(2))
            try await lab.move(from: old, to: moved)
            gateway = try await lab.startGateway(at: moved, certificate: nil, stateFile: lab.stateFile)
            beacon = try await lab.advertise(at: moved, fingerprint: nil, in: network)

            let found = try await lab.check(["--json"])
            #expect(found.status.isSuccess, "\(found)")
            let document = try Self.json(found.stdout)
            #expect(document["ok"] as? Bool == true, "\(document)")
            let relocated = try #require(document["relocated"] as? [String: Any], "\(document)")
            #expect(relocated["url"] as? String == lab.url(moved))
            #expect((relocated["urls"] as? [String])?.first == lab.url(moved))
            let proof = try #require(relocated["proof"] as? [String: Any])
            #expect(["tokenIssued", "tokenAccepted"].contains(proof["kind"] as? String ?? ""), "\(proof)")
            #expect(proof["role"] as? String == "node")
            #expect(!found.stdout.contains(Self.token))
            var records = try lab.records()
            #expect(records.count == 1)
            #expect((records.first?["urls"] as? [String])?.first == lab.url(moved), "\(records)")

            // Another plaintext gateway under the same instance name: it refuses the stored token, so it is
            // not this gateway; its refusal does not clear the token either.
            try await beacon.stop()
            await gateway.stop(grace: .seconds(2))
            try await lab.move(from: moved, to: third)
            let stranger = try await lab.startGateway(at: third, certificate: nil, stateFile: nil)
            let sameName = try await lab.advertise(at: third, fingerprint: nil, in: network)
            let refused = try await lab.check(["--json"])
            #expect(refused.status == .exited(3), "\(refused)")
            #expect(try Self.json(refused.stdout)["relocated"] == nil, "\(refused)")
            records = try lab.records()
            #expect((records.first?["urls"] as? [String])?.first == lab.url(moved), "the routes stay: \(records)")
            #expect((records.first?["tokens"] as? [String: Any])?["node"] != nil, "the node token is kept: \(records)")
            #expect(!stranger.logs("connect-ok").contains { $0["role"] as? String == "node" })
            try await sameName.stop()
            await stranger.stop(grace: .seconds(2))

            // The real gateway there: pairing again updates the one record (the gateway reissued the stored token).
            try await lab.pairingAgainUpdatesTheRecord(at: third, id: id)
        }
    }
}
