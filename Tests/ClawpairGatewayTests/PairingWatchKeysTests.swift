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
        // Keys typed together: a twice acts once on the newest; q asks to quit.
        let asked = keys.actions(for: Array("aaxq".utf8))
        #expect(asked.actions == [.approve(requestId: "x")] && asked.quit && !asked.nothingPending)
        #expect(PairingWatchKeys().actions(for: [UInt8(ascii: "r")]).nothingPending)
        for key in [UInt8(ascii: "x"), 0x1B, 0x0A, UInt8(ascii: " ")] {
            #expect(keys.decide(key) == .ignored, "\(key)")
        }
    }
}
