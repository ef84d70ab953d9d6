import Foundation

#if canImport(Glibc)
import Glibc
#endif

// The strict stand-in OpenClaw gateway (Tests/Fixtures/openclaw_gateway.py) for the gateway,
// pairing and setup-code tests, and the independent Python client (bench/py_gateway_client.py)
// that checks it. Both run with Debian's /usr/bin/python3 (python3-websockets,
// python3-cryptography), on loopback or inside a lab namespace.
//
// The gateway prints `ready <port>` and then one JSON object per line on stdout
// (`{"log":"connect-ok",…}`, `pending`, `approved`, `rejected`, `removed`, `rpc`, `setup-code`, …);
// ``TestGateway/waitForLog(_:occurrence:timeout:where:)`` waits for those lines.

/// The command line of the stand-in gateway: what it accepts, how it pairs and how it misbehaves.
public struct TestGatewayOptions: Sendable {
    /// The upstream generation it behaves as (`--generation`).
    public enum Generation: String, Sendable {
        /// Before 2026.7: payload `{url, urls?, bootstrapToken}`; no setupId, no downgrade, no
        /// setupStatus; a pairing refusal closes the socket at once.
        case g3
        /// Current upstream (2026.7+): payload adds `expiresAtMs` (and `tlsFingerprint`);
        /// results add setupId/expiresAtMs; a pairing refusal carries `waitForResolution` and
        /// the socket is held for `device.pair.resolved`.
        case g4
    }

    /// A scripted failure (`--fault`).
    public enum Fault: String, Sendable {
        case none
        /// Never sends connect.challenge.
        case noChallenge = "no-challenge"
        /// Sends connect.challenge after ``TestGatewayOptions/faultDelayMs``.
        case slowChallenge = "slow-challenge"
        /// Sends a non-JSON text frame instead of connect.challenge.
        case garbage
        /// Answers the first RPC after connect with a frame larger than policy.maxPayload.
        case oversized
        /// Aborts the TCP connection when the first RPC after connect arrives.
        case closeMidCall = "close-mid-call"
        /// Never answers the first RPC after connect and stops ticking; the socket stays open.
        case stallCall = "stall-call"
    }

    /// The shared operator token (`--token`). Exactly one of token and password is passed: a
    /// password wins (the gateway does not support auth mode "none").
    public var token: String?
    /// The shared operator password (`--password`).
    public var password: String?
    /// The URL put in setup codes (`--public-url`); nil: `ws[s]://<first host>:<port>`.
    public var publicURL: String?
    public var generation: Generation
    public var fault: Fault
    /// Delay for ``Fault/slowChallenge`` (`--fault-delay-ms`, gateway default 3000).
    public var faultDelayMs: Int?
    /// `policy.tickIntervalMs` (`--tick-ms`, gateway default 15000).
    public var tickMs: Int?
    /// `policy.maxPayload` (`--max-payload`, gateway default 25 MiB).
    public var maxPayload: Int?
    /// Whether direct loopback connects are approved silently (`--local-auto-approve`).
    public var localAutoApprove: Bool
    /// Addresses to listen on (`--host`, repeated); the first one goes into setup codes.
    public var hosts: [String]
    /// The port (`--port`); 0 picks a free one.
    public var port: Int
    /// Serve wss:// with this certificate (`--cert`/`--key`).
    public var certificate: TestCertificate?
    /// Keep pairing state in this JSON file across restarts (`--state-file`).
    public var stateFile: String?
    /// Pending `node.pair.*` requests to create at start (`--seed-node-request`).
    public var seedNodeRequests: [String]
    /// More arguments, appended verbatim (e.g. `["--pending-ttl-ms", "500"]`).
    public var extraArguments: [String]

