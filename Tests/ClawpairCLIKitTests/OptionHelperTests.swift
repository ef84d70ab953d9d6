import ClawpairCLIKit
import ClawpairCore
import Testing

/// `ParsedArguments.epochMs`, `notBoth` and `SecretInput.require`.
@Suite("option helpers: epoch ms, one of two options, a required secret")
struct EpochSecretOptionTests {
    static let root = CommandSpec(name: "tool", abstract: "A tool", subcommands: [
        CommandSpec(name: "use", abstract: "Uses values", options: [
            .value("at-ms", "MS", help: "A time."), .value("payload", "TEXT", help: "A payload."),
            .value("payload-file", "FILE", help: "A payload file."),
            .value("secret-file", "FILE", help: "A secret file."), .value("secret", "SECRET", help: "A secret."),
        ], runner: { _, _ in .success }),
    ])

    func parse(_ arguments: [String]) throws -> ParsedArguments {
        try ArgumentParser.parse(["use"] + arguments, root: Self.root)
    }

    @Test("epoch ms: nil when absent, the value when a non-negative integer, else 'is not' with the text sanitized")
    func epochMs() throws {
        #expect(try parse([]).epochMs("at-ms") == nil)
        #expect(try parse(["--at-ms", "0"]).epochMs("at-ms") == 0)
        #expect(try parse(["--at-ms", "1737264000000"]).epochMs("at-ms") == 1_737_264_000_000)
        for bad in ["-1", "1.5", "soon", "x\u{1B}[2J", String(repeating: "9", count: 60)] {
            let shown = TerminalText.sanitize(bad, maxScalars: 40)
            #expect(throws: UsageError("--at-ms '\(shown)' is not a time in ms since the epoch")) {
                _ = try parse(["--at-ms", bad]).epochMs("at-ms")
            }
        }
    }

    @Test("not both: either option alone or neither passes, both is a usage error naming them")
    func notBoth() throws {
        for arguments in [[], ["--payload", "p"], ["--payload-file", "f"]] {
            try parse(arguments).notBoth("payload", "payload-file")
        }
        #expect(throws: UsageError("give --payload or --payload-file, not both")) {
            try parse(["--payload", "p", "--payload-file", "f"]).notBoth("payload", "payload-file")
        }
    }

    @Test("a required secret: the value read, or 'no WHAT given' with every source in the hint")
    func requiredSecret() throws {
        let input = SecretInput(what: "bootstrap token", fileOption: "secret-file", valueOption: "secret",
                                environmentVariable: "TOOL_SECRET")
        let (withVariable, _, _) = context(environment: ["TOOL_SECRET": "from-env"])
        #expect(try input.require(parse([]), withVariable) == "from-env")
        let (bare, _, _) = context()
        #expect(throws: UsageError("no bootstrap token given",
                                   hint: "use --secret-file FILE, --secret - (standard input) or TOOL_SECRET")) {
            _ = try input.require(parse([]), bare)
        }
    }
}

/// `CommandContext.output`: the JSON document or the text, never both.
@Suite("CommandContext.output")
struct CommandContextOutputTests {
    @Test("the text as it is without --json; the document with ok first under --json, the text never built")
    func jsonOrText() {
        let (plain, out, _) = context()
        plain.output(json: .object([("n", .int(1))]), text: "one\ntwo\n")
        #expect(out.value == "one\ntwo\n")

        var globals = GlobalOptions()
        globals.json = true
        let (json, jsonOut, _) = context(globals: globals)
        json.output(json: .object([("n", .int(1))]), text: { Issue.record("text built under --json"); return "" }())
        #expect(jsonOut.value == JSONValue.object([("ok", .bool(true)), ("n", .int(1))]).pretty(terminalSafe: true) + "\n")
        #expect(json.jsonOutput.printedDocument)
    }

    @Test("a secret on the command line: the warning names what it was and the command that reads it from stdin")
    func onCommandLine() {
        let (context, out, err) = context()
        context.warnOnCommandLine("this setup code", instead: "tool decode -")
        #expect(out.value == "")
        #expect(err.value == "warning: this setup code was given on the command line, where other users can see it "
                + "(ps, shell history); pipe it in instead: tool decode -\n")
    }
}
