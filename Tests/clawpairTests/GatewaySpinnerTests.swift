import ClawpairTestSupport
import Foundation
import Testing

/// Issue #24 §13: a command that waits on a gateway turns a spinner on a terminal (after about
/// 300 ms, as discover has one), erased before anything else is printed; none with --json. The
/// stand-in gateway on loopback delays its challenge so that the wait is long; standard error is
/// a pseudo-terminal (Tests/Fixtures/pty_run.py).
@Suite("clawpair gateway commands: spinner", .serialized)
struct GatewaySpinnerTests {
    static func onTerminal(_ home: GatewayCommandTests.Home, _ arguments: [String]) throws -> (status: Int, terminal: String) {
        let fixture = Harness.fixturesDirectory.appendingPathComponent("pty_run.py").path
        let result = try ClawpairBinary.runProgram(Harness.python3, [fixture, ClawpairBinary.path] + arguments,
                                                   environment: home.environment.merging(["PATH": "/usr/bin:/bin", "TERM": "xterm", "LANG": "C.UTF-8"]) { _, new in new })
        let object = try GatewayCommandTests.json(result.stdout)
        let encoded = try #require(object["terminal"] as? String)
        let bytes = try #require(Data(base64Encoded: encoded))
        return (try #require(object["status"] as? Int), String(decoding: bytes, as: UTF8.self))
    }

    @Test("devices list and probe against a slow gateway: frames naming the URL, erased once; nothing with --json")
    func connectSpinner() async throws {
        try await GatewayCommandTests.withHome { home in
            var options = TestGatewayOptions(token: GatewayCommandTests.token, fault: .slowChallenge)
            options.faultDelayMs = 1500
            try await withTestGateway(options) { gateway in
                let command = ["devices", "list", "--url", gateway.url, "--token-file", home.tokenFile]
                let run = try Self.onTerminal(home, command)
                #expect(run.status == 0, "\(run.terminal.debugDescription)")
                #expect(run.terminal.contains(" Connecting to \(gateway.url)"), "\(run.terminal.debugDescription)")
                let parts = run.terminal.components(separatedBy: "\r\u{1B}[K")
                #expect(parts.count == 2 && !(parts.last ?? "").contains("Connecting"), "\(run.terminal.debugDescription)")
                let json = try Self.onTerminal(home, command + ["--json"])
                #expect(json.status == 0 && !json.terminal.contains("Connecting"), "\(json.terminal.debugDescription)")
                // probe waits on the gateway too.
                let probe = try Self.onTerminal(home, ["probe", gateway.url])
                #expect(probe.status == 0, "\(probe.terminal.debugDescription)")
                let probeParts = probe.terminal.components(separatedBy: "\r\u{1B}[K")
                #expect(probe.terminal.contains(" Probing \(gateway.url)") && probeParts.count == 2
                        && !(probeParts.last ?? "").contains("Probing"), "\(probe.terminal.debugDescription)")
            }
        }
    }
}