    public init(
        token: String? = "test-gateway-token",
        password: String? = nil,
        publicURL: String? = nil,
        generation: Generation = .g4,
        fault: Fault = .none,
        faultDelayMs: Int? = nil,
        tickMs: Int? = nil,
        maxPayload: Int? = nil,
        localAutoApprove: Bool = true,
        hosts: [String] = ["127.0.0.1"],
        port: Int = 0,
        certificate: TestCertificate? = nil,
        stateFile: String? = nil,
        seedNodeRequests: [String] = [],
        extraArguments: [String] = []
    ) {
        self.token = password == nil ? token : nil
        self.password = password
        self.publicURL = publicURL
        self.generation = generation
        self.fault = fault
        self.faultDelayMs = faultDelayMs
        self.tickMs = tickMs
        self.maxPayload = maxPayload
        self.localAutoApprove = localAutoApprove
        self.hosts = hosts
        self.port = port
        self.certificate = certificate
        self.stateFile = stateFile
        self.seedNodeRequests = seedNodeRequests
        self.extraArguments = extraArguments
    }

    /// The gateway's arguments (after the script path).
    public var arguments: [String] {
        var arguments: [String] = []
        for host in hosts {
            arguments += ["--host", host]
        }
        arguments += ["--port", String(port)]
        if let certificate {
            arguments += ["--cert", certificate.certificate, "--key", certificate.key]
        }
        if let password {
            arguments += ["--password", password]
        } else if let token {
            arguments += ["--token", token]
        }
        if let publicURL {
            arguments += ["--public-url", publicURL]
        }
        arguments += ["--generation", generation.rawValue, "--fault", fault.rawValue,
                      "--local-auto-approve", localAutoApprove ? "yes" : "no"]
        if let faultDelayMs {
            arguments += ["--fault-delay-ms", String(faultDelayMs)]
        }
        if let tickMs {
            arguments += ["--tick-ms", String(tickMs)]
        }
        if let maxPayload {
            arguments += ["--max-payload", String(maxPayload)]
        }
        if let stateFile {
            arguments += ["--state-file", stateFile]
        }
        for name in seedNodeRequests {
            arguments += ["--seed-node-request", name]
        }
        return arguments + extraArguments
    }
}

/// A running stand-in gateway started by ``startTestGateway(_:in:)``.
public struct TestGateway: Sendable {
    /// The gateway process (its stdout holds the JSON log lines).
    public let process: ChildProcess
    /// The port it listens on.
    public let port: Int
    public let options: TestGatewayOptions
    /// The lab host it runs in; nil on the machine's loopback.
    public let host: LabHost?

    /// `ws[s]://<first host>:<port>`, IPv6 hosts in brackets.
    public var url: String {
        let first = options.hosts.first ?? "127.0.0.1"
        let host = first.contains(":") ? "[\(first)]" : first
        return "\(options.certificate == nil ? "ws" : "wss")://\(host):\(port)"
    }

    /// The log lines printed so far (stdout JSON objects), optionally only those of one kind.
    public func logs(_ kind: String? = nil) -> [[String: Any]] {
        process.lines.compactMap { line -> [String: Any]? in
            guard line.stream == .stdout, let object = Self.logObject(line.text) else { return nil }
            return kind == nil || object["log"] as? String == kind ? object : nil
        }
    }

    /// Waits for the `occurrence`-th (1-based) log line of `kind` that satisfies `predicate`,
    /// counting lines printed before the call, and returns it as a dictionary.
    @discardableResult
    public func waitForLog(
        _ kind: String,
        occurrence: Int = 1,
        timeout: Duration = .seconds(10),
        where predicate: ([String: Any]) -> Bool = { _ in true }
    ) async throws -> [String: Any] {
        var seen = 0
        let line = try await process.waitForLine(on: .stdout, timeout: timeout, describing: "log line \"\(kind)\" #\(occurrence)") { text in
            guard let object = Self.logObject(text), object["log"] as? String == kind, predicate(object) else { return false }
            seen += 1
            return seen == occurrence
        }
        guard let object = Self.logObject(line) else { throw TestError("\(process): unreadable log line \(line)") }
        return object
    }

