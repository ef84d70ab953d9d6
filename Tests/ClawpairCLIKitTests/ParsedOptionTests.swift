import ClawpairCLIKit
import ClawpairCore
import Testing

/// A command with one option of each kind the helpers read.
private let command = CommandSpec(
    name: "tool", abstract: "A tool",
    options: [
        .value("domain", "DOMAIN", help: "A domain."),
        .value("port", "PORT", help: "A port."),
        .value("mode", "MODE", help: "A mode."),
        .repeated("txt", "KEY=VALUE", help: "A TXT entry."),
        .flag("first", help: "First."),
        .flag("watch", help: "Watch."),
    ],
    runner: { _, _ in .success })

private func parse(_ arguments: [String]) throws -> ParsedArguments {
    try ArgumentParser.parse(arguments, root: command)
}

@Suite struct ParsedOptionTests {
    @Test func requiredNamesTheOptionAndAnExample() throws {
        #expect(try parse(["--domain", "openclaw.internal"]).required("domain", example: "x") == "openclaw.internal")
        #expect(throws: UsageError("--domain is required", hint: "e.g. --domain openclaw.internal")) {
            try parse([]).required("domain", example: "openclaw.internal")
        }
    }

    @Test func portIsOneTo65535() throws {
        #expect(try parse([]).port("port") == nil)
        #expect(try parse(["--port", "65535"]).port("port") == 65_535)
        for bad in ["0", "65536", "-1", "http"] {
            #expect(throws: UsageError("--port '\(bad)' is not a port (1-65535)")) { try parse(["--port", bad]).port("port") }
        }
    }

    @Test func parsedConvertsOrSaysWhatTheValueIsNot() throws {
        let modes = ["minimal": 1, "full": 2]
        #expect(try parse([]).parsed("mode", isNot: "minimal or full") { modes[$0] } == nil)
        #expect(try parse(["--mode", "full"]).parsed("mode", isNot: "minimal or full") { modes[$0] } == 2)
        #expect(throws: UsageError("--mode 'loud' is not minimal or full", hint: "try full")) {
            try parse(["--mode", "loud"]).parsed("mode", isNot: "minimal or full", hint: "try full") { modes[$0] }
        }
        // The rejected text is sanitized for the terminal and cut.
        #expect(throws: UsageError("--mode '\(TerminalText.sanitize("a\u{1b}[2Jb", maxScalars: 64))' is not minimal or full")) {
            try parse(["--mode", "a\u{1b}[2Jb"]).parsed("mode", isNot: "minimal or full") { modes[$0] }
        }
        #expect(throws: UsageError("--mode '\(TerminalText.sanitize(String(repeating: "x", count: 80), maxScalars: 8))' is not short")) {
            try parse(["--mode", String(repeating: "x", count: 80)]).parsed("mode", isNot: "short", maxScalars: 8) { modes[$0] }
        }
    }

    @Test func parsedWithItsOwnMessage() throws {
        let error = UsageError("--mode is not a mode", hint: "minimal or full")
        #expect(try parse(["--mode", "full"]).parsed("mode", { $0 == "full" ? 2 : nil }, invalid: { _ in error }) == 2)
        #expect(throws: error) { try parse(["--mode", "loud"]).parsed("mode", { $0 == "full" ? 2 : nil }, invalid: { _ in error }) }
        #expect(throws: UsageError("loud")) {
            try parse(["--mode", "loud"]).parsed("mode", { _ in Int?.none }, invalid: { UsageError($0) })
        }
    }

    @Test func parsedValuesKeepOrderAndStopAtTheFirstBadOne() throws {
        let pair = { (text: String) -> String? in text.contains("=") ? text : nil }
        #expect(try parse([]).parsedValues("txt", isNot: "KEY=VALUE", pair).isEmpty)
        #expect(try parse(["--txt", "b=2", "--txt", "a=1"]).parsedValues("txt", isNot: "KEY=VALUE", pair) == ["b=2", "a=1"])
        #expect(throws: UsageError("--txt 'bad' is not KEY=VALUE")) {
            try parse(["--txt", "a=1", "--txt", "bad", "--txt", "worse"]).parsedValues("txt", isNot: "KEY=VALUE", pair)
        }
    }

    @Test func givenAndExclusive() throws {
        let both = try parse(["--first", "--watch", "--domain", "d"])
        #expect(both.given("first") && both.given("domain") && !both.given("port"))
        #expect(throws: UsageError("--first and --watch do not go together")) { try both.exclusive("first", "watch") }
        #expect(throws: UsageError("--watch and --domain do not go together")) { try both.exclusive("watch", "domain") }
        try parse(["--first"]).exclusive("first", "watch")
        try parse([]).exclusive("first", "domain")
    }
}
