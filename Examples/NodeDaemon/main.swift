// A small node-style daemon: finds a gateway on the network, pairs this machine with it as a
// node from a setup code when it has not paired yet, then holds a node session (reconnecting
// when the gateway restarts or goes silent) and logs one line per state change on stderr.
// SIGINT or SIGTERM cancels its task, which stops whatever is running (browse, pairing wait,
// session) within milliseconds; it then exits 0. Exit 78: nothing to connect to (configure
// first); 1: a failure that needs someone to act (say, the token was revoked).
//
//   swift run NodeDaemon < code.txt     # pairs first (mint a code on the gateway: clawpair qr --node)
//   swift run NodeDaemon                # later runs: the selected paired gateway
import ClawpairBrowse
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairSetupCode

#if canImport(Glibc)
import Glibc
#endif

/// One line on stderr (journald adds the time).
func log(_ text: String) {
    let line = Array((TerminalText.sanitize(text, maxScalars: 400) + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// A reason to exit with a status of its own.
struct Exit: Error {
    var status: Int32
    var message: String
}

let environment: [String: String] = {
    var values: [String: String] = [:]
    for name in ["CLAWPAIR_HOME", "XDG_CONFIG_HOME", "HOME"] { if let value = getenv(name) { values[name] = String(cString: value) } }
    return values
}()

/// This machine's identity from the clawpair store, created (0600) on first use.
@Sendable func deviceIdentity() throws -> DeviceIdentity {
    let store = try IdentityStore.locate(environment: environment)
    do {
        return try store.loadIdentity().identity
    } catch {
        guard case .noIdentity = error else { throw error }
    }
    let identity = try DeviceIdentity.generate(createdAtMs: WallClock.nowMs())
    try store.saveIdentity(identity, replacing: false, environment: environment)
    return identity
}

/// The paired gateway this identity holds a node token for, pairing from a code on stdin first
/// when there is none.
func pairedGateway(_ registry: GatewayRegistry, deviceId: String) async throws -> PairedGateway {
    if let active = registry.active(), active.token(for: "node", deviceId: deviceId) != nil { return active }
    if let gateway = try await GatewayBrowser(options: GatewayBrowser.Options(timeout: .seconds(2))).first() {
        log("found gateway \(gateway.beacon.title) at \(gateway.beacon.endpoint?.url ?? "-")")
    }
    guard isatty(0) == 0, let text = readLine(strippingNewline: true), !text.isEmpty else {
        throw Exit(status: 78, message: "not paired: pass a setup code on stdin (mint one on the gateway)")
    }
    let setup = try SetupCode.parse(text)
    let result = try await GatewayPairing.pair(setup: setup, options: PairingOptions(role: .node, deviceName: "node-daemon"),
                                               registry: registry, identity: deviceIdentity) { progress in
        switch progress {
        case .reachable(let url): log("pairing: gateway answers at \(url)")
        case .pending(let request): log("pairing: waiting for an operator to approve request \(request.requestId ?? "?")")
        case .approved: log("pairing: approved")
        default: break
        }
    }
    return result.gateway
}

func runDaemon() async throws {
    let identity = try deviceIdentity()
    let registry = GatewayRegistry(home: try IdentityStore.locate(environment: environment).directory)
    let gateway = try await pairedGateway(registry, deviceId: identity.deviceId)
    let session = try GatewaySession(gateway: gateway, registry: registry, identity: identity,
                                     options: GatewaySessionOptions(role: .node))
    let events = session.events()
    session.start()
    try await withTaskCancellationHandler {
        for try await event in events {
            switch event {
            case .connecting(let attempt, let urls) where attempt == 1: log("connecting to \(urls.joined(separator: ", "))")
            case .connecting: break
            case .connected(let url, _): log("connected to \(url)")
            case .tokenStored: log("stored the device token the gateway issued")
            case .disconnected(let error, let retry?): log("disconnected (\(error.message)); again in \(retry)")
            case .disconnected(let error, nil): log("disconnected for good: \(error.message)")
            case .ended: log("session ended")
            case .event(let event) where event.name == "node.invoke.request":
                // This example runs no commands: it says so, as a node must.
                let id = event.payload?["id"]?.stringValue ?? ""
                let nodeId = event.payload?["nodeId"]?.stringValue ?? ""
                log("invoke request \(id) for \(event.payload?["command"]?.stringValue ?? "?"): unavailable")
                let error: JSONValue = .object([("code", "UNAVAILABLE"), ("message", "this node runs no commands")])
                session.send("node.invoke.result", params: .object([("id", .string(id)), ("nodeId", .string(nodeId)),
                                                                    ("ok", false), ("error", error)]),
                             timeout: .seconds(10)) { _ in }
            case .event(let event): log("event \(event.name)")
            }
        }
    } onCancel: {
        session.stop()
    }
}

// SIGINT and SIGTERM become a cancellation of the daemon's task: blocked here, before any
// thread starts (so every thread inherits the mask), then taken by sigwait on this thread.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &signals, nil)

let daemon = Task.detached {
    do {
        try await runDaemon()
        try Task.checkCancellation()
    } catch let error as any ClawpairError where error.code == "cancelled" {
    } catch is CancellationError {
    } catch let reason as Exit {
        log(reason.message)
        exit(reason.status)
    } catch {
        log("failed: \(error)")
        exit(1)
    }
    log("stopped")
    exit(0)
}
var signal: Int32 = 0
sigwait(&signals, &signal)
log("stopping (signal \(signal))")
daemon.cancel()
sigwait(&signals, &signal)  // a second signal while stopping ends at once
exit(1)
