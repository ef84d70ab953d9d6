import ClawpairCLIKit
import Synchronization
import Testing

/// Subcommand specs are built when a run needs them, not at start-up.
@Suite struct LazySubcommandTests {
    /// Which subcommand specs were built, by name.
    final class Built: Sendable {
        let names = Mutex<[String]>([])
        func spec(_ name: String) -> CommandSpec {
            names.withLock { $0.append(name) }
            return CommandSpec(name: name, abstract: "The \(name) command", runner: { _, _ in .success })
        }
    }

    func root(_ built: Built) -> CommandSpec {
        CommandSpec(name: "tool", abstract: "A tool", subcommands: [
            Subcommand("alpha") { built.spec("alpha") },
            Subcommand("bravo") { built.spec("bravo") },
            Subcommand("charlie") { built.spec("charlie") },
        ])
    }

    @Test("parsing a command builds its spec only; the group knows it has subcommands without building any")
    func parsingBuildsThePathOnly() throws {
        let built = Built()
        let root = root(built)
        #expect(root.hasSubcommands)
        #expect(root.subcommandEntries.map(\.name) == ["alpha", "bravo", "charlie"])
        #expect(built.names.withLock { $0 }.isEmpty)
        let parsed = try ArgumentParser.parse(["bravo"], root: root)
        #expect(parsed.commandPath == ["tool", "bravo"])
        #expect(built.names.withLock { $0 } == ["bravo"])
    }

    @Test("help, completions and unknown-command hints see every subcommand")
    func listingBuildsAll() {
        let built = Built()
        let root = root(built)
        #expect(root.visibleSubcommands.map(\.abstract) == ["The alpha command", "The bravo command", "The charlie command"])
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["delta"], root: root) }
        #expect(Set(built.names.withLock { $0 }) == ["alpha", "bravo", "charlie"])
    }
}
