// bench/stop-to-return's measuring program: how long a lasting call takes to return once its
// stop is raised, for a browse watch, a pairing wait and a gateway session call (goal: at most
// 50 ms). Each figure is from `stop()` on this thread to the instant the stopped call returned
// on its own thread, over RUNS runs; median and worst are printed. Nothing is asserted.
//
//   stop-to-return RUNS PAIR_URL TOKEN STALL_URL
//     PAIR_URL   a stand-in gateway whose setup codes name a route it does not approve silently
//                (pairing waits for an operator); PAIR_URL itself is approved silently
//     STALL_URL  a stand-in gateway with --fault stall-call (the first call is never answered)
//     TOKEN      both gateways' shared token
// Run it through bench/stop-to-return, which starts both inside a private network namespace.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairBrowse
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairSetupCode
import Synchronization

func fail(_ message: String) -> Never {
    let line = Array("stop-to-return: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let runs = Int(arguments[1]), runs > 0 else {
    fail("usage: stop-to-return RUNS PAIR_URL TOKEN STALL_URL")
}
let (pairURL, token, stallURL) = (arguments[2], arguments[3], arguments[4])
let clock = SystemMonotonicClock()

/// Runs `body` on a thread with a fresh stop signal; `ready` is raised by `body` once the call
/// is under way. Raises the stop `settle` later and returns stop → return.
func measure(settle: Duration = .milliseconds(200), _ body: @escaping @Sendable (_ stop: StopSignal, _ ready: StopSignal) -> Void) -> Duration {
    let stop = StopSignal(), ready = StopSignal()
    let returned = Mutex<Monotonic.Instant?>(nil)
    let worker = BackgroundThread {
        body(stop, ready)
        returned.withLock { $0 = Monotonic.now }
    }
    ready.sleep(until: clock.now + .seconds(30), clock: clock)
    if !ready.isStopped { fail("the call did not get under way within 30 s") }
    clock.sleep(for: settle)
    let raised = Monotonic.now
    stop.stop()
    worker.join()
    guard let end = returned.withLock({ $0 }) else { fail("no return recorded") }
    return end - raised
}

/// Milliseconds with two decimals.
func ms(_ duration: Duration) -> String {
    let hundredths = Int((duration.milliseconds * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) ms"
}

func report(_ name: String, _ samples: [Duration]) {
    let sorted = samples.sorted()
    let median = sorted[sorted.count / 2], worst = sorted[sorted.count - 1]
    let verdict = worst <= .milliseconds(50) ? "within the 50 ms goal" : "OVER the 50 ms goal"
    let label = name + String(repeating: " ", count: max(0, 14 - name.count))
    print("\(label)median \(ms(median))   worst \(ms(worst))   (\(sorted.count) runs; \(verdict))")
}

// MARK: watch

var watch: [Duration] = []
for _ in 0..<runs {
    watch.append(measure { stop, ready in
        var options = GatewayBrowser.Options(backend: .native, domains: [], timeout: .seconds(3600))
        options.local = true
        do {
            ready.stop()
            try GatewayBrowser(options: options).stopping(on: stop).watch { _ in true }
            fail("the watch returned without being stopped")
        } catch is OperationStopped {
        } catch {
            fail("watch failed: \(error)")
        }
    })
}

// MARK: pairing wait

/// A fresh setup code from the pairing gateway (operator with the shared token).
func setupCode() -> DecodedSetup {
    do {
        let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: pairURL))
        defer { client.close() }
        try client.open(timeout: .seconds(5))
        try client.connect(ConnectRequest(client: .operatorCLI(version: "bench", platform: "Linux"), role: .operator,
                                          scopes: ConnectRequest.operatorScopes, auth: ConnectAuth(token: token)),
                           identity: try DeviceIdentity.generate(createdAtMs: 0), timeout: .seconds(5))
        let payload = try client.call("device.pair.setupCode", params: .object([]), timeout: .seconds(5))
        guard let code = payload["setupCode"]?.stringValue else { fail("no setupCode in \(payload)") }
        return try SetupCode.parse(code)
    } catch {
        fail("minting a setup code: \(error)")
    }
}

var pairing: [Duration] = []
let registryHome = "/tmp/clawpair-stop-bench-\(getpid())"
for _ in 0..<runs {
    let setup = setupCode()
    pairing.append(measure(settle: .milliseconds(300)) { stop, ready in
        let run = GatewayPairing.network(setup: setup, options: PairingOptions(role: .node, deviceName: "bench", wait: .seconds(300)),
                                         registry: GatewayRegistry(home: registryHome), stop: stop)
        guard let identity = try? DeviceIdentity.generate(createdAtMs: 0) else { fail("no identity") }
        do throws(PairingError) {
            _ = try run.run(identity: identity) { progress in
                if case .pending = progress { ready.stop() }
            }
            fail("pairing returned without being stopped")
        } catch {
            guard error.code == "cancelled" else { fail("pairing failed: \(error)") }
        }
    })
}

// MARK: session call

/// A session to the stalling gateway as an operator it approved silently.
func stalledSession() -> GatewaySession {
    do {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: stallURL))
        try client.open(timeout: .seconds(5))
        let info = GatewayClientInfo.operatorCLI(version: "bench", platform: "Linux")
        let hello = try client.connect(ConnectRequest(client: info, role: .operator, scopes: ConnectRequest.operatorScopes,
                                                      auth: ConnectAuth(token: token), payloadVersion: .v3),
                                       identity: identity, timeout: .seconds(5))
        client.close()
        guard let issued = hello.deviceToken else { fail("no device token") }
        let record = PairedGateway(name: "bench", urls: [stallURL], deviceId: identity.deviceId, tokens: [issued], pairedAtMs: 0)
        return try GatewaySession(gateway: record, registry: nil, identity: identity,
                                  options: GatewaySessionOptions(role: .operator, client: info))
    } catch {
        fail("session setup: \(error)")
    }
}

var call: [Duration] = []
for _ in 0..<runs {
    let session = stalledSession()
    let connected = StopSignal()
    session.start { if case .connected = $0 { connected.stop() } }
    if !connected.sleep(until: clock.now + .seconds(10), clock: clock) { fail("the session did not connect") }
    call.append(measure { stop, ready in
        ready.stop()
        do throws(GatewayError) {
            _ = try session.call("device.pair.list", timeout: .seconds(600), stop: stop)
            fail("the stalled call returned")
        } catch {
            guard error == .cancelled else { fail("call failed: \(error)") }
        }
    })
    session.stop()
}

report("watch", watch)
report("pairing wait", pairing)
report("session call", call)
