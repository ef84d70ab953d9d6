import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair qr` (minting) on a real terminal (Tests/Fixtures/pty_window.py): a window narrower
/// than the code gets no wrapped, unscannable drawing but a warning naming the way out, and the
/// minted setup code is still printed (exit 0: the code was minted and pairs when typed in).
@Suite struct QRMintTerminalTests {
    func onTerminal(columns: Int, home: GatewayCommandTests.Home, _ arguments: [String]) throws -> (status: Int, stdout: String, stderr: String) {
        let fixture = Harness.fixturesDirectory.appendingPathComponent("pty_window.py").path
        var environment = home.environment
        environment["PATH"] = "/usr/bin:/bin"
        let result = try ClawpairBinary.runProgram(Harness.python3, [fixture, "--columns", String(columns), "--", ClawpairBinary.path] + arguments,
                                                   environment: environment)
        #expect(result.status == 0 && result.stderr.isEmpty, "pty_window.py: \(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        return (try #require(object["status"] as? Int), try #require(object["stdout"] as? String), try #require(object["stderr"] as? String))
    }

    @Test("qr on a narrow terminal: no drawing, a warning suggesting -o pair.png, the setup code printed; a wide one draws it")
    func narrowTerminal() async throws {
        try await GatewayCommandTests.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: GatewayCommandTests.token)) { gateway in
                let auth = ["--url", gateway.url, "--token-file", home.tokenFile]
                let narrow = try onTerminal(columns: 30, home: home, ["qr"] + auth)
                #expect(narrow.status == 0, "\(narrow)")
                #expect(narrow.stderr.contains("warning: the QR code is ") && narrow.stderr.contains("but the terminal has 30, so it is not drawn")
                        && narrow.stderr.contains("-o pair.png"), "\(narrow.stderr.debugDescription)")
                #expect(!narrow.stdout.contains("Pairing QR") && !narrow.stdout.contains("█"), "\(narrow.stdout.debugDescription)")
                #expect(narrow.stdout.contains("Setup code: "), "\(narrow.stdout.debugDescription)")
                let wide = try onTerminal(columns: 200, home: home, ["qr"] + auth)
                #expect(wide.status == 0 && !wide.stderr.contains("not drawn"), "\(wide)")
                #expect(wide.stdout.contains("Pairing QR") && wide.stdout.contains("Setup code: "), "\(wide.stdout.debugDescription)")
            }
        }
    }
}
