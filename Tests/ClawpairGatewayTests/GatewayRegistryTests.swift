import ClawpairCore
import Foundation
import Testing
@testable import ClawpairGateway

@Suite struct GatewayRegistryTests {
    static func withRegistry(_ body: (GatewayRegistry, String) throws -> Void) throws {
        let home = NSTemporaryDirectory() + "clawpair-registry-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: home) }
        try body(GatewayRegistry(home: home), home)
    }

    @Test("records round-trip, files are 0600 in a 0700 directory, names are unique, forget removes tokens and selection")
    func roundTrip() throws {
        try Self.withRegistry { registry, home in
            var a = PairedGateway(name: "home", urls: ["wss://gw.example.com:443", "ws://192.168.1.5:18789"],
                                  tlsFingerprint: String(repeating: "ab", count: 32), deviceId: "d1", pairedAtMs: 10, deviceName: "box")
            a.store(StoredDeviceToken(token: "node-token", role: "node", scopes: [], issuedAtMs: 11))
            a.store(StoredDeviceToken(token: "op-token", role: "operator", scopes: ["operator.read"], issuedAtMs: 12))
            try registry.save(a)
            try registry.setActive(a)
            let file = registry.directory + "/\(a.id).json"
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
            #expect(try FileManager.default.attributesOfItem(atPath: registry.directory)[.posixPermissions] as? Int == 0o700)
            #expect(try registry.gateway(named: "home") == a)
            #expect(try registry.gateway(named: a.id) == a)
            #expect(registry.gateway(url: "WS://192.168.1.5:18789/") == a)
            #expect(registry.active() == a)
            #expect(a.token(for: "operator", deviceId: "d1")?.token == "op-token")
            #expect(a.token(for: "operator", deviceId: "other") == nil, "tokens belong to the identity they were issued to")

            let b = PairedGateway(name: "home", urls: ["ws://10.0.0.2:18789"], deviceId: "d1", pairedAtMs: 20)
            #expect(throws: GatewayRegistryError.nameTaken("home")) { try registry.save(b) }

            try registry.forget(a)
            #expect(!FileManager.default.fileExists(atPath: file))
            #expect(registry.active() == nil)
            #expect(throws: GatewayRegistryError.self) { try registry.gateway(named: "home") }
            _ = home
        }
    }

    @Test("damaged records are reported, not trusted; ids must be safe file names")
    func damaged() throws {
        try Self.withRegistry { registry, _ in
            let good = PairedGateway(name: "ok", urls: ["ws://127.0.0.1:18789"], deviceId: "d", pairedAtMs: 1)
            try registry.save(good)
            try "{not json".write(toFile: registry.directory + "/gw-0000000000000001.json", atomically: true, encoding: .utf8)
            let moved = PairedGateway(id: "gw-00000000000000ff", name: "moved", urls: ["ws://1.2.3.4:1"], deviceId: "d", pairedAtMs: 1)
            try Data(moved.json.pretty().utf8).write(to: URL(fileURLWithPath: registry.directory + "/gw-0000000000000002.json"))
            let (gateways, problems) = registry.list()
            #expect(gateways == [good])
            #expect(problems.count == 2)
            #expect(PairedGateway.isValidID(PairedGateway.makeID()))
            #expect(!PairedGateway.isValidID("gw-../../etc"))
            #expect(!PairedGateway.isValidID("x"))
        }
    }
}
