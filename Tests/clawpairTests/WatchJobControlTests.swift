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
                let object = try ApprovalsCLITests.watchOnTerminalResult(home, gateway, ["--stop", "keys: a approve newest", "-",
                                                                                         "--send", "", "q"])
                #expect(object["unsent"] as? Int == 0, "\(object)")
                #expect(object["status"] as? Int == 0, "\(object)")
                #expect(object["restored"] as? Bool == true, "\(object)")
                let stops = try #require(object["stops"] as? [[String: Any]], "\(object)")
                #expect(stops.count == 1, "\(object)")
                #expect(stops.first?["stopped"] as? Bool == true, "\(object)")
                #expect(stops.first?["restoredWhileStopped"] as? Bool == true, "\(object)")
                #expect(stops.first?["keysAfterContinue"] as? Bool == true, "\(object)")
            }
        }
    }
}
