import ClawpairCore
import ClawpairDNS
import ClawpairTestSupport
import ClawpairWideArea
import Foundation
import Testing

/// The unicast client against a scripted server in a lab namespace (python3, raw sockets): it
/// ignores garbage, answers with the wrong ID or question, and answers from another port; it
/// falls back to TCP on TC and refuses an over-long TCP frame. The client runs in-process inside
/// the other namespace (`inNamespace`).
@Suite("unicast DNS client", .networkLab, .serialized)
struct UnicastClientLabTests {
    static let server = #"""
        import socket, struct, sys, threading
        host, mode = sys.argv[1], sys.argv[2]
        def answer(query, qid=None, name_override=None, tc=False, ip=b"\x01\x02\x03\x04"):
            qid_bytes = struct.pack("!H", qid) if qid is not None else query[:2]
            question = query[12:]
            end = question.index(b"\x00") + 5
            q = question[:end] if name_override is None else name_override + question[question.index(b"\x00") + 1:end]
            flags = 0x8580 | (0x0200 if tc else 0)
            header = qid_bytes + struct.pack("!HHHHH", flags, 1, 1, 0, 0)
            return header + q + b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + ip
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind((host, 5301))
        other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        other.bind((host, 5302))
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        tcp.bind((host, 5301))
        tcp.listen(4)
        def serve_tcp():
            while True:
                conn, _ = tcp.accept()
                length = struct.unpack("!H", conn.recv(2))[0]
                query = b""
                while len(query) < length:
                    query += conn.recv(length - len(query))
                if mode == "tcp-too-long":
                    conn.sendall(b"\xff\xff" + b"\x00" * 100)
                else:
                    body = answer(query, ip=b"\x05\x06\x07\x08")
                    conn.sendall(struct.pack("!H", len(body)) + body)
                conn.close()
        threading.Thread(target=serve_tcp, daemon=True).start()
        print("ready", flush=True)
        while True:
            query, source = udp.recvfrom(4096)
            if mode == "spoof":
                udp.sendto(b"\x00\x01garbage", source)
                udp.sendto(answer(query, qid=(struct.unpack("!H", query[:2])[0] + 1) & 0xFFFF, ip=b"\x09\x09\x09\x01"), source)
                udp.sendto(answer(query, name_override=b"\x05other\x08internal", ip=b"\x09\x09\x09\x02"), source)
                other.sendto(answer(query, ip=b"\x09\x09\x09\x03"), source)
                udp.sendto(answer(query), source)
            else:
                udp.sendto(answer(query, tc=True, ip=b"\x09\x09\x09\x04"), source)
        """#

    func withServer(_ mode: String, _ body: @escaping @Sendable (LabHost, String) async throws -> Void) async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let script = try lab.writeFile("dns-server.py", contents: Self.server)
            let process = try b.spawn([Harness.python3, script, link.b.ipv4, mode], label: "scripted-dns")
            _ = try await process.waitForLine(on: .stdout, timeout: .seconds(10), describing: "ready") { $0 == "ready" }
            try await body(a, link.b.ipv4)
            _ = await process.terminate()
        }
    }

    static func addresses(_ message: DNSMessage) -> [String] {
        message.answers.compactMap { if case let .a(address) = $0.data { return address.description } else { return nil } }
    }

    @Test("only the datagram from the server's port with our ID and question is accepted")
    func spoofedAnswersIgnored() async throws {
        try await withServer("spoof") { a, address in
            let answer = try await a.inNamespace {
                let client = UnicastDNSClient(servers: [DNSServerAddress.parse("\(address):5301")!])
                return try client.query(try DNSName("gw.openclaw.internal."), .a, deadline: Monotonic.now + .seconds(3))
            }
            #expect(Self.addresses(answer) == ["1.2.3.4"], "\(answer)")
        }
    }

    @Test("TC over UDP: the answer comes over TCP")
    func tcpFallback() async throws {
        try await withServer("tc") { a, address in
            let answer = try await a.inNamespace {
                let client = UnicastDNSClient(servers: [DNSServerAddress.parse("\(address):5301")!])
                return try client.query(try DNSName("gw.openclaw.internal."), .a, deadline: Monotonic.now + .seconds(3))
            }
            #expect(Self.addresses(answer) == ["5.6.7.8"] && !answer.header.isTruncated, "\(answer)")
        }
    }

    @Test("a TCP frame longer than the limit is refused")
    func tcpTooLong() async throws {
        try await withServer("tcp-too-long") { a, address in
            let outcome = try await a.inNamespace { () -> String in
                var options = UnicastDNSClient.Options()
                options.maxTCPMessage = 4096
                let client = UnicastDNSClient(servers: [DNSServerAddress.parse("\(address):5301")!], options: options)
                do {
                    _ = try client.query(try DNSName("gw.openclaw.internal."), .a, deadline: Monotonic.now + .seconds(3))
                    return "answered"
                } catch {
                    return String(describing: error)
                }
            }
            #expect(outcome.contains("declared length 65535"), "\(outcome)")
        }
    }
}
