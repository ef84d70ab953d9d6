import ClawpairCore
import ClawpairIdentity
import ClawpairProbe
import ClawpairSetupCode
import ClawpairTransport
import Foundation
import Testing
@testable import ClawpairGateway

/// Pairing against gateways that hold the refused socket (`waitForResolution`) and push
/// `device.pair.resolved`, and the terminal connect codes of 2026.7+ gateways: no sockets, no
/// sleeps; the scripted gateway moves the manual clock by the time it holds the socket.
@Suite struct PairingResolutionTests {
    typealias Base = GatewayPairingTests

    /// One scripted answer: a hello, a pending answer held for `holds` (nil: the whole piece
    /// offered) that ends with `decision`, or an error.
    enum Answer {
        case hello
        case pending(String, waits: Bool, holds: Duration? = nil, decision: PairingDecision? = nil)
        case failure(GatewayError)
    }

    final class HoldingGateway: PairingTransport {
        var answers: [Answer]
        let clock: Base.SteppedClock
        private(set) var offered: [Duration] = []

        init(_ answers: [Answer], clock: Base.SteppedClock) {
            self.answers = answers
            self.clock = clock
        }

        func probe(_ routes: [ProbeRoute], configuration: ProbeConfiguration) throws(TransportError) -> ProbeReport {
            var result = ProbeResult(route: routes[0], index: 0)
            result.phase = .done
            return ProbeReport(results: [result], winner: 0, elapsed: .zero, timedOut: false)
        }

        func connect(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity,
                     timeout: Duration) throws(GatewayError) -> PairingHello {
            throw .notConnected
        }

        func attempt(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity, timeout: Duration,
                     resolutionWait: Duration, pending: (PairingRequired) -> Void) throws(GatewayError) -> PairingAttempt {
            offered.append(resolutionWait)
            guard !answers.isEmpty else { throw .notConnected }
            switch answers.removeFirst() {
            case .hello:
                guard case .success(let hello) = Base.hello() else { throw .notConnected }
                return .paired(hello)
            case .pending(let id, let waits, let holds, let decision):
                let pairing = PairingRequired(requestId: id, reason: "not-paired", deviceId: "dev", waitForResolution: waits)
                pending(pairing)
                if waits {
                    let held = min(holds ?? resolutionWait, resolutionWait)
                    clock.monotonic.advance(by: held)
                }
                return .pending(pairing, decision: waits ? decision : nil)
            case .failure(let error):
                throw error
            }
        }
    }

    static func pair(_ answers: [Answer], wait: Duration = .seconds(60)) throws
        -> (Result<PairingResult, PairingError>, [PairingProgress], HoldingGateway, Base.SteppedClock) {
        let home = NSTemporaryDirectory() + "clawpair-resolution-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: home) }
        let clock = Base.SteppedClock()
        let gateway = HoldingGateway(answers, clock: clock)
        var pairing = GatewayPairing(setup: try Base.setup(), options: PairingOptions(deviceName: "kitchen-pi", wait: wait),
                                     registry: GatewayRegistry(home: home), transport: gateway, clock: clock)
        pairing.retryJitterSource = { 0 }
        var progress: [PairingProgress] = []
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let outcome: Result<PairingResult, PairingError>
        do {
            outcome = .success(try pairing.run(identity: identity) { progress.append($0) })
        } catch {
            outcome = .failure(error)
        }
        return (outcome, progress, gateway, clock)
    }

    @Test("approved while the gateway holds the socket: connect again at once, no backoff sleep")
    func approvedWhileHeld() throws {
        let (outcome, progress, gateway, clock) = try Self.pair([.pending("r1", waits: true, holds: .seconds(7), decision: .approved), .hello])
        guard case .success(let result) = outcome else { Issue.record("\(outcome)"); return }
        #expect(result.requestId == "r1")
        #expect(clock.sleeps.isEmpty)
        #expect(gateway.offered == [Duration.seconds(30), Duration.seconds(30)])
        #expect(progress.last == .approved(requestId: "r1"))
    }

