import ClawpairTestSupport
import Foundation
import Testing

/// Every command's `--help` fits a terminal, and what it refers to exists where it is read.
@Suite struct HelpTextTests {
    /// Every visible command path, read from the COMMANDS lists of the help pages themselves.
    static func commandPaths() throws -> [[String]] {
        var paths: [[String]] = []
        func visit(_ path: [String]) throws {
            paths.append(path)
            let help = try ClawpairBinary.run(path + ["--help"]).stdout
            var inCommands = false
            for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
                if line == "COMMANDS:" { inCommands = true; continue }
                if inCommands {
                    guard line.hasPrefix("  "), !line.hasPrefix("   ") else {
                        if line.isEmpty || !line.hasPrefix(" ") { inCommands = false }
                        continue
                    }
                    guard let name = line.split(separator: " ").first, name != "See" else { continue }
                    try visit(path + [String(name)])
                }
            }
        }
        try visit([])
        return paths
    }

    @Test func everyHelpFitsATerminal() throws {
        let paths = try Self.commandPaths()
        #expect(paths.count > 30, "only \(paths.count) commands found: \(paths)")
        for path in paths {
            let result = try ClawpairBinary.run(path + ["--help"])
            #expect(result.status == 0, "\(path): \(result)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            #expect(lines <= 70, "'clawpair \(path.joined(separator: " ")) --help' has \(lines) lines (at most 70): move long explanations to its man page's sections (Man/sections) and docs/")
        }
    }

    /// A help page that says "see SECTION" names a section only a man page has, so it must say
    /// which man page ("in 'man clawpair-x'", "clawpair-x(1)", "this command's man page").
    @Test func sectionReferencesNameTheirManPage() throws {
        let reference = try NSRegularExpression(pattern: #"see ([A-Z][A-Z -]{2,}[A-Z])\b(?! *[a-z0-9])|([A-Z][A-Z -]{2,}[A-Z]) section"#)
        for path in try Self.commandPaths() {
            let help = try ClawpairBinary.run(path + ["--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
                .replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression)
            let ns = help as NSString
            for match in reference.matches(in: help, range: NSRange(location: 0, length: ns.length)) {
                let section = ns.substring(with: match.range(at: match.range(at: 1).location != NSNotFound ? 1 : 2))
                if ["USAGE", "OPTIONS", "GLOBAL OPTIONS", "COMMANDS", "EXAMPLES", "ARGUMENTS", "JSON", "URL", "TLS", "SHA"]
                    .contains(section) { continue }
                let after = ns.substring(from: match.range.location + match.range.length).prefix(60)
                #expect(after.contains("man") || after.contains("(1)"),
                        "'clawpair \(path.joined(separator: " ")) --help' refers to \(section) without naming the man page that has it")
            }
        }
    }
}
