import ClawpairCore
import Testing
@testable import ClawpairGateway

/// Registry records, nodes and node requests for people and for `--json`: exact lines, every
/// painted part through `paint`, never a token value.
@Suite struct RecordRenderingTests {
    /// Marks each painted part, so the roles show in the text.
    static func tag(_ role: TextRole, _ text: String) -> String { "<\(role)>\(text)</\(role)>" }

    static let now: Int64 = 1_800_000_000_000
    static let tls = "wss://gw.example.com", lan = "ws://192.168.1.5:18789"

    static func gateway() -> PairedGateway {
        var gateway = PairedGateway(id: "gw-0123456789abcdef", name: "home", urls: [tls, lan], tlsFingerprint: String(repeating: "ab", count: 32),
                                    deviceId: "0123456789abcdef0123", pairedAtMs: now - 3_600_000)
        gateway.store(StoredDeviceToken(token: "node-secret", role: "node", scopes: [], issuedAtMs: 11))
        gateway.store(StoredDeviceToken(token: "op-secret", role: "operator", scopes: ["operator.read"], issuedAtMs: nil))
        return gateway
    }

    @Test("a paired gateway: its lines (the chosen one marked *) and its JSON, with the roles and scopes of its tokens, not their values")
    func pairedGateway() {
        let gateway = Self.gateway()
        #expect(gateway.textLines(active: true, nowMs: Self.now, paint: Self.tag) == [
            "* <bold>home</bold>  <dim>gw-0123456789abcdef</dim>",
            "    <dim>urls      </dim>wss://gw.example.com, ws://192.168.1.5:18789",
            "    <dim>tls pin   </dim>" + String(repeating: "ab", count: 32),
            "    <dim>tokens    </dim>node, operator (operator.read)",
            "    <dim>device    </dim>0123456789abcdef…",
            "    <dim>paired    </dim>1h ago",
            "    <dim>last seen </dim>-",
        ])
        var bare = PairedGateway(id: "gw-1", name: "lab\u{1B}", urls: [Self.lan], deviceId: "d1", pairedAtMs: 0)
        bare.lastSeenAtMs = Self.now + 5
        #expect(bare.textLines(active: false, nowMs: Self.now) == [
            "  lab\\x1b  gw-1", "    urls      ws://192.168.1.5:18789", "    tls pin   -", "    tokens    -", "    device    d1…",
            "    paired    -", "    last seen just now",
        ])
        let json = gateway.publicJSON(active: false)
        #expect(json == .object([
            ("id", "gw-0123456789abcdef"), ("name", "home"), ("active", false), ("urls", [.string(Self.tls), .string(Self.lan)]),
            ("tlsFingerprint", .string(String(repeating: "ab", count: 32))), ("deviceId", "0123456789abcdef0123"),
            ("tokens", [.object([("role", "node"), ("scopes", []), ("issuedAtMs", 11)]),
                        .object([("role", "operator"), ("scopes", ["operator.read"]), ("issuedAtMs", .null)])]),
            ("pairedAtMs", .int(Self.now - 3_600_000)), ("lastSeenAtMs", .null),
        ]))
        #expect(!json.compact().contains("secret"))
    }

    @Test("a registry snapshot: {active, gateways}, every gateway's lines with a blank line between, completion names")
    func snapshot() {
        let home = Self.gateway()
        let lab = PairedGateway(id: "gw-2", name: "lab", urls: [Self.lan], deviceId: "d1", pairedAtMs: 0)
        let odd = PairedGateway(id: "gw-3", name: "two\nlines", urls: [Self.lan], deviceId: "d1", pairedAtMs: 0)
        let snapshot = RegistrySnapshot(gateways: [lab, home], activeID: home.id)
        #expect(snapshot.publicJSON == .object([("active", .string(home.id)),
                                                ("gateways", [home.publicJSON(active: true), lab.publicJSON(active: false)])]))
        #expect(snapshot.textLines(nowMs: Self.now)
                == home.textLines(active: true, nowMs: Self.now) + [""] + lab.textLines(active: false, nowMs: Self.now))
        #expect(RegistrySnapshot().publicJSON == .object([("active", .null), ("gateways", [])]))
        #expect(RegistrySnapshot().textLines(nowMs: Self.now).isEmpty)
        #expect(RegistrySnapshot(gateways: [lab, odd, home]).completionNames == ["home", "lab"])
    }

    static func node(_ members: [(String, JSONValue)]) throws -> NodeListNode {
        try NodeListNode(json: .object(members))
    }

    @Test("a node in full: connected with every field, and offline with none (empty rows left out, never seen)")
    func nodeStatus() throws {
        let full = try Self.node([
            ("nodeId", "node-0123456789abcdef"), ("displayName", "Kitchen"), ("platform", "linux"), ("deviceFamily", "Linux"),
            ("version", "2026.7.1"), ("coreVersion", "1.2"), ("clientId", "node-host"), ("clientMode", "node"), ("caps", ["camera"]),
            ("commands", ["system.run", "camera.snap"]), ("approvalState", "approved"), ("paired", true), ("connected", true),
            ("connectedAtMs", .int(Self.now - 60_000)), ("remoteIp", "192.168.1.9"), ("pendingRequestId", "req-1"),
        ])
        #expect(full.statusLines(nowMs: Self.now, paint: Self.tag) == [
            "<good>●</good> <bold>Kitchen</bold>  connected",
            "    <dim>id        </dim>node-0123456789abcdef",
            "    <dim>platform  </dim>linux · Linux",
            "    <dim>versions  </dim>version 2026.7.1 · core 1.2",
            "    <dim>client    </dim>node-host / node",
            "    <dim>caps      </dim>camera",
            "    <dim>commands  </dim>system.run,camera.snap",
            "    <dim>state     </dim>approved · paired · pending request req-1",
            "    <dim>seen      </dim>connected 1m ago · 192.168.1.9",
        ])
        let bare = try Self.node([("nodeId", "n1")])
        #expect(bare.statusLines(nowMs: Self.now, paint: Self.tag) == [
            "<dim>○</dim> <bold>(unnamed)</bold>  offline",
            "    <dim>id        </dim>n1", "    <dim>versions  </dim>-", "    <dim>client    </dim>- / -", "    <dim>caps      </dim>-",
            "    <dim>commands  </dim>-", "    <dim>state     </dim>-", "    <dim>seen      </dim>never seen",
        ])
        #expect(NodeListNode.statusLines([full, bare], nowMs: Self.now)
                == full.statusLines(nowMs: Self.now) + [""] + bare.statusLines(nowMs: Self.now))
        #expect(NodeListNode.statusLines([], nowMs: Self.now).isEmpty)
    }

    @Test("table rows of nodes and node requests match their headers")
    func tableRows() throws {
        let online = try Self.node([("nodeId", "node-0123456789abcdef"), ("displayName", "Kitchen"), ("platform", "linux"),
                                    ("approvalState", "approved"), ("remoteIp", "192.168.1.9"), ("connected", true)])
        let offline = try Self.node([("nodeId", "n1"), ("lastSeenAtMs", .int(Self.now - 7_200_000))])
        #expect(NodeListNode.tableHeader.count == 6)
        #expect(online.tableRow(nowMs: Self.now) == ["Kitchen", "node-0123456…", "linux", "approved", "192.168.1.9", "connected"])
        // Issue #24 §16: "2h ago" under CONNECTED read as a connection; the column says the status.
        #expect(NodeListNode.tableHeader.last == "STATUS")
        #expect(offline.tableRow(nowMs: Self.now) == ["-", "n1", "-", "-", "-", "offline, seen 2h ago"])
        let never = try Self.node([("nodeId", "n2")])
        #expect(never.tableRow(nowMs: Self.now).last == "offline")

        let step1 = NodePendingApproval(step: .devicePairing, requestId: "dev-req", nodeId: "node-dev", displayName: "build-box",
                                        platform: "linux", commands: nil, remoteIp: "10.0.0.7", ts: Self.now - 30_000)
        let step2 = NodePendingApproval(step: .commandSurface, requestId: "surf-req", commands: ["system.run", "system.which"])
        #expect(NodePendingApproval.tableHeader.count == 8)
        #expect(step1.tableRow(nowMs: Self.now) == ["dev-req", "1 device", "node-dev", "build-box", "linux", "-", "10.0.0.7", "30s ago"])
        #expect(step2.tableRow(nowMs: Self.now) == ["surf-req", "2 commands", "-", "-", "-", "system.run,system.which", "-", "-"])
    }

    @Test("an approval's summary names the step: the node's commands, or step 1 of 2, its device pairing")
    func approvalSummary() {
        let surface = NodeApprovalOutcome(request: NodePendingApproval(step: .commandSurface, requestId: "surf-req"), nodeName: "Build Box",
                                          json: .null)
        let device = NodeApprovalOutcome(request: NodePendingApproval(step: .devicePairing, requestId: "dev\u{7}req"), nodeName: "build-box",
                                         json: .null)
        #expect(surface.summary(approved: true) == "Approved the command surface of node Build Box (node request surf-req, step 2).")
        #expect(surface.summary(approved: false) == "Rejected the command surface of node Build Box (node request surf-req, step 2).")
        #expect(device.summary(approved: true) == "Approved the device pairing of node build-box (request dev\\x07req, step 1 of 2).")
        #expect(device.summary(approved: false) == "Rejected the device pairing of node build-box (request dev\\x07req, step 1 of 2).")
    }
}
