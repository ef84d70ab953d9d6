#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
import Testing

/// The option helpers `qr` and `qr render` use: whole numbers in a range, choices matched after
/// normalizing with their own hint, and a file or standard input.
@Suite("ParsedArguments whole numbers and normalized choices")
struct WholeNumberChoiceTests {
    typealias Shade = ParsedValueTests.Shade

    /// ParsedValueTests' command line: `--port` and `--shade` (light, dark or dim).
    func parse(_ arguments: [String]) throws -> ParsedArguments {
        try ParsedValueTests().parse(arguments)
    }

    @Test("a whole number: the default when absent, the value in range, else 'must be a whole number' with the text sanitized")
    func wholeNumber() throws {
        #expect(try parse([]).wholeNumber("port", in: 0...16, default: 4) == 4)
        #expect(try parse(["--port", "0"]).wholeNumber("port", in: 0...16, default: 4) == 0)
        #expect(try parse(["--port", "16"]).wholeNumber("port", in: 0...16, default: 4) == 16)
        for bad in ["17", "-1", "1.5", "x\u{1B}[2J", ""] {
            let shown = TerminalText.sanitize(bad, maxScalars: 32)
            #expect(throws: UsageError("--port must be a whole number from 0 to 16, not '\(shown)'")) {
                _ = try parse(["--port", bad]).wholeNumber("port", in: 0...16, default: 4)
            }
        }
    }

    @Test("a normalized choice: nil when absent, matched after normalizing, else 'unknown' with the given or the listing hint")
    func normalizedChoice() throws {
        let lower: (String) -> String = { $0.lowercased() }
        #expect(try parse([]).choice("shade", noun: "shade", normalizing: lower) as Shade? == nil)
        #expect(try parse(["--shade", "DIM"]).choice("shade", noun: "shade", normalizing: lower) as Shade? == .dim)
        #expect(throws: UsageError("unknown shade 'Pink'", hint: "use light, dark or dim")) {
            _ = try parse(["--shade", "Pink"]).choice("shade", noun: "shade", normalizing: lower) as Shade?
        }
        #expect(throws: UsageError("unknown shade 'Pink'", hint: "use one of: light, dark, dim")) {
            let hint = "use one of: light, dark, dim"
            _ = try parse(["--shade", "Pink"]).choice("shade", noun: "shade", normalizing: lower, hint: hint) as Shade?
        }
        // Without normalizing, the name must match exactly.
        #expect(throws: UsageError("unknown shade 'DIM'", hint: "use light, dark or dim")) {
            _ = try parse(["--shade", "DIM"]).choice("shade", noun: "shade", normalizing: { $0 }) as Shade?
        }
    }

    @Test("readFile: a regular file's bytes, standard input for -, and the size limit")
    func readFile() throws {
        let path = #filePath  // this file: a regular file that starts with its Glibc import
        let (c, _, _) = context(stdin: Array("piped".utf8))
        #expect(try c.readFile(path, limit: 1 << 20).starts(with: Array("#if canImport(Glibc)".utf8)))
        #expect(try c.readFile("-", limit: 64) == Array("piped".utf8))
        #expect(throws: (any Error).self) { _ = try c.readFile(path, limit: 4) }
        #expect(throws: (any Error).self) { _ = try c.readFile("/tmp", limit: 64) }
    }
}

/// Bytes from standard input with a prompt for a person at a terminal, trailing newlines removed.
@Suite("CommandContext.readBytes")
struct ReadBytesTests {
    @Test("trailing LF and CR removed (others kept); the prompt only on a terminal")
    func readBytes() throws {
        let (piped, _, quietErr) = context(stdin: Array("raw\u{0}text\r\n\n".utf8))
        #expect(try piped.readBytes(prompting: "Type it:", limit: 64) == Array("raw\u{0}text".utf8))
        #expect(quietErr.value == "")
        let (terminal, _, err) = context(stdin: [0xFF, 0x0A, 0x20, 0x0A], stdinIsTTY: true)
        #expect(try terminal.readBytes(prompting: "Type it:", limit: 64) == [0xFF, 0x0A, 0x20])
        #expect(err.value == "Type it:\n")
        let (limited, _, _) = context(stdin: Array("abcdef".utf8))
        #expect(try limited.readBytes(prompting: "", limit: 3) == Array("abc".utf8))
    }
}
