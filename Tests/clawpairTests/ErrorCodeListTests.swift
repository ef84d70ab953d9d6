import ClawpairTestSupport
import Foundation
import Testing

/// The `--json` error codes scripts match on are all documented: every kebab-case literal a
/// library error's `code` property returns (found in Sources/) is listed in clawpair(1)'s JSON
/// OUTPUT, and every probe route outcome in clawpair-probe(1)'s REASONS. A new error case whose
/// code is missing from the list fails here, not in a user's script.
@Suite("error codes: every code in the sources is in the man pages")
struct ErrorCodeListTests {
    /// The bodies of every `var code: String { … }` under Sources/, by file.
    static func codeBodies() throws -> [(file: String, body: String)] {
        let sources = SpecFiles.packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") } ?? []
        var bodies: [(String, String)] = []
        for file in files {
            let text = Array(try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8))
            let marker = Array("var code: String {")
            var index = 0
            while index + marker.count <= text.count {
                guard Array(text[index..<index + marker.count]) == marker else { index += 1; continue }
                var end = index + marker.count, depth = 1
                while end < text.count && depth > 0 {
                    if text[end] == "{" { depth += 1 } else if text[end] == "}" { depth -= 1 }
                    end += 1
                }
                bodies.append((file, String(text[(index + marker.count)..<end])))
                index = end
            }
        }
        return bodies
    }

    /// Kebab-case string literals in `text`.
    static func literals(_ text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "\"([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\"")
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } })
    }

    /// Kebab-case words of a man page (roff hyphens `\-` read as `-`).
    static func words(ofPage page: String) throws -> Set<String> {
        let text = try String(contentsOf: SpecFiles.packageRoot.appendingPathComponent("Man/\(page)"), encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-")
        let pattern = try NSRegularExpression(pattern: "[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
        return Set(pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
            .compactMap { Range($0.range, in: text).map { String(text[$0]) } })
    }

    @Test("library error codes are in clawpair(1), probe outcomes in clawpair-probe(1)")
    func everyCodeIsDocumented() throws {
        let bodies = try Self.codeBodies()
        #expect(bodies.count >= 15, "the scan found the code properties: \(bodies.map(\.file))")
        let general = try Self.words(ofPage: "clawpair.1"), probe = try Self.words(ofPage: "clawpair-probe.1")
        for (file, body) in bodies {
            let documented = file.hasPrefix("ClawpairProbe/") ? probe : general
            for code in Self.literals(body).sorted() {
                #expect(documented.contains(code), "\(code) (\(file)) is not listed in its man page")
            }
        }
    }
}