    @Test("superseded while held: connect again at once and follow the new request")
    func supersededWhileHeld() throws {
        let (outcome, progress, _, clock) = try Self.pair([.pending("r1", waits: true, holds: .seconds(2), decision: .superseded),
                                                          .pending("r2", waits: true, holds: .seconds(3), decision: .approved), .hello])
        guard case .success(let result) = outcome else { Issue.record("\(outcome)"); return }
        #expect(result.requestId == "r2")
        #expect(clock.sleeps.isEmpty, "no pause after a superseded decision")
        #expect(progress.contains { if case .superseded(let pairing) = $0 { pairing.requestId == "r2" } else { false } })
        let event: JSONValue = .object([("requestId", "r1"), ("deviceId", "dev"), ("decision", "superseded"), ("ts", 1)])
        #expect(PairingDecision(resolvedEvent: event, requestId: "r1", deviceId: "dev") == .superseded)
    }

    @Test("rejected while held: stop with the request id, no retry")
    func rejectedWhileHeld() throws {
        let (outcome, progress, gateway, _) = try Self.pair([.pending("r1", waits: true, holds: .seconds(2), decision: .rejected), .hello])
        guard case .failure(.rejected(let id, let reason)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(id == "r1" && reason.isEmpty)
        #expect(gateway.answers.count == 1, "no further connect")
        #expect(progress.last == .rejected(requestId: "r1"))
        #expect(PairingError.rejected(requestId: "r1", reason: "").message == "pairing request r1 was rejected on the gateway")
    }

    @Test("expired while held: stop with requestExpired")
    func expiredWhileHeld() throws {
        let (outcome, _, _, _) = try Self.pair([.pending("r1", waits: true, holds: .seconds(2), decision: .expired)])
        guard case .failure(.requestExpired(let id)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(id == "r1")
        #expect(PairingError.requestExpired(requestId: "r1").message.contains("expired on the gateway"))
    }

    @Test("a held socket with no decision is asked again piece by piece, reporting progress, until --wait runs out")
    func heldUntilWaitRunsOut() throws {
        let (outcome, progress, gateway, clock) = try Self.pair(
            [.pending("r1", waits: true), .pending("r1", waits: true), .pending("r1", waits: true)], wait: .seconds(75))
        guard case .failure(.notApproved(let id, let waited)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(id == "r1" && waited == 75_000)
        #expect(gateway.offered == [.seconds(30), .seconds(30), .seconds(15)])
        #expect(clock.sleeps.isEmpty)
        #expect(progress.contains(.stillWaiting(elapsed: .seconds(30), requestId: "r1")))
        #expect(progress.first == .reachable(url: GatewayPairingTests.lanURL))
        #expect(progress[1] == .pending(PairingRequired(requestId: "r1", reason: "not-paired", deviceId: "dev", waitForResolution: true)))
        #expect(progress.last == .expired(requestId: "r1"))
    }

    @Test("a gateway that drops the held socket early falls back to the steady retry")
    func droppedEarly() throws {
        let (outcome, _, _, clock) = try Self.pair([.pending("r1", waits: true, holds: .seconds(1)), .hello])
        guard case .success = outcome else { Issue.record("\(outcome)"); return }
        #expect(clock.sleeps == [GatewayPairing.retryInterval])
    }

    @Test("PAIRING_REJECTED / PAIRING_EXPIRED on a connect end the wait with their own errors")
    func terminalCodes() throws {
        let rejected = GatewayError.connectFailure(GatewayErrorShape(code: "NOT_PAIRED", message: "declined",
                                                                     details: .object([("code", "PAIRING_REJECTED"), ("requestId", "r9")])))
        #expect(rejected == .pairingRejected(requestId: "r9"))
        let (first, _, _, _) = try Self.pair([.pending("r1", waits: false), .failure(rejected)])
        guard case .failure(.rejected(let id, _)) = first else { Issue.record("\(first)"); return }
        #expect(id == "r9")

        let expired = GatewayError.connectFailure(GatewayErrorShape(code: "NOT_PAIRED", message: "expired",
                                                                    details: .object([("code", "PAIRING_EXPIRED")])))
        #expect(expired == .pairingExpired(requestId: nil))
        let (second, _, _, _) = try Self.pair([.pending("r1", waits: false), .failure(expired)])
        guard case .failure(.requestExpired(let id2)) = second else { Issue.record("\(second)"); return }
        #expect(id2 == "r1", "the pending request's id when the refusal names none")
    }
}

/// The connect error codes that have their own ``GatewayError`` case since 2026.7.
@Suite struct ConnectErrorCodeTests {
    static func shape(_ top: String, _ detail: String, _ extra: [(String, JSONValue)] = [], message: String = "refused") -> GatewayErrorShape {
        GatewayErrorShape(code: top, message: message, details: .object([("code", .string(detail))] + extra))
    }

    @Test("each code maps to its own case, message and hint")
    func mapping() {
        let scope = GatewayError.connectFailure(Self.shape("INVALID_REQUEST", "AUTH_SCOPE_MISMATCH", message: "unauthorized: scope mismatch"))
        guard case .scopeMismatch = scope else { Issue.record("\(scope)"); return }
        #expect(scope.message == "the credential does not cover the scopes asked for: unauthorized: scope mismatch [AUTH_SCOPE_MISMATCH]")
        #expect(scope.hint?.contains("approved scopes") == true)

        let proto = GatewayError.connectFailure(Self.shape("INVALID_REQUEST", "PROTOCOL_MISMATCH",
                                                           [("expectedProtocol", 4), ("minProtocol", 3), ("maxProtocol", 3)]))
        guard case .protocolMismatch = proto else { Issue.record("\(proto)"); return }
        #expect(proto.message == "the gateway does not speak this client's protocol: the gateway speaks protocol 4, this client 3 [PROTOCOL_MISMATCH]")

        let version = GatewayError.connectFailure(Self.shape("INVALID_REQUEST", "CLIENT_VERSION_MISMATCH",
                                                             [("clientVersion", "2026.1.1"), ("gatewayVersion", "2026.9.2")]))
        guard case .clientVersionMismatch = version else { Issue.record("\(version)"); return }
        #expect(version.message == "the gateway refused client version 2026.1.1: it wants its own version 2026.9.2 [CLIENT_VERSION_MISMATCH]")

        let device = GatewayError.connectFailure(Self.shape("INVALID_REQUEST", "DEVICE_AUTH_INVALID"))
        guard case .deviceAuthRejected = device else { Issue.record("\(device)"); return }
        #expect(device.message == "the gateway refused this device's proof: the device block failed the gateway's checks [DEVICE_AUTH_INVALID]")

        // PAIRING_REQUIRED stays pairing-required, with waitForResolution read from the details.
        let pending = GatewayError.connectFailure(Self.shape("NOT_PAIRED", "PAIRING_REQUIRED", [("requestId", "r1"), ("waitForResolution", true)]))
        guard case .pairingRequired(let pairing) = pending else { Issue.record("\(pending)"); return }
        #expect(pairing.waitForResolution && pairing.requestId == "r1")
        #expect(GatewayError.pairingRejected(requestId: "r1").message == "the gateway rejected pairing request r1")
        #expect(GatewayError.pairingExpired(requestId: nil).message == "pairing request (no id given) expired before an operator approved it")
    }

    @Test("a device.pair.resolved payload decides only its own request (and device)")
    func resolvedEvent() {
        let payload: JSONValue = .object([("requestId", "r1"), ("deviceId", "d1"), ("decision", "expired"), ("ts", 5)])
        #expect(PairingDecision(resolvedEvent: payload, requestId: "r1", deviceId: "d1") == .expired)
        #expect(PairingDecision(resolvedEvent: payload, requestId: "r1", deviceId: nil) == .expired)
        #expect(PairingDecision(resolvedEvent: payload, requestId: "r2", deviceId: "d1") == nil)
        #expect(PairingDecision(resolvedEvent: payload, requestId: "r1", deviceId: "d2") == nil)
        #expect(PairingDecision(resolvedEvent: .object([("requestId", "r1"), ("decision", "maybe")]), requestId: "r1", deviceId: nil) == nil)
        #expect(PairingDecision(resolvedEvent: nil, requestId: "r1", deviceId: nil) == nil)
    }
}
