import ClawpairCLIKit
import ClawpairCore
import Testing

/// A small tree that exercises every arity and nesting.
private let leaf = CommandSpec(
    name: "decode", abstract: "Decode a thing",
    options: [
        .flag("show-secrets", help: "Show secrets."),
        .value("timeout", short: "t", "MS", help: "Timeout."),
        .repeated("url", short: "u", "URL", help: "A URL."),
        .value("output", short: "o", "FILE", help: "Output file.", completion: .file),
    ],
    arguments: [ArgumentSpec("input", help: "The input.", optional: true)],
    runner: { _, _ in .success })
private let group = CommandSpec(name: "setup-code", abstract: "Codes", subcommands: [leaf,
    CommandSpec(name: "encode", abstract: "Encode", runner: { _, _ in .success })])
private let root = CommandSpec(name: "tool", abstract: "A tool", subcommands: [group])

@Suite struct ParserTests {
    @Test func selectsNestedCommandAndCollectsOptions() throws {
        let parsed = try ArgumentParser.parse(
            ["setup-code", "decode", "--timeout", "5", "-u", "a", "--url=b", "-o-", "--show-secrets", "X"], root: root)
        #expect(parsed.commandPath == ["tool", "setup-code", "decode"])
        #expect(parsed.value("timeout") == "5")
        #expect(parsed.values("url") == ["a", "b"])
        #expect(parsed.value("output") == "-")
        #expect(parsed.flag("show-secrets"))
        #expect(parsed.positionals == ["X"])
    }

    @Test func globalOptionsAnywhere() throws {
        let parsed = try ArgumentParser.parse(["--json", "setup-code", "-qvv", "decode", "--no-color"], root: root)
        #expect(parsed.globals.json && parsed.globals.quiet && parsed.globals.noColor)
        #expect(parsed.globals.verbosity == 2)
    }

    @Test func dashIsPositionalAndDoubleDashEndsOptions() throws {
        #expect(try ArgumentParser.parse(["setup-code", "decode", "-"], root: root).positionals == ["-"])
        #expect(try ArgumentParser.parse(["setup-code", "decode", "--", "--json"], root: root).positionals == ["--json"])
    }

    @Test func unknownOptionSuggestsClosest() {
        #expect(throws: UsageError("unknown option '--timout' for 'tool setup-code decode'",
                                   hint: "did you mean '--timeout'? See 'tool setup-code decode --help'")) {
            try ArgumentParser.parse(["setup-code", "decode", "--timout", "1"], root: root)
        }
    }

    @Test func unknownCommandSuggestsClosest() throws {
        do {
            _ = try ArgumentParser.parse(["setup-code", "decod"], root: root)
            Issue.record("expected a usage error")
        } catch {
            #expect(error.message == "unknown command 'decod' for 'tool setup-code'")
            #expect(error.hint?.hasPrefix("did you mean 'decode'?") == true)
            #expect(error.exitStatus == .usage)
        }
    }

    @Test func valueErrors() throws {
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["setup-code", "decode", "--timeout"], root: root) }
        #expect(throws: UsageError.self) {
            try ArgumentParser.parse(["setup-code", "decode", "--timeout", "--json"], root: root)
        }
        #expect(throws: UsageError.self) {
            try ArgumentParser.parse(["setup-code", "decode", "-t", "1", "-t", "2"], root: root)
        }
        #expect(throws: UsageError.self) {
            try ArgumentParser.parse(["setup-code", "decode", "--show-secrets=yes"], root: root)
        }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["setup-code", "decode", "a", "b"], root: root) }
        // A negative number is a value, not an option.
        #expect(try ArgumentParser.parse(["setup-code", "decode", "-t", "-5"], root: root).value("timeout") == "-5")
    }

    @Test func helpSkipsPositionalValidation() throws {
        let parsed = try ArgumentParser.parse(["setup-code", "decode", "a", "b", "--help"], root: root)
        #expect(parsed.globals.help)
    }

    @Test func editDistance() {
        #expect(Suggest.editDistance("kitten", "sitting") == 3)
        #expect(Suggest.closest(to: "zzzzzz", in: ["decode", "encode"]) == nil)
        #expect(Suggest.closest(to: "enc", in: ["decode", "encode"]) == "encode")
    }
}

@Suite struct GeneratorTests {
    @Test func helpListsEverything() {
        let text = HelpFormatter.help(path: ["tool", "setup-code", "decode"], spec: leaf)
        #expect(text.hasPrefix("USAGE: tool setup-code decode [<options>] [<input>]\n"))
        #expect(text.contains("  -t, --timeout <ms>"))
        #expect(text.contains("GLOBAL OPTIONS:"))
        #expect(!text.contains("\u{1B}["), "no escape sequences without colour")
    }

    @Test func roffEscaping() {
        #expect(ManPageGenerator.escape("a-b \\ c") == "a\\-b \\e c")
        #expect(ManPageGenerator.escape(".start\n'quote") == "\\&.start\n\\&'quote")
        #expect(ManPageGenerator.escape("a → b 🦞") == "a \\[u2192] b \\[u1F99E]")
    }

    @Test func manPagePerCommand() {
        let pages = ManPageGenerator.pages(root: root, version: "9.9")
        #expect(pages.map(\.0) == ["tool.1", "tool-setup-code.1", "tool-setup-code-decode.1", "tool-setup-code-encode.1"])
        let decode = pages[2].1
        #expect(decode.contains(".TH \"TOOL-SETUP-CODE-DECODE\" \"1\""))
        #expect(decode.contains("\\fB\\-t\\fR, \\fB\\-\\-timeout\\fR \\fIms\\fR"))
        #expect(decode.contains(".SH EXIT STATUS"))
    }

    @Test func completionScriptsMentionEveryOption() {
        for shell in CompletionGenerator.Shell.allCases {
            let script = CompletionGenerator.script(for: shell, root: root)
            for word in ["setup-code", "decode", "encode", "timeout", "show-secrets", "json"] {
                #expect(script.contains(word), "\(shell) script lacks \(word)")
            }
        }
    }
}
