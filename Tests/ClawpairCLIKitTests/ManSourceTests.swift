@testable import ClawpairCLIKit
import Testing

/// Man sources (`Man/sections/<page>.txt`): the text format, its round trip, and how a spec's
/// `inManSource` sections are filled in, or fail, when the pages are generated.
@Suite struct ManSourceTests {
    static let text = """
        # JSON OUTPUT

        With --json, one object is printed on stdout, also on failure.
        Lines of a paragraph are joined with single spaces.

          {
            "ok": true
          }

        # FORMATS

        utf8: half blocks.

        """

    @Test func readsSectionsParagraphsAndPreformattedBlocks() throws {
        let source = try ManSource(parsing: Self.text, page: "clawpair-x")
        #expect(source.sections.map(\.title) == ["JSON OUTPUT", "FORMATS"])
        #expect(source.paragraphs(of: "JSON OUTPUT") == [
            "With --json, one object is printed on stdout, also on failure. Lines of a paragraph are joined with single spaces.",
            "  {\n    \"ok\": true\n  }",
        ])
        #expect(source.paragraphs(of: "FORMATS") == ["utf8: half blocks."])
        #expect(source.paragraphs(of: "EXAMPLES") == nil)
    }

    @Test func textReadsBackAsTheSameSections() throws {
        let long = String(repeating: "word ", count: 60) + "end."
        let source = ManSource(sections: [
            .init(title: "A", paragraphs: [long, "  kept  as\n  it is"]),
            .init(title: "B", paragraphs: ["short", "x" + String(repeating: "y", count: 150)]),
        ])
        let text = source.text(width: 40)
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 40 || !$0.contains(" ") })
        #expect(try ManSource(parsing: text, page: "p") == source)
    }

    @Test func refusesTextBeforeATitleAndRepeatedTitles() {
        #expect(throws: ManSourceError.malformed(page: "p", line: 1, problem: "text before the first '# TITLE' line")) {
            try ManSource(parsing: "stray\n# A\ntext\n", page: "p")
        }
        #expect(throws: ManSourceError.malformed(page: "p", line: 3, problem: "a second 'A'")) {
            try ManSource(parsing: "# A\n\n# A\n", page: "p")
        }
        #expect(throws: ManSourceError.malformed(page: "p", line: 1, problem: "an empty title")) {
            try ManSource(parsing: "# \n", page: "p")
        }
    }

    static func spec(_ sections: [DocSection], sub: [CommandSpec] = []) -> CommandSpec {
        CommandSpec(name: "tool", abstract: "A tool", subcommands: sub, sections: sections)
    }

    @Test func fillsDeclaredSectionsInTheirOrderAndLeavesOthers() throws {
        let child = CommandSpec(name: "sub", abstract: "Sub", sections: [.inManSource("FORMATS"), DocSection("NOTES", ["in code"])])
        let hidden = CommandSpec(name: "secret", abstract: "Hidden", sections: [.inManSource("NEVER")], hidden: true)
        var asked: [String] = []
        let resolved = try Self.spec([], sub: [child, hidden]).resolvingManSources(path: ["tool"]) { page in
            asked.append(page)
            return try ManSource(parsing: "# FORMATS\n\nutf8: half blocks.\n", page: page)
        }
        #expect(asked == ["tool-sub"])
        let sections = try #require(resolved.subcommand(named: "sub")?.sections)
        #expect(sections.map(\.title) == ["FORMATS", "NOTES"])
        #expect(sections[0].paragraphs == ["utf8: half blocks."] && sections[0].isInManSource)
        #expect(sections[1].paragraphs == ["in code"] && !sections[1].isInManSource)
        #expect(resolved.subcommand(named: "secret")?.sections.first?.paragraphs == [])
    }

    @Test func aMissingOrUndeclaredSectionFailsTheGeneration() {
        let spec = Self.spec([.inManSource("FORMATS")])
        #expect(throws: ManSourceError.missingSection(page: "tool", title: "FORMATS")) {
            try spec.resolvingManSources(path: ["tool"]) { _ in ManSource(sections: []) }
        }
        #expect(throws: ManSourceError.undeclaredSection(page: "tool", title: "JSON OUTPUT")) {
            try spec.resolvingManSources(path: ["tool"]) { page in try ManSource(parsing: Self.text, page: page) }
        }
        #expect(ManSourceError.missingSection(page: "tool", title: "FORMATS").description
                == "Man/sections/tool.txt has no '# FORMATS' section, which tool(1) declares")
    }
}
