import ClawpairCore
import ClawpairGateway
import Testing

/// `devices watch` keys: which request `a` and `r` act on as events arrive, and `q`.
@Suite("Pairing watch keys")
struct PairingWatchKeysTests {
    static func request(_ id: String, device: String, name: String? = nil, ts: Int64) throws -> PendingRequest {
        try PendingRequest(json: DeviceApprovalTests.request(id, device: device, name: name, ts: ts))
    }

    @Test("a and r act on the newest pending request; it follows listings, requests, supersessions and resolutions")
    func newestFollowsEvents() throws {
        var keys = PairingWatchKeys()
        #expect(keys.decide(UInt8(ascii: "a")) == .nothingPending)
        #expect(keys.statusLine == "no request pending; keys: a approve newest, r reject newest, q quit")

        let old = try Self.request("old", device: "d1", name: "Pixel", ts: 10)
        let other = try Self.request("other", device: "d2", ts: 20)
        var changed = keys.observe(.connected(pending: [old, other], reconnect: false))
        #expect(changed)
        #expect(keys.decide(UInt8(ascii: "a")) == .act(.approve(requestId: "other"), other))
        #expect(keys.statusLine == "newest: other; keys: a approve newest, r reject newest, q quit")

        // d1 retries: its new request supersedes the old one and is the newest.
        let retry = try Self.request("retry", device: "d1", name: "Pixel", ts: 30)
        changed = keys.observe(.requested(retry, supersedes: "old"))
        #expect(changed)
        #expect(keys.pending.map(\.requestId) == ["retry", "other"])
        #expect(keys.decide(UInt8(ascii: "r")) == .act(.reject(requestId: "retry"), retry))
        #expect(keys.statusLine == "newest: retry (Pixel); keys: a approve newest, r reject newest, q quit")

        changed = keys.observe(.acted(.reject(requestId: "retry"), result: .null))
        #expect(changed)
        #expect(keys.newest == other)
        let resolution = try PairingResolution(json: .object([("requestId", "other"), ("decision", "approved")]))
        changed = keys.observe(.resolved(resolution))
        #expect(changed)
        #expect(keys.newest == nil)
        changed = keys.observe(.other(name: "tick", payload: nil))
        #expect(!changed)
    }

    @Test("q quits whatever is pending; other keys do nothing")
    func quitAndIgnored() throws {
        var keys = PairingWatchKeys()
        keys.observe(.connected(pending: [try Self.request("x", device: "d", ts: 1)], reconnect: true))
        #expect(keys.decide(UInt8(ascii: "q")) == .quit)
        #expect(keys.decide(UInt8(ascii: "Q")) == .quit)
        // Keys typed together: r twice acts once on the newest; q asks to quit.
        var typed = keys
        let asked = typed.press(Array("rrxq".utf8))
        #expect(asked.actions == [.reject(requestId: "x")] && asked.quit && !asked.nothingPending)
        var none = PairingWatchKeys()
        #expect(none.press([UInt8(ascii: "r")]).nothingPending)
        for key in [UInt8(ascii: "x"), 0x1B, 0x0A, UInt8(ascii: " ")] {
            #expect(keys.decide(key) == .ignored, "\(key)")
        }
    }

    /// Issue #24 §10: one keystroke approved an unnamed device asking for operator.admin.
    @Test("a on a request beyond a node's baseline asks first, naming role and scopes; y approves, another key cancels")
    func confirmation() throws {
        var keys = PairingWatchKeys()
        let admin = try PendingRequest(json: DeviceApprovalTests.request("adm", device: "d1", name: nil, ts: 1,
                                                                         scopes: ["operator.admin", "operator.read"]))
        keys.observe(.connected(pending: [admin], reconnect: false))
        #expect(PairingWatchKeys.needsConfirmation(admin))
        var pressed = keys.press([UInt8(ascii: "a")])
        #expect(pressed.actions.isEmpty, "one keystroke approves nothing")
        #expect(pressed.confirmation == "approve adm (an unnamed device) as role operator with scopes operator.admin, operator.read? "
                + "press y to approve, any other key cancels")
        #expect(keys.confirming == admin)
        pressed = keys.press([UInt8(ascii: "y")])
        #expect(pressed.actions == [.approve(requestId: "adm")] && pressed.confirmation == nil && keys.confirming == nil)

        // Another key cancels; a and y typed together approve.
        _ = keys.press([UInt8(ascii: "a")])
        pressed = keys.press([UInt8(ascii: "n")])
        #expect(pressed.actions.isEmpty && pressed.cancelled == "adm" && keys.confirming == nil)
        #expect(keys.press(Array("ay".utf8)).actions == [.approve(requestId: "adm")])

        // The request goes away while asked: nothing waits any more.
        _ = keys.press([UInt8(ascii: "a")])
        keys.observe(.resolved(try PairingResolution(json: .object([("requestId", "adm"), ("decision", "rejected")]))))
        #expect(keys.confirming == nil)

        // A node's baseline (role node, no scopes) is approved with one key.
        let node = try PendingRequest(json: .object([("requestId", "n-1"), ("deviceId", "d2"), ("publicKey", "k"), ("role", "node"),
                                                     ("ts", .int(2))]))
        #expect(!PairingWatchKeys.needsConfirmation(node))
        keys.observe(.requested(node, supersedes: nil))
        #expect(keys.press([UInt8(ascii: "a")]).actions == [.approve(requestId: "n-1")])
    }
}
