// Pair this machine with an OpenClaw gateway from a setup code, as a node, and keep the issued
// device token in clawpair's registry (the same one `clawpair gateways list` shows).
//
//   swift run PairFromCode < code.txt        (mint a code on the gateway: clawpair qr --node)

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairSetupCode

/// This machine's identity from the clawpair store, created (0600) on first use.
func deviceIdentity(_ store: IdentityStore, environment: [String: String]) throws -> DeviceIdentity {
    do {
        return try store.loadIdentity().identity
    } catch {
        guard case .noIdentity = error else { throw error }
    }
    let identity = try DeviceIdentity.generate(createdAtMs: WallClock.nowMs())
    try store.saveIdentity(identity, replacing: false, environment: environment)
    return identity
}

func pairFromStandardInput() throws {
    let setup = try SetupCode.parse(readLine(strippingNewline: true) ?? "")
    var environment: [String: String] = [:]
    for name in ["CLAWPAIR_HOME", "XDG_CONFIG_HOME", "HOME"] { if let value = getenv(name) { environment[name] = String(cString: value) } }
    let store = try IdentityStore.locate(environment: environment)

    let pairing = GatewayPairing(setup: setup, options: PairingOptions(deviceName: "pair-from-code"),
                                 registry: GatewayRegistry(home: store.directory))
    let result = try pairing.run(identity: try deviceIdentity(store, environment: environment)) { progress in
        switch progress {
        case .reachable(let url): print("gateway answers at \(url)")
        case .pending(let request), .superseded(let request): print("waiting for an operator to approve request \(request.requestId ?? "?")")
        case .approved: print("approved")
        default: break
        }
    }
    print("paired with \(result.gateway.name) as \(result.token.role); the token is stored (gateway id \(result.gateway.id))")
}

do {
    try pairFromStandardInput()
} catch {
    print("pairing failed: \(error)")
    exit(1)
}
