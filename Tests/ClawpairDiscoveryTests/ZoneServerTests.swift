import ClawpairDNS
@testable import ClawpairDiscovery
import ClawpairTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Our zone file served by a real authoritative server (Knot DNS) in one lab namespace, queried
/// from another with our own codec over UDP and cross-checked with `kdig`. Nothing leaves the lab.
@Suite("Zone served by Knot DNS", .networkLab, .serialized,
       .enabled(if: NetworkLab.hasKnot || Harness.isCI,
                "needs Knot DNS (knot, knot-dnsutils): run scripts/install-deps"))
struct ZoneServerTests {
    static let domain = "openclaw.internal."
    static let fingerprint = String(repeating: "a3f1c2d4", count: 8)

    static let options = WideAreaZoneOptions(
        domain: domain, gatewayPort: 18789, displayName: "Peter\u{2019}s \"Mac\" \\ Studio (OpenClaw)",
        tailnetIPv4: "100.123.224.76", tailnetIPv6: "fd7a:115c:a1e0::8801:e04c", gatewayTlsEnabled: true,
        gatewayTlsFingerprintSha256: fingerprint, instanceLabel: "Studio London", hostLabel: "studio-london",
        tailnetDns: "studio.tail1234.ts.net", sshPort: 2222, cliPath: "/opt/homebrew/bin/openclaw", osHostname: "studio")

    @Test("knotd loads our zone; answers from another namespace decode to exactly the records the zone writer meant")
    func knotServesOurZone() async throws {
        try await withNetworkLab { lab in
            let server = try await lab.addHost("dns")
            let client = try await lab.addHost("client")
            let link = try await lab.link(server, client)
            let update = WideAreaZone.update(Self.options, existing: nil, nowMs: 1_773_403_200_000)
            #expect(update.text.contains(#""displayName=Peter\226\128\153s \"Mac\" \\ Studio (OpenClaw)""#))
            let knot = try await lab.startKnot(on: server, addresses: [link.a.ipv4, link.a.ipv6], domain: Self.domain, zone: update.text)
            let expected = try WideAreaZone.records(Self.options, serial: update.serial!)
            let origin = try DNSName(Self.domain)
            let service = try DNSName("_openclaw-gw._tcp.\(Self.domain)")
            let instance = try DNSName("studio-london._openclaw-gw._tcp.\(Self.domain)")
            let host = try DNSName("studio-london.\(Self.domain)")

            // Every name and type the zone holds, over IPv4 and IPv6, with and without EDNS.
            let questions: [(DNSName, DNSType)] = [(origin, .soa), (origin, .ns), (service, .ptr), (instance, .srv),
                                                   (instance, .txt), (host, .a), (host, .aaaa)]
            for (index, (name, type)) in questions.enumerated() {
                for address in [link.a.ipv4, link.a.ipv6] {
                    let edns = index % 2 == 0
                    let response = try await client.inNamespace {
                        try UDPQuery.ask(name: name, type: type, server: address, id: UInt16(100 + index), edns: edns)
                    }
                    let id = "\(name) \(type) via \(address)"
                    #expect(response.header.isResponse && response.header.isAuthoritative, "\(id)")
                    #expect(response.header.responseCode == .noError, "\(id): \(response)")
                    #expect(response.questions == [DNSQuestion(name: name, type: type)], "\(id)")
                    let want = expected.filter { $0.name == name && $0.type == type }
                    #expect(!want.isEmpty && response.answers == want, "\(id): got\n\(response)\nwanted \(want)")
                    #expect((response.edns != nil) == edns, "\(id): EDNS echoed only when asked")
                }
            }

            // The three records a client needs make the beacon, and its endpoint follows TLS.
            let ptr = try await client.inNamespace { try UDPQuery.ask(name: service, type: .ptr, server: link.a.ipv4, id: 1) }
            guard case let .ptr(target)? = ptr.answers.first?.data else {
                Issue.record("no PTR answer: \(ptr)")
                return
            }
            let srv = try await client.inNamespace { try UDPQuery.ask(name: target, type: .srv, server: link.a.ipv4, id: 2) }
            let txt = try await client.inNamespace { try UDPQuery.ask(name: target, type: .txt, server: link.a.ipv4, id: 3) }
            guard case let .srv(srvData)? = srv.answers.first?.data, case let .txt(strings)? = txt.answers.first?.data else {
                Issue.record("no SRV or TXT: \(srv)\n\(txt)")
                return
            }
            let beacon = GatewayBeacon(instance: target, domain: Self.domain, srv: srvData, txt: strings)
            #expect(beacon.instanceName == "studio-london")
            #expect(beacon.displayName == "Peter\u{2019}s \"Mac\" \\ Studio (OpenClaw)")
            #expect(beacon.host == "studio-london.openclaw.internal" && beacon.port == 18789)
            #expect(beacon.gatewayTls && beacon.gatewayTlsFingerprintSha256 == Self.fingerprint)
            #expect(beacon.tailnetDns == "studio.tail1234.ts.net" && beacon.sshPort == 2222 && beacon.cliPath == "/opt/homebrew/bin/openclaw")
            #expect(beacon.endpoint?.url == "wss://studio-london.openclaw.internal:18789")

            // A name the zone does not have: NXDOMAIN with the SOA in the authority section.
            let missing = try DNSName("nobody._openclaw-gw._tcp.\(Self.domain)")
            let nx = try await client.inNamespace { try UDPQuery.ask(name: missing, type: .srv, server: link.a.ipv4, id: 4) }
            #expect(nx.header.responseCode == .nameError && nx.answers.isEmpty, "\(nx)")
            #expect(nx.authorities.map(\.type) == [.soa], "\(nx)")

            // kdig, an independent client and presenter, sees the same TXT strings and PTR.
            let kdigTXT = try await client.run(["kdig", "@\(link.a.ipv4)", "-t", "TXT", instance.description, "+short"]).requireSuccess()
            #expect(DigOutput.txt(kdigTXT.stdout).strings == TXTRecord(strings: strings).strings, "kdig TXT: \(kdigTXT.stdout)")
            let kdigPTR = try await client.run(["kdig", "@\(link.a.ipv6)", "-t", "PTR", service.description, "+short"]).requireSuccess()
            #expect(DigOutput.instanceName(fromPTR: kdigPTR.stdout, domain: Self.domain) == "studio-london", "kdig PTR: \(kdigPTR.stdout)")

            // The serving workflow: a changed zone with the next serial, then `knotc zone-reload`.
            var changed = Self.options
            changed.gatewayPort = 18790
            let next = WideAreaZone.update(changed, existing: update.text, nowMs: 1_773_403_200_000)
            #expect(next.changed && next.serial == update.serial! + 1)
            try next.text.write(toFile: knot.zonePath, atomically: true, encoding: .utf8)
            // -b: knotc returns once the reload is done, so the next query sees the new zone.
            try await server.run(["knotc", "-c", knot.config, "-b", "zone-reload", Self.domain]).requireSuccess()
            let soa = try await client.inNamespace { try UDPQuery.ask(name: origin, type: .soa, server: link.a.ipv4, id: 200) }
            var serial: UInt32?
            if case let .soa(data)? = soa.answers.first?.data { serial = data.serial }
            #expect(serial == next.serial, "knotd did not pick up the new serial")
            let newSRV = try await client.inNamespace { try UDPQuery.ask(name: instance, type: .srv, server: link.a.ipv4, id: 300) }
            #expect(newSRV.answers == (try WideAreaZone.records(changed, serial: next.serial!)).filter { $0.type == .srv })

            try await server.run(["knotc", "-c", knot.config, "stop"]).requireSuccess()
            _ = await knot.process.terminate(grace: .seconds(5))
        }
    }
}

