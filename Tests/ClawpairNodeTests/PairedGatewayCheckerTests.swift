import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairProbe
import ClawpairTestSupport
import ClawpairTransport
import Foundation
import Synchronization
import Testing
@testable import ClawpairNode

/// The check of a paired gateway's stored tokens as a library flow (what `gateways check` runs):
/// a scripted gateway per URL (no sockets), the search injected, the wall clock injected.
@Suite struct PairedGatewayCheckerTests {
    /// Answers each connect from `answers[url]` (in order per URL); a URL without answers is down.
    final class ScriptedURLs: PairingTransport, @unchecked Sendable {
        var answers: [String: [Result<HelloOK, GatewayError>]]
        private(set) var urls: [String] = []

        init(_ answers: [String: [Result<HelloOK, GatewayError>]]) { self.answers = answers }

        func probe(_ routes: [ProbeRoute], configuration: ProbeConfiguration) throws(TransportError) -> ProbeReport {
            ProbeReport(results: [], winner: nil, elapsed: .zero, timedOut: false)
        }

        func connect(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity,
                     timeout: Duration) throws(GatewayError) -> PairingHello {
            urls.append(endpoint.url)
            guard var queue = answers[endpoint.url], !queue.isEmpty else {
                throw .unreachable(url: endpoint.url, phase: "tcp", reason: "connection refused")
            }
            let answer = queue.removeFirst()
            answers[endpoint.url] = queue
            switch answer {
            case .success(let hello): return PairingHello(hello: hello)
            case .failure(let error): throw error
            }
        }
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    static let old = "ws://192.168.1.5:18789", new = "ws://192.168.1.9:18789"

    static func accepted(_ role: String) -> Result<HelloOK, GatewayError> {
        .success(HelloOK(.object([("type", "hello-ok"), ("protocol", 3), ("auth", .object([("role", .string(role)), ("scopes", [])]))]))!)
    }

    static func paired(urls: [String] = [old], pin: String? = nil) throws -> (GatewayRegistry, PairedGateway, DeviceIdentity) {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        let registry = GatewayRegistry(home: NSTemporaryDirectory() + "clawpair-checker-\(UUID().uuidString.prefix(8))")
        var record = PairedGateway(name: "home", urls: urls, tlsFingerprint: pin, deviceId: identity.deviceId, pairedAtMs: 0)
        record.store(StoredDeviceToken(token: "node-token", role: "node", scopes: [], issuedAtMs: nil))
        try registry.save(record)
        return (registry, record, identity)
    }

    @Test("an answered check records the route and the last-seen time from the injected clock; no search")
    func answered() throws {
        let (registry, record, identity) = try Self.paired()
        let searched = Counter()
        let checker = PairedGatewayChecker(registry: registry, identity: identity, timeout: .seconds(1),
                                           relocate: { _ in searched.add(); return nil }, wallClockMs: { 777 })
        var steps: [PairedGatewayChecker.Step] = []
        let outcome = try checker.run(record, transport: ScriptedURLs([Self.old: [Self.accepted("node")]])) { steps.append($0) }
        #expect(outcome.check.answeredURL == Self.old)
        #expect(outcome.relocation == nil && !outcome.pinned && steps.isEmpty)
        #expect(searched.value == 0)
        #expect(registry.snapshot().gateway(id: record.id)?.lastSeenAtMs == 777)
    }

    @Test("nothing answered: one search; a moved gateway is checked again at its new routes, and the JSON says where it went")
    func movedGateway() throws {
        let (registry, record, identity) = try Self.paired()
        let proof = GatewayIdentityProof.storedTokenAccepted(role: "node")
        let checker = PairedGatewayChecker(registry: registry, identity: identity, timeout: .seconds(1), relocate: { gateway in
            // What the relocator does after a proof: the route goes first, under the registry lock.
            let updated = try? registry.update(id: gateway.id) { $0.urls = [Self.new] + $0.urls }
            return .moved(url: Self.new, proof: proof, routes: updated?.urls ?? [])
        }, wallClockMs: { 5 })
        let transport = ScriptedURLs([Self.new: [Self.accepted("node")]])
        var steps: [PairedGatewayChecker.Step] = []
        let outcome = try checker.run(record, transport: transport) { steps.append($0) }
        #expect(steps == [.searching, .found(.moved(url: Self.new, proof: proof, routes: [Self.new, Self.old]))])
        #expect(transport.urls == [Self.old, Self.new])
        #expect(outcome.gateway.urls == [Self.new, Self.old])
        #expect(outcome.check.answeredURL == Self.new)
        let stored = registry.snapshot().gateway(id: record.id)
        #expect(stored?.urls.first == Self.new && stored?.lastSeenAtMs == 5)
        #expect(outcome.json()["relocated"]?["url"]?.stringValue == Self.new)
        #expect(outcome.json()["relocated"]?["urls"] == .array([.string(Self.new), .string(Self.old)]))
    }

    @Test("no search without a relocate function, for a loopback-only gateway, or when the gateway answered and refused")
    func noSearch() throws {
        let refused = GatewayError.authRejected(GatewayErrorShape(code: "INVALID_REQUEST", message: "unauthorized"))
        for (urls, relocating, answers) in [
            ([Self.old], false, [String: [Result<HelloOK, GatewayError>]]()),
            (["ws://127.0.0.1:18789"], true, [:]),
            ([Self.old], true, [Self.old: [Result<HelloOK, GatewayError>.failure(refused)]]),
        ] {
            let (registry, record, identity) = try Self.paired(urls: urls)
            let searched = Counter()
            let search: @Sendable (PairedGateway) -> GatewayRelocator.Found? = { _ in
                searched.add()
                return nil
            }
            let checker = PairedGatewayChecker(registry: registry, identity: identity, timeout: .seconds(1),
                                               relocate: relocating ? search : nil)
            var steps: [PairedGatewayChecker.Step] = []
            _ = try checker.run(record, transport: ScriptedURLs(answers)) { steps.append($0) }
            #expect(steps.isEmpty && searched.value == 0, "\(urls)")
        }
    }

    @Test("a given pin becomes the stored one only once a token was accepted over it")
    func pinAfterAcceptance() throws {
        let oldPin = String(repeating: "ab", count: 32), newPin = String(repeating: "cd", count: 32)
        let (registry, record, identity) = try Self.paired(pin: oldPin)
        let checker = PairedGatewayChecker(registry: registry, identity: identity, pin: newPin, timeout: .seconds(1), relocate: nil)
        let down = try checker.run(record, transport: ScriptedURLs([:]))
        #expect(!down.pinned && registry.snapshot().gateway(id: record.id)?.tlsFingerprint == oldPin)
        var steps: [PairedGatewayChecker.Step] = []
        let up = try checker.run(record, transport: ScriptedURLs([Self.old: [Self.accepted("node")]])) { steps.append($0) }
        #expect(up.pinned && steps == [.pinned(newPin)])
        #expect(registry.snapshot().gateway(id: record.id)?.tlsFingerprint == newPin)
    }
}
