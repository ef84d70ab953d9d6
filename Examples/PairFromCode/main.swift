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

func pairFromStandardInput() throws {
    let setup = try SetupCode.parse(readLine(strippingNewline: true) ?? "")
    let store = try IdentityStore.locate()  // CLAWPAIR_HOME, else XDG_CONFIG_HOME/clawpair, else ~/.config/clawpair

    let pairing = GatewayPairing(setup: setup, options: PairingOptions(deviceName: "pair-from-code"),
                                 registry: GatewayRegistry(home: store.directory))
    let result = try pairing.run(identity: try store.loadOrCreateIdentity().identity) { progress in
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
