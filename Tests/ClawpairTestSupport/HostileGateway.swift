import Foundation

// The hostile gateway (Tests/Fixtures/hostile_gateway.py): a loopback peer that answers with
// numbers and traffic chosen to break a client (huge policy values, a protocol outside the
// requested range, a ping flood that never reads, silence). It exits on its own after
// `--max-seconds`, so a failing test never leaves it behind.

/// A running hostile gateway started by ``startHostileGateway(_:_:)``.
public struct HostileGateway: Sendable {
    /// The fixture process (its stdout holds the JSON log lines).
    public let process: ChildProcess
    /// The port it listens on.
    public let port: Int

    /// `ws://127.0.0.1:<port>`.
    public var url: String { "ws://127.0.0.1:\(port)" }

    /// Stops it (SIGTERM, then SIGKILL after `grace`).
    @discardableResult
    public func stop(grace: Duration = .seconds(2)) async -> ProcessTermination? {
        await process.terminate(grace: grace)
    }
}

/// Starts `hostile_gateway.py --scenario <scenario> <arguments…>` on loopback and waits for
/// `ready <port>`.
public func startHostileGateway(_ scenario: String, _ arguments: [String] = [], maxSeconds: Int = 60) async throws -> HostileGateway {
    let script = Harness.fixturesDirectory.appendingPathComponent("hostile_gateway.py").path
    let process = try Subprocess.spawn([Harness.python3, script, "--scenario", scenario, "--max-seconds", String(maxSeconds)] + arguments,
                                       label: "hostile-gateway(\(scenario))")
    do {
        let line = try await process.waitForLine(on: .stdout, timeout: .seconds(20), describing: "ready <port>") { $0.hasPrefix("ready ") }
        guard let port = Int(line.dropFirst("ready ".count)) else { throw TestError("bad ready line \(line)") }
        return HostileGateway(process: process, port: port)
    } catch {
        await process.terminate(grace: .seconds(1))
        throw error
    }
}
