import ClawpairCLIKit
import ClawpairCore
import Testing

/// Commands printed back in hints: pasteable, in declaration order, without what must not be echoed.
@Suite struct CommandLineTextTests {
    @Test("shell words: plain ones as they are, the rest single-quoted")
    func quoting() {
        #expect(ShellQuote.quote("wss://gw.example:443/x") == "wss://gw.example:443/x")
        #expect(ShellQuote.quote("my gateway") == "'my gateway'")
        #expect(ShellQuote.quote("it's") == "'it'\\''s'")
        #expect(ShellQuote.quote("") == "''")
        #expect(ShellQuote.quote("$(rm -rf)") == "'$(rm -rf)'")
    }

    @Test("the command again: declared option order, omissions, additions, globals, positionals")
    func commandLine() throws {
        let spec = CommandSpec(name: "tool", abstract: "A tool", subcommands: [
            CommandSpec(name: "go", abstract: "Goes", options: [
                .value("url", "URL", help: "u"), .value("token", "TOKEN", help: "t"), .flag("all", help: "a"),
                .repeated("tag", "TAG", help: "t"),
            ], arguments: [ArgumentSpec("name", help: "n", optional: true)], runner: { _, _ in .success }),
        ])
        let parsed = try ArgumentParser.parse(["go", "--tag", "b c", "--token", "secret", "my name", "--json", "--all",
                                               "--url", "wss://h", "--tag", "d"], root: spec)
        #expect(parsed.commandLine(omitting: ["token"], adding: [("trust", "ab12")])
                == "tool go --url wss://h --all --tag 'b c' --tag d --trust ab12 --json 'my name'")
        #expect(parsed.commandLine(omitting: ["token", "tag", "all"], replacing: ["url": "ws://h"]) == "tool go --url ws://h --json 'my name'")
        let dashed = try ArgumentParser.parse(["go", "--", "-x"], root: spec)
        #expect(dashed.commandLine() == "tool go -- -x")
    }
}
