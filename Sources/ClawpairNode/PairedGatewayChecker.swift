// Checking a paired gateway's stored device tokens, and finding the gateway again when none of
// its stored routes answers (issue #24.6, as a node does after a move):
//
//   check every stored token over the record's routes
//   → nothing answered at all (every role unreachable) and the record is not loopback-only:
//     search once by identity (``GatewayRelocator``; a proved route is stored under the registry
//     lock), re-read the record, check again
//   → a pin given in place of the stored one, over which a token was accepted, becomes the pin
//   → the route that answered, its last-seen time and the tokens issued anew are recorded.

import ClawpairCore
import ClawpairGateway
import ClawpairIdentity

/// Checks the device tokens stored for a paired gateway and keeps its registry entry current:
/// the route that answered, a re-issued token, a new pin that was checked, and routes found
/// again by the gateway's identity after it moved.
public struct PairedGatewayChecker: Sendable {
    /// What a check did besides connecting, in order, for a caller that says so as it happens.
    public enum Step: Sendable, Equatable {
        /// No stored route answered: a search by identity starts.
        case searching
        /// The search found the gateway (the registry holds its routes now).
        case found(GatewayRelocator.Found)
        /// The given pin replaced the stored one (a token was accepted over it).
        case pinned(String)
    }

    /// What ``run(_:transport:onStep:)`` found.
    public struct Outcome: Sendable {
        /// The registry entry as it was last checked (after a move, its new routes).
        public var gateway: PairedGateway
        /// How each stored token fared, on the last check.
        public var check: PairedGatewayCheck
        /// What the search found, when one ran and found the gateway.
        public var relocation: GatewayRelocator.Found?
        /// Whether the given pin became the stored one.
        public var pinned: Bool

        /// ``PairedGatewayCheck/json(gatewayID:errors:)``, with a `relocated` member
        /// `{url, proof, urls}` after a move.
        public func json(errors: [JSONValue] = []) -> JSONValue {
            let document = check.json(gatewayID: gateway.id, errors: errors)
            guard case .moved(let url, let proof, let routes) = relocation, case .object(var members) = document else { return document }
            members.append(("relocated", .object([("url", .string(url)), ("proof", proof.json),
                                                  ("urls", .array(routes.map { JSONValue.string($0) }))])))
            return .object(members)
        }
    }

    /// The registry the entry lives in; every write is one transaction under its lock.
    public let registry: GatewayRegistry
    private let identityBox: IdentityReference
    /// The pin that replaces the stored one for this check (it becomes the stored one once a
    /// token is accepted over it); nil: the stored pin.
    public let pin: String?
    /// The limit of each connection.
    public let timeout: Duration
    private let relocate: (@Sendable (PairedGateway) -> GatewayRelocator.Found?)?
    private let wallClockMs: @Sendable () -> Int64

    /// A checker for entries of `registry`, connecting as `identity`.
    /// `relocate` searches once for a gateway whose routes no longer answer (a
    /// ``GatewayRelocator/findOnce(_:)``); nil: no search.
    public init(registry: GatewayRegistry, identity: DeviceIdentity, pin: String? = nil, timeout: Duration,
                relocate: (@Sendable (PairedGateway) -> GatewayRelocator.Found?)?,
                wallClockMs: @escaping @Sendable () -> Int64 = { WallClock.nowMs() }) {
        self.registry = registry
        identityBox = IdentityReference(identity)
        self.pin = pin
        self.timeout = timeout
        self.relocate = relocate
        self.wallClockMs = wallClockMs
    }

    /// Checks `gateway`'s stored tokens, connecting through `transport`; searches for it when nothing answered; adopts the given
    /// pin once a token was accepted over it; records the answer. `onStep` hears each step as it
    /// happens. Throws only when the registry cannot be written.
    public func run(_ gateway: PairedGateway, transport: any PairingTransport, onStep: (Step) -> Void = { _ in }) throws(GatewayRegistryError) -> Outcome {
        let identity = identityBox.value
        var gateway = gateway
        var check = gateway.checkTokens(identity: identity, pin: pin, timeout: timeout, transport: transport)
        var relocation: GatewayRelocator.Found?
        if let relocate, check.answeredURL == nil, !check.results.isEmpty, check.results.allSatisfy({ $0.verdict == .unreachable }),
           !GatewayRelocator.isLoopbackOnly(gateway) {
            onStep(.searching)
            if let found = relocate(gateway) {
                relocation = found
                onStep(.found(found))
                gateway = registry.snapshot().gateway(id: gateway.id) ?? gateway
                check = gateway.checkTokens(identity: identity, pin: pin, timeout: timeout, transport: transport)
            }
        }
        var pinned = false
        if let pin, check.results.contains(where: { $0.verdict == .accepted }), gateway.tlsFingerprint != nil, gateway.tlsFingerprint != pin {
            _ = try registry.update(id: gateway.id) { $0.tlsFingerprint = pin }
            pinned = true
            onStep(.pinned(pin))
        }
        if let used = check.answeredURL {
            try registry.recordAnswer(id: gateway.id, url: used, nowMs: wallClockMs(), reissued: check.reissued)
        }
        return Outcome(gateway: gateway, check: check, relocation: relocation, pinned: pinned)
    }
}
