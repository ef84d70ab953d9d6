import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import Foundation
import Testing
@testable import ClawpairNode

/// Relocation by identity without a network: a candidate at a known route is only a reconnect
/// hint; an unproved candidate changes nothing; a proved one goes first in the record's routes
/// under the registry lock, and a pin proof no longer holds once the pin changed.
@Suite struct GatewayRelocatorTests {
    static func fixture() throws -> (GatewayRegistry, PairedGateway, DeviceIdentity, String) {
        let home = NSTemporaryDirectory() + "clawpair-relocate-\(UUID().uuidString.prefix(8))"
        let registry = GatewayRegistry(home: home)
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let record = PairedGateway(name: "lab", urls: ["ws://127.0.0.1:9"], tlsFingerprint: nil, deviceId: identity.deviceId,
                                   tokens: [StoredDeviceToken(token: "t", role: "node", scopes: [], issuedAtMs: nil)], pairedAtMs: 1)
        try registry.save(record)
        return (registry, record, identity, home)
    }

    @Test func aKnownRouteIsOnlyAHint() throws {
        let (registry, record, identity, home) = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: nil, proofTimeout: .milliseconds(300))
        #expect(relocator.check(record, candidates: ["ws://10.255.255.1:18789", "ws://127.0.0.1:9"]) == .knownRoute("ws://127.0.0.1:9"))
        #expect(try registry.gateway(named: "lab").urls == ["ws://127.0.0.1:9"])
    }

    @Test func anUnprovedCandidateChangesNothing() throws {
        let (registry, record, identity, home) = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: nil, proofTimeout: .milliseconds(300))
        // Nothing listens on port 1 of loopback; a public plaintext address is never sent the token.
        #expect(relocator.check(record, candidates: ["ws://127.0.0.1:1", "ws://203.0.113.9:18789"]) == nil)
        #expect(try registry.gateway(named: "lab").urls == ["ws://127.0.0.1:9"])
        // A wss:// candidate of an unpinned record proves nothing either.
        #expect(relocator.prove(record, url: "wss://127.0.0.1:1") == nil)
    }

    @Test func aProvedRouteGoesFirstUnlessThePinChanged() throws {
        let (registry, record, identity, home) = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: nil)
        let moved = relocator.adopt("ws://127.0.0.2:18789", record: record, proof: .storedTokenAccepted(role: "node"))
        #expect(moved?.urls == ["ws://127.0.0.2:18789", "ws://127.0.0.1:9"])
        #expect(try registry.gateway(named: "lab").urls.first == "ws://127.0.0.2:18789")
        // A pin proof for a record whose stored pin is another one is not recorded.
        _ = relocator.adopt("wss://127.0.0.3:443", record: record, proof: .pinMatched(fingerprint: String(repeating: "a", count: 64)))
        #expect(try registry.gateway(named: "lab").urls.first == "ws://127.0.0.2:18789")
    }
}
