import ClawpairCLIKit
import ClawpairCore
import Testing

/// ArgumentsCommand, CommandContext.printResult, DurationOption.spanWithUnit and ArgumentChoice.
@Suite struct CommandOutputTests {
    /// A command that keeps its arguments and refuses a first argument `bad`.
    struct Echo: ArgumentsCommand {
        static let spec = CommandSpec(name: "echo", abstract: "Echoes", arguments: [ArgumentSpec("word", help: "A word.")],
                                      runner: Echo.runner)
        let arguments: ParsedArguments

        static func validate(_ arguments: ParsedArguments) throws {
            if arguments.positionals[0] == "bad" { throw UsageError("bad word") }
        }

        func run(_ context: CommandContext) throws -> ClawpairCLIKit.ExitStatus {
            context.printResult(.object([("word", .string(arguments.positionals[0]))]), lines: [arguments.positionals[0]])
        }
    }

    /// A command without a validate of its own.
    struct Plain: ArgumentsCommand {
        static let spec = CommandSpec(name: "plain", abstract: "Plain", arguments: [ArgumentSpec("word", help: "A word.")],
                                      runner: Plain.runner)
        let arguments: ParsedArguments
        func run(_ context: CommandContext) throws -> ClawpairCLIKit.ExitStatus { .success }
    }

    static let root = CommandSpec(name: "tool", abstract: "A tool", subcommands: [Echo.spec, Plain.spec])

    @Test("an ArgumentsCommand keeps its arguments, runs validate before run, and validates nothing by default")
    func argumentsCommand() throws {
        let (ctx, out, _) = context()
        let parsed = try ArgumentParser.parse(["echo", "hello"], root: Self.root)
        #expect(try Echo.runner(parsed, ctx) == .success)
        #expect(out.value == "hello\n")
        let bad = try ArgumentParser.parse(["echo", "bad"], root: Self.root)
        #expect(throws: UsageError("bad word")) { _ = try Echo(parsing: bad, context: ctx) }
        #expect(out.value == "hello\n", "nothing ran")
        let plain = try Plain(parsing: try ArgumentParser.parse(["plain", "bad"], root: Self.root), context: ctx)
        #expect(plain.arguments.positionals == ["bad"])
    }

    @Test("printResult: the JSON document under --json (no lines, no notes), else the lines on stdout and the notes on stderr")
    func printResult() {
        let (text, out, err) = context()
        #expect(text.printResult(.object([("a", 1)]), lines: ["one", "two"], notes: ["", "next: x"]) == .success)
        #expect(out.value == "one\ntwo\n")
        #expect(err.value == "\nnext: x\n")

        var quiet = GlobalOptions()
        quiet.quiet = true
        let (muted, mutedOut, mutedErr) = context(globals: quiet)
        muted.printResult(.null, lines: ["shown"], notes: ["not with --quiet"])
        #expect(mutedOut.value == "shown\n")
        #expect(mutedErr.value.isEmpty)

        var json = GlobalOptions()
        json.json = true
        let (machine, jsonOut, jsonErr) = context(globals: json)
        var rendered = false
        machine.printResult(.object([("a", 1)]), lines: { rendered = true; return ["never"] }(), notes: ["never"])
        #expect(!rendered, "the lines are not made under --json")
        #expect(jsonOut.value == JSONEnvelope.success(.object([("a", 1)])).pretty(terminalSafe: true) + "\n")
        #expect(jsonErr.value.isEmpty)
    }

    @Test("spanWithUnit: nil when not given, milliseconds with a unit, a usage error naming the option for bare numbers, zero and junk")
    func spanWithUnit() throws {
        #expect(try DurationOption.spanWithUnit(nil, option: "last-connected") == nil)
        #expect(try DurationOption.spanWithUnit("24h", option: "last-connected") == 86_400_000)
        #expect(try DurationOption.spanWithUnit("1h30m", option: "last-connected") == 5_400_000)
        #expect(try DurationOption.spanWithUnit("30d", option: "x") == 2_592_000_000, "no maximum")
        for text in ["24", "", "0h", "soon", "-1h"] {
            #expect(throws: UsageError("invalid --last-connected: \(text)", hint: "give a duration with a unit, e.g. 24h, 30m or 7d"),
                    "\(text)") { _ = try DurationOption.spanWithUnit(text, option: "last-connected") }
        }
    }

    enum Shell: String, CaseIterable { case bash, zsh, fish }

    @Test("ArgumentChoice: a listed word passes; another is 'unknown WHAT' (sanitized) with every choice in the hint")
    func choice() throws {
        #expect(try ArgumentChoice.check("gateways", in: ["gateways"], what: "kind") == "gateways")
        #expect(throws: UsageError("unknown kind 'nodes'", hint: "use gateways")) {
            try ArgumentChoice.check("nodes", in: ["gateways"], what: "kind")
        }
        #expect(try ArgumentChoice.parse("zsh", what: "shell") as Shell == .zsh)
        #expect(throws: UsageError("unknown shell 'tcsh'", hint: "use bash, zsh or fish")) {
            _ = try ArgumentChoice.parse("tcsh", what: "shell") as Shell
        }
        #expect(throws: UsageError("unknown shell 'a\\x1bb'", hint: "use bash, zsh or fish")) {
            _ = try ArgumentChoice.parse("a\u{1B}b", what: "shell") as Shell
        }
    }
}