/// A one-shot DNS query over UDP with our codec, from whichever network namespace the calling
/// thread is in. Retries on timeout; checks the ID and that the answer is a response.
enum UDPQuery {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func ask(name: DNSName, type: DNSType, server: String, id: UInt16, edns: Bool = false) throws -> DNSMessage {
        var query = DNSMessage.query(id: id, name: name, type: type)
        if edns { query.additionals.append(EDNSInfo(udpPayloadSize: 1232).record) }
        let bytes = try query.pack()
        for _ in 0..<3 {
            if let reply = try exchange(bytes, server: server, timeoutMs: 2000) {
                let message = try DNSMessage.unpack(reply)
                guard message.header.id == id, message.header.isResponse else { continue }
                return message
            }
        }
        throw Failure(description: "no answer from \(server) for \(name) \(type)")
    }

    /// Sends `bytes` to `server`:53 and returns the first datagram back, or nil on timeout.
    static func exchange(_ bytes: [UInt8], server: String, timeoutMs: Int32) throws -> [UInt8]? {
        let v6 = server.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var sent = -1
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(53).bigEndian
            guard inet_pton(AF_INET6, server, &address.sin6_addr) == 1 else { throw Failure(description: "bad address \(server)") }
            sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(53).bigEndian
            guard inet_pton(AF_INET, server, &address.sin_addr) == 1 else { throw Failure(description: "bad address \(server)") }
            sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else { throw Failure(description: "sendto \(server): \(String(cString: strerror(errno)))") }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeoutMs)
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_535)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { throw Failure(description: "recv: \(String(cString: strerror(errno)))") }
        return Array(buffer[..<count])
    }
}
