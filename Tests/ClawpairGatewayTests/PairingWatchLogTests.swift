import ClawpairCore
import Testing
@testable import ClawpairGateway

/// The watch's transcript and rule decisions, event by event, for people and as JSON lines.
@Suite struct PairingWatchLogTests {
    static let now: Int64 = 1_000_000

    static func request(_ id: String, role: String, ip: String) throws -> PendingRequest {
        try PendingRequest(json: .object([("requestId", .string(id)), ("deviceId", .string(String(repeating: "d", count: 64))),
                                          ("publicKey", "k"), ("displayName", "box"), ("role", .string(role)),
                                          ("remoteIp", .string(ip)), ("ts", .int(now - 5_000))]))
    }

    static let rules = PairingAutoApproval(role: "node", networks: [IPNetwork("10.0.0.0/8")!])

    @Test("for people: the connected note, each request's line, rule decisions noted, the acted line naming the rule")
    func human() throws {
        var log = PairingWatchLog(rules: Self.rules, jsonLines: false)
        let lan = try Self.request("r-lan", role: "node", ip: "10.1.2.3")
        let wan = try Self.request("r-wan", role: "node", ip: "192.0.2.9")
        let connected = log.handle(.connected(pending: [wan, lan], reconnect: false), now: Self.now)
        #expect(connected.json == nil)
        #expect(connected.lines == [
            .note("Watching for pairing requests; 2 pending. Ctrl-C stops."),
            .output("request r-lan  box (dddddddddddd…)  node  -  from 10.1.2.3  5s ago"),
            .output("request r-wan  box (dddddddddddd…)  node  -  from 192.0.2.9  5s ago"),
            .note("not approving r-wan: address 192.0.2.9 is outside 10.0.0.0/8"),
        ])
        #expect(connected.actions == [.approve(requestId: "r-lan")])
        #expect(log.approvedBy == ["r-lan": "matches role node, from 10.0.0.0/8"])

        let acted = log.handle(.acted(.approve(requestId: "r-lan"), result: .object([])), now: Self.now)
        #expect(acted.lines == [.output("approved r-lan (matches role node, from 10.0.0.0/8)"),
                                .note("approved r-lan by rule: matches role node, from 10.0.0.0/8")])
        let byKey = log.handle(.acted(.reject(requestId: "r-wan"), result: .object([])), now: Self.now)
        #expect(byKey.lines == [.output("rejected r-wan"), .note("rejected r-wan by key")])

        let again = log.handle(.connected(pending: [], reconnect: true), now: Self.now)
        #expect(again.lines == [.note("Reconnected; 0 pending.")] && again.actions.isEmpty)
        // Issue #24 §16: a reconnect's listing prints only the requests not on the screen yet.
        let fresh = try Self.request("r-new", role: "node", ip: "192.0.2.10")
        let relisted = log.handle(.connected(pending: [wan, fresh], reconnect: true), now: Self.now)
        #expect(relisted.lines.filter { !$0.isNote }.map(\.text) == ["request r-new  box (dddddddddddd…)  node  -  from 192.0.2.10  5s ago"],
                "\(relisted.lines)")
        let closed = GatewayError.closed(code: 1012, reason: "shutdown", during: "a call")
        let lost = log.handle(.disconnected(error: closed, retryIn: .milliseconds(500)), now: Self.now)
        #expect(lost.lines == [.note("connection lost: \(closed.message); reconnecting in 500ms")])
        let other = log.handle(.other(name: "node.pair.requested", payload: nil), now: Self.now)
        #expect(other.lines == [.output("event node.pair.requested")])
        #expect(other.lines.map(\.text) == ["event node.pair.requested"] && !other.lines[0].isNote && lost.lines[0].isNote)
    }

    @Test("as JSON lines: each event once, the acted event naming its rule; notes stay, human lines go")
    func jsonLines() throws {
        var log = PairingWatchLog(rules: Self.rules, jsonLines: true)
        let request = try Self.request("r-1", role: "operator", ip: "10.1.2.3")
        let requested = log.handle(.requested(request, supersedes: "r-0"), now: Self.now)
        #expect(requested.json == PairingWatchEvent.requested(request, supersedes: "r-0").json())
        #expect(requested.lines == [.note("not approving r-1: asks for role operator, not node")])
        #expect(requested.actions.isEmpty)

        let lan = try Self.request("r-2", role: "node", ip: "10.9.9.9")
        #expect(log.handle(.requested(lan, supersedes: nil), now: Self.now).actions == [.approve(requestId: "r-2")])
        let acted = PairingWatchEvent.acted(.approve(requestId: "r-2"), result: .object([]))
        let output = log.handle(acted, now: Self.now)
        #expect(output.json == acted.json(rule: "matches role node, from 10.0.0.0/8"))
        #expect(output.lines == [.note("approved r-2 by rule: matches role node, from 10.0.0.0/8")])
        let connected = log.handle(.connected(pending: [lan], reconnect: false), now: Self.now)
        #expect(connected.lines.isEmpty && connected.actions == [.approve(requestId: "r-2")])
    }

    @Test("interactive: keys act on the newest request, each change of it is noted, a key with nothing pending says so")
    func keys() throws {
        var log = PairingWatchLog(rules: PairingAutoApproval(role: nil, networks: []), jsonLines: false, interactive: true)
        let empty = log.pressed([UInt8(ascii: "a")])
        #expect(empty.output.lines == [.note("no request pending")] && empty.output.actions.isEmpty && !empty.quit)
        let request = try Self.request("r-1", role: "node", ip: "10.1.2.3")
        let connected = log.handle(.connected(pending: [request], reconnect: false), now: Self.now)
        #expect(connected.lines.last == .note("newest: r-1 (box); " + PairingWatchKeys.help))
        let pressed = log.pressed([UInt8(ascii: "r"), UInt8(ascii: "q")])
        #expect(pressed.output.actions == [.reject(requestId: "r-1")] && pressed.output.lines.isEmpty && pressed.quit)
        let resolved = log.handle(.resolved(try PairingResolution(json: .object([("requestId", "r-1"), ("decision", "rejected")]))),
                                  now: Self.now)
        #expect(resolved.lines == [.output("resolved r-1: rejected"), .note("no request pending; " + PairingWatchKeys.help)])
        #expect(log.handle(.other(name: "device.pair.changed", payload: nil), now: Self.now).lines.count == 1)

        var quiet = PairingWatchLog(rules: Self.rules, jsonLines: false)
        #expect(quiet.keys == nil && quiet.pressed([UInt8(ascii: "a")]).output == PairingWatchOutput())
        #expect(!quiet.handle(.connected(pending: [request], reconnect: false), now: Self.now).lines.contains { $0.text.hasPrefix("newest") })
    }

    @Test("without rules nothing is decided or noted")
    func noRules() throws {
        var log = PairingWatchLog(rules: PairingAutoApproval(role: nil, networks: []), jsonLines: false)
        let output = log.handle(.requested(try Self.request("r-1", role: "node", ip: "10.1.2.3"), supersedes: nil), now: Self.now)
        #expect(output.actions.isEmpty && output.lines.count == 1)
    }

    @Test("rules from text: CIDRs parse, the first bad one is thrown as given")
    func rulesFromText() throws {
        let rules = try PairingAutoApproval(role: "node", cidrs: ["10.0.0.0/8", "fd00::/8"])
        #expect(rules.networks.map(\.description) == ["10.0.0.0/8", "fd00::/8"])
        #expect(throws: PairingAutoApproval.InvalidNetwork(text: "10.0.0.0/33")) {
            try PairingAutoApproval(role: nil, cidrs: ["10.0.0.1", "10.0.0.0/33", "nope"])
        }
        #expect(PairingAutoApproval.InvalidNetwork(text: "a\u{7}").message
                == "invalid network: " + TerminalText.sanitize("a\u{7}", maxScalars: 64))
    }
}
