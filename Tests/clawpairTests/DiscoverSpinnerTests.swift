import ClawpairTestSupport
import Foundation
import Testing

/// The `discover` spinner: drawn on standard error only when it is a terminal, and erased before
/// anything else is printed. The terminal is a pseudo-terminal from Tests/Fixtures/pty_run.py;
/// `discover` runs in a lab host (native backend, nothing to find), never in the machine's own
/// network namespace.
@Suite("clawpair discover: spinner", .serialized, .networkLab)
struct DiscoverSpinnerTests {
    static let erase = "\r\u{1B}[K"

    struct Run {
        let status: Int
        let stdout: String
        /// Every byte written to the terminal (the pty adds CR before each LF).
        let terminal: String
    }

    func onTerminal(_ host: LabHost, _ arguments: [String], environment: [String: String?] = [:]) async throws -> Run {
        let fixture = Harness.fixturesDirectory.appendingPathComponent("pty_run.py").path
        let result = try await host.run([Harness.python3, fixture, ClawpairBinary.path, "discover"] + arguments,
                                        environment: environment, timeout: .seconds(30)).requireSuccess()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                                  "\(result.stdout)\(result.stderr)")
        let encoded = try #require(object["terminal"] as? String)
        let bytes = try #require(Data(base64Encoded: encoded))
        let status = try #require(object["status"] as? Int)
        let stdout = try #require(object["stdout"] as? String)
        return Run(status: status, stdout: stdout, terminal: String(decoding: bytes, as: UTF8.self))
    }

    @Test("a terminal gets frames, then the line erased before the result; NO_COLOR does not matter; ASCII without UTF-8")
    func drawsAndErases() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            try await lab.link(a, b)
            for (environment, frames) in [(["TERM": "xterm", "LANG": "C.UTF-8", "NO_COLOR": "1"], ["⠋", "⠙"]),
                                          (["TERM": "xterm", "LANG": "C", "LC_ALL": nil, "LC_CTYPE": nil,
                                            // python3 would otherwise coerce the C locale to C.UTF-8 (PEP 538) for its children
                                            "PYTHONCOERCECLOCALE": "0"], ["|", "/"])] as [([String: String?], [String])] {
                let run = try await onTerminal(a, ["--backend", "native", "--timeout", "1000"], environment: environment)
                #expect(run.status == 3, "\(run.terminal)")
                let terminal = run.terminal
                // Frames: CR, a frame character, the message; at least the first two frames in order.
                #expect(terminal.hasPrefix("\r" + frames[0] + " Searching for gateways"), "\(terminal.debugDescription)")
                #expect(terminal.contains("\r" + frames[1] + " Searching for gateways"), "\(terminal.debugDescription)")
                // Erased once, after the last frame; what follows (the "no gateways" note) is clean.
                let parts = terminal.components(separatedBy: Self.erase)
                #expect(parts.count == 2, "\(terminal.debugDescription)")
                let after = parts.last ?? ""
                #expect(!after.contains("Searching") && !after.contains("\r\u{1B}"), "\(after.debugDescription)")
                #expect(after.hasPrefix("No gateways found within 1000 ms."), "\(after.debugDescription)")
            }
        }
    }

    @Test("no spinner: stderr not a terminal, --json, -q, -v or TERM=dumb on a terminal")
    func absent() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            try await lab.link(a, b)
            let piped = try await a.run([ClawpairBinary.path, "discover", "--backend", "native", "--timeout", "600"],
                                        environment: ["LANG": "C.UTF-8", "TERM": "xterm"])
            #expect(piped.status == .exited(3))
            #expect(!piped.stderr.contains("\r") && !piped.stderr.contains("\u{1B}") && !piped.stderr.contains("Searching"),
                    "\(piped.stderr.debugDescription)")
            #expect(piped.stderr.hasPrefix("No gateways found"), "\(piped.stderr.debugDescription)")

            for (arguments, environment) in [(["--json"], [:]), (["-q"], [:]), (["-v"], [:]),
                                             ([], ["TERM": "dumb"])] as [([String], [String: String?])] {
                let run = try await onTerminal(a, ["--backend", "native", "--timeout", "600"] + arguments,
                                               environment: environment.merging(["LANG": "C.UTF-8", "TERM": "xterm"]) { old, _ in old })
                #expect(run.status == 3, "\(arguments)")
                #expect(!run.terminal.contains("Searching") && !run.terminal.contains(Self.erase),
                        "\(arguments) \(environment): \(run.terminal.debugDescription)")
            }
        }
    }
}