    /// Stops the gateway (SIGTERM, which it answers by exiting 0) and returns how it ended.
    @discardableResult
    public func stop(grace: Duration = .seconds(5)) async -> ProcessTermination? {
        await process.terminate(grace: grace)
    }

    static func logObject(_ text: String) -> [String: Any]? {
        guard text.hasPrefix("{"), let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              object["log"] is String else { return nil }
        return object
    }
}

/// Starts `Tests/Fixtures/openclaw_gateway.py` on loopback, or inside `host`'s namespace (the lab
/// then also stops it at teardown), and waits for `ready <port>`.
public func startTestGateway(_ options: TestGatewayOptions = TestGatewayOptions(), in host: LabHost? = nil) async throws -> TestGateway {
    let script = Harness.fixturesDirectory.appendingPathComponent("openclaw_gateway.py").path
    let command = [Harness.python3, script] + options.arguments
    let process: ChildProcess
    if let host {
        process = try host.spawn(command, label: "openclaw-gateway@\(host.label)")
    } else {
        process = try Subprocess.spawn(command, label: "openclaw-gateway")
    }
    do {
        let line = try await process.waitForLine(on: .stdout, timeout: .seconds(20), describing: "ready <port>") {
            $0.hasPrefix("ready ")
        }
        guard let port = Int(line.dropFirst("ready ".count)) else { throw TestError("bad ready line \(line)") }
        return TestGateway(process: process, port: port, options: options, host: host)
    } catch {
        await process.terminate(grace: .seconds(2))
        throw error
    }
}

/// Runs `body` with a started gateway and always stops it afterwards. Throws when the gateway
/// ended on its own while `body` ran (it only exits when signalled), with its status and output.
public func withTestGateway<T>(
    _ options: TestGatewayOptions = TestGatewayOptions(),
    in host: LabHost? = nil,
    _ body: (TestGateway) async throws -> T
) async throws -> T {
    let gateway = try await startTestGateway(options, in: host)
    let value: T
    do {
        value = try await body(gateway)
    } catch {
        let early = gateway.process.exitStatus
        await gateway.stop(grace: .seconds(2))
        if let early {
            throw TestError("\(error)\n(the gateway had already ended: \(early)\(gateway.process.outputExcerpt))")
        }
        throw error
    }
    if let early = gateway.process.exitStatus {
        throw TestError("\(gateway.process) ended during the test: \(early)\(gateway.process.outputExcerpt)")
    }
    await gateway.stop(grace: .seconds(2))
    return value
}

/// What `bench/py_gateway_client.py` printed and how it exited.
public struct GatewayClientResult: Sendable {
    /// Exit status: 0 ok, 1 RPC error, 3 transport/timeout, 4 auth refused, 5 NOT_PAIRED, 6 other refusal.
    public let status: ProcessTermination
    public let stdout: String
    public let stderr: String

    /// The last stdout line as JSON: the RPC payload, or `{"error": {...}, "stage": …}`.
    public var json: [String: Any]? {
        guard let last = stdout.split(separator: "\n").last, let data = last.data(using: .utf8) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// `error.details.code` of a failure, else `error.code`, else nil.
    public var errorCode: String? {
        guard let error = json?["error"] as? [String: Any] else { return nil }
        return (error["details"] as? [String: Any])?["code"] as? String ?? error["code"] as? String
    }
}

/// Runs the independent Python client (`bench/py_gateway_client.py`) against a gateway, on
/// loopback or inside `host`'s namespace; `arguments` follow its command line (`--url` first).
public func runGatewayClient(_ arguments: [String], in host: LabHost? = nil, timeout: Duration = .seconds(30)) async throws -> GatewayClientResult {
    let script = SpecFiles.packageRoot.appendingPathComponent("bench/py_gateway_client.py").path
    let command = [Harness.python3, script] + arguments
    let result = if let host {
        try await host.run(command, timeout: timeout)
    } else {
        try await Subprocess.run(command, timeout: timeout)
    }
    return GatewayClientResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
}
