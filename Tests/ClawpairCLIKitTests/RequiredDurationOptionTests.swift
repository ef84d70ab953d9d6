import ClawpairCLIKit
import ClawpairCore
import Testing

/// A command that keeps its arguments (ArgumentsCommand) and prints its required `--name`.
private struct Echo: ArgumentsCommand {
    static let spec = CommandSpec(name: "echo", abstract: "Echo", options: [.value("name", "NAME", help: "A name.")],
                                  runner: Echo.runner)
    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ClawpairCLIKit.ExitStatus {
        let name = try arguments.required("name", "NAME", hint: "e.g. --name box")
        return context.printResult(.object([("name", .string(name))]), lines: ["name \(name)"])
    }
}

private let root = CommandSpec(name: "tool", abstract: "A tool", subcommands: [Echo.spec])

@Suite("option helpers: a required value, a bounded duration")
struct RequiredDurationOptionTests {
    /// Runs `tool echo ARGS...`: status, stdout, stderr.
    private func run(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
        let out = Captured(), err = Captured()
        let status = CommandLineTool.run(root: root, arguments: ["echo"] + arguments, version: "1", makeContext: { globals in
            CommandContext(stdout: out, stderr: err, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false,
                           environment: [:], globals: globals, nowMs: 0, readStandardInput: { _ in [] })
        })
        return (status, out.value, err.value)
    }

    @Test("an ArgumentsCommand runs with its parsed arguments; a required value is read")
    func show() {
        #expect(run(["--name", "box"]) == (0, "name box\n", ""))
        let json = run(["--name", "box", "--json"])
        #expect(json.status == 0)
        #expect(json.stdout == "{\n  \"ok\": true,\n  \"name\": \"box\"\n}\n")
    }

    @Test("required: a missing or empty value is a usage error naming the option and its value, with the hint")
    func required() {
        for arguments in [[], ["--name", ""]] {
            let result = run(arguments)
            #expect(result.status == 2)
            #expect(result.stdout == "")
            #expect(result.stderr == "error: --name NAME is required\nhint: e.g. --name box\n")
        }
    }

    @Test("duration: the default when absent, the option's value by the duration rule, a bad value named")
    func duration() throws {
        let spec = CommandSpec(name: "t", abstract: "T", options: [.value("wait", "MS", help: "Wait.")], runner: { _, _ in .success })
        func parsed(_ arguments: [String]) throws -> ParsedArguments { try ArgumentParser.parse(arguments, root: spec) }
        #expect(try parsed([]).duration("wait", defaultMs: 300_000, allowZero: true) == .seconds(300))
        #expect(try parsed(["--wait", "1m30s"]).duration("wait", defaultMs: 1, allowZero: false) == .seconds(90))
        #expect(try parsed(["--wait", "0"]).duration("wait", defaultMs: 1, allowZero: true) == .zero)
        #expect(throws: UsageError.self) { try parsed(["--wait", "0"]).duration("wait", defaultMs: 1, allowZero: false) }
        #expect(throws: UsageError.self) { try parsed(["--wait", "11m"]).duration("wait", defaultMs: 1, allowZero: false) }
        #expect(try parsed(["--wait", "11m"]).duration("wait", defaultMs: 1, allowZero: false, maximumMs: 3_600_000) == .seconds(660))
    }
}
