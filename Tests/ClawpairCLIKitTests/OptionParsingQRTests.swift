#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
import Testing

/// The option helpers `qr` and `qr render` use: whole numbers in a range, choices matched after
/// normalizing with their own hint, and a file or standard input.
@Suite("ParsedArguments whole numbers and normalized choices")
struct OptionParsingQRTests {
    enum Level: String, CaseIterable { case low = "L", high = "H" }
    static let root = CommandSpec(name: "tool", abstract: "A tool", subcommands: [
        CommandSpec(name: "use", abstract: "Uses values", options: [
            .value("margin", "N", help: "A margin."), .value("level", "LEVEL", help: "A level."),
        ], runner: { _, _ in .success }),
    ])

    func parse(_ arguments: [String]) throws -> ParsedArguments {
        try ArgumentParser.parse(["use"] + arguments, root: Self.root)
    }

    @Test("a whole number: the default when absent, the value in range, else 'must be a whole number' with the text sanitized")
    func wholeNumber() throws {
        #expect(try parse([]).wholeNumber("margin", in: 0...16, default: 4) == 4)
        #expect(try parse(["--margin", "0"]).wholeNumber("margin", in: 0...16, default: 4) == 0)
        #expect(try parse(["--margin", "16"]).wholeNumber("margin", in: 0...16, default: 4) == 16)
        for bad in ["17", "-1", "1.5", "x\u{1B}[2J", ""] {
            let shown = TerminalText.sanitize(bad, maxScalars: 32)
            #expect(throws: UsageError("--margin must be a whole number from 0 to 16, not '\(shown)'")) {
                _ = try parse(["--margin", bad]).wholeNumber("margin", in: 0...16, default: 4)
            }
        }
    }

    @Test("a normalized choice: nil when absent, matched after normalizing, else 'unknown' with the given or the listing hint")
    func normalizedChoice() throws {
        let upper: (String) -> String = { $0.uppercased() }
        #expect(try parse([]).choice("level", noun: "level", normalizing: upper) as Level? == nil)
        #expect(try parse(["--level", "h"]).choice("level", noun: "level", normalizing: upper) as Level? == .high)
        #expect(throws: UsageError("unknown level 'x'", hint: "use L or H")) {
            _ = try parse(["--level", "x"]).choice("level", noun: "level", normalizing: upper) as Level?
        }
        #expect(throws: UsageError("unknown level 'x'", hint: "use one of: L, H")) {
            _ = try parse(["--level", "x"]).choice("level", noun: "level", normalizing: upper, hint: "use one of: L, H") as Level?
        }
        // Without normalizing, the name must match exactly.
        #expect(throws: UsageError("unknown level 'h'", hint: "use L or H")) {
            _ = try parse(["--level", "h"]).choice("level", noun: "level", normalizing: { $0 }) as Level?
        }
    }

    @Test("readFile: a regular file's bytes, standard input for -, and the size limit")
    func readFile() throws {
        let path = "/tmp/clawpair-readfile-\(getpid()).bin"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = write(fd, "image", 5)
        close(fd)
        defer { unlink(path) }
        let (c, _, _) = context(stdin: Array("piped".utf8))
        #expect(try c.readFile(path, limit: 64) == Array("image".utf8))
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
