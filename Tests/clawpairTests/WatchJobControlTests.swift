import ClawpairTestSupport
import Foundation
import Testing

/// `devices watch` under job control on a pseudo-terminal (Tests/Fixtures/pty_run.py --stop):
/// Ctrl-Z's SIGTSTP puts the terminal back (canonical mode, echo) before the process stops, so the
/// shell the user returns to echoes again; SIGCONT (`fg`) turns key mode back on and the keys work.
@Suite("clawpair: devices watch under job control (pty, test gateway on loopback)")
struct WatchJobControlTests {
    @Test("Ctrl-Z restores the terminal while stopped; fg brings the keys back and q still quits")
    func stopAndContinue() async throws {
        try await GatewayCommandTests.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: ApprovalsCLITests.token)) { gateway in
                let fixture = Harness.fixturesDirectory.appendingPathComponent("pty_run.py").path
                let steps = ["--stop", "keys: a approve newest", "-", "--send", "", "q"]
                let result = try ClawpairBinary.runProgram(
                    Harness.python3, [fixture] + steps + [ClawpairBinary.path, "devices", "watch", "--url", gateway.url,
                                                          "--token-file", home.tokenFile],
                    environment: home.environment.merging(["PATH": "/usr/bin:/bin", "TERM": "xterm"]) { _, new in new })
                let object = try ApprovalsCLITests.json(result.stdout)
                #expect(object["unsent"] as? Int == 0, "\(result)")
                #expect(object["status"] as? Int == 0, "\(result)")
                #expect(object["restored"] as? Bool == true, "\(result)")
                let stops = try #require(object["stops"] as? [[String: Any]], "\(result)")
                #expect(stops.count == 1, "\(result)")
                #expect(stops.first?["stopped"] as? Bool == true, "\(result)")
                #expect(stops.first?["restoredWhileStopped"] as? Bool == true, "\(result)")
                #expect(stops.first?["keysAfterContinue"] as? Bool == true, "\(result)")
            }
        }
    }
}
