import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair pair` with no setup code: a person at a terminal is asked for it, as
/// `setup-code decode` does; a script (stdin not a terminal) gets the usage error.
@Suite("clawpair pair: asks a terminal for the code")
struct PairPromptCLITests {
    @Test("no argument on a terminal: the prompt, then the pasted text is read as the code")
    func promptsOnTerminal() throws {
        let fixture = Harness.fixturesDirectory.appendingPathComponent("pty_run.py").path
        let prompt = "Paste the setup code, then press Ctrl-D:"
        let result = try ClawpairBinary.runProgram(Harness.python3, [fixture, "--send", prompt, "not-a-setup-code\n\u{04}",
                                                                     ClawpairBinary.path, "pair"],
                                                   environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        let encoded = try #require(object["terminal"] as? String)
        let bytes = try #require(Data(base64Encoded: encoded))
        let terminal = String(decoding: bytes, as: UTF8.self)
        #expect(terminal.contains(prompt), "\(terminal)")
        #expect(!terminal.contains("missing argument"), "\(terminal)")
        #expect(terminal.contains("not-a-setup-code") || terminal.contains("error:"), "the pasted text was read: \(terminal)")
        #expect(object["status"] as? Int != 0)
    }

    @Test("no argument and standard input not a terminal: the usage error, nothing read")
    func usageErrorOffTerminal() throws {
        let result = try ClawpairBinary.run(["pair"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix("error: missing argument <setup-code> for 'clawpair pair'"), "\(result)")
    }
}
