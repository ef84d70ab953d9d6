import ClawpairTestSupport
import Foundation
import Testing

/// README.md and docs/*.md stay true of the build: every `clawpair` command line in their code
/// blocks parses with the CLI's own parser (`clawpair check-args`, which runs nothing), and every
/// repository path they name exists. Lines a `<!-- needs: node -->` comment marks are checked too.
@Suite struct ReadmeTests {
    /// README.md and every page under docs/.
    static func documents() throws -> [(name: String, text: String)] {
        let root = SpecFiles.packageRoot
        var names = ["README.md"]
        let docs = root.appendingPathComponent("docs")
        names += try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try names.map { (name: $0, text: try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func readmeFitsOnePage() throws {
        let readme = try String(contentsOf: SpecFiles.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 250, "README.md has \(lines) lines; detail belongs in docs/")
        #expect(readme.contains("make run") && readme.contains("make test"), "the two set-up commands")
    }

    @Test func everyCommandLineParses() throws {
        var checked = 0
        for document in try Self.documents() {
            for line in CommandLines.extract(from: document.text) {
                let result = try ClawpairBinary.run(["check-args", "--"] + line.arguments)
                #expect(result.status == 0, "\(document.name):\(line.number): \(line.arguments.joined(separator: " "))\n\(result)")
                checked += 1
            }
        }
        #expect(checked >= 20, "only \(checked) command lines found: is the extraction broken?")
    }

    /// The extraction itself: shell words, quotes, comments, pipes, redirections, continuations.
    @Test func extractionReadsShellLines() {
        let text = """
            ```sh
            clawpair discover --first --json | jq -r .url   # a comment
            openclaw qr --setup-code-only | clawpair qr render --format ansi
            clawpair pair - < code.txt
            clawpair devices approve "Peter's iPhone"
            clawpair zone --domain d --ipv4 1.2.3.4 \\
                -o /tmp/z.db
            $ clawpair setup-code decode -
            #    clawpair this is output, not a command
            ```
            ```swift
            clawpair is not a command here
            ```
            """
        let lines = CommandLines.extract(from: text).map(\.arguments)
        #expect(lines == [
            ["discover", "--first", "--json"],
            ["qr", "render", "--format", "ansi"],
            ["pair", "-"],
            ["devices", "approve", "Peter's iPhone"],
            ["zone", "--domain", "d", "--ipv4", "1.2.3.4", "-o", "/tmp/z.db"],
            ["setup-code", "decode", "-"],
        ])
    }

    @Test func everyNamedFileExists() throws {
        let root = SpecFiles.packageRoot
        var checked = 0
        for document in try Self.documents() {
            let base = document.name.split(separator: "/").dropLast().joined(separator: "/")
            for path in NamedPaths.extract(from: document.text) {
                // Markdown links are relative to the page; bare paths to the repository root.
                let relative = path.link && !base.isEmpty ? base + "/" + path.path : path.path
                let exists = FileManager.default.fileExists(atPath: root.appendingPathComponent(relative).path)
                #expect(exists, "\(document.name) names \(path.path), which does not exist")
                checked += 1
            }
        }
        #expect(checked >= 10, "only \(checked) paths found: is the extraction broken?")
    }
}

/// `clawpair` command lines in a Markdown document's code blocks.
enum CommandLines {
    struct Line: Equatable {
        let number: Int
        let arguments: [String]
    }

    /// Languages whose blocks hold shell lines (an unlabelled block counts).
    static let shellLanguages: Set<String> = ["", "sh", "shell", "bash", "console"]

    static func extract(from text: String) -> [Line] {
        var result: [Line] = []
        var inBlock = false
        var shell = false
        var pending = ""
        var pendingStart = 0
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                inBlock.toggle()
                shell = inBlock && shellLanguages.contains(String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces))
                pending = ""
                continue
            }
            guard inBlock, shell else { continue }
            if pending.isEmpty { pendingStart = index + 1 }
            if line.hasSuffix("\\") {
                pending += String(line.dropLast()) + " "
                continue
            }
            var whole = pending + line
            pending = ""
            if whole.hasPrefix("$ ") { whole.removeFirst(2) }
            for segment in segments(of: words(whole)) where segment.first == "clawpair" {
                result.append(Line(number: pendingStart, arguments: Array(segment.dropFirst())))
            }
        }
        return result
    }

    /// A word, or an operator (`|`, `&&`, `||`, `;`, a redirection) marked as one.
    enum Word: Equatable {
        case text(String)
        case pipe
        case redirect
    }

    /// Shell words: single and double quotes, backslash escapes, `#` comments, operators.
    static func words(_ line: String) -> [Word] {
        var words: [Word] = []
        var current = ""
        var started = false
        var quote: Character?
        var chars = Array(line)[...]
        func end() {
            if started { words.append(.text(current)) }
            current = ""
            started = false
        }
        while let char = chars.popFirst() {
            if let open = quote {
                if char == open { quote = nil } else { current.append(char) }
                continue
            }
            switch char {
            case "'", "\"":
                quote = char
                started = true
            case "\\":
                if let next = chars.popFirst() { current.append(next); started = true }
            case " ", "\t":
                end()
            case "#" where !started:
                end()
                return words
            case "|", ";", "&":
                end()
                while let next = chars.first, next == "|" || next == "&" { chars.removeFirst() }
                words.append(.pipe)
            case "<", ">":
                // `2>` and the like: the digit before it belongs to the redirection.
                if started, current.allSatisfy(\.isNumber) { current = ""; started = false }
                end()
                while let next = chars.first, next == ">" || next == "&" { chars.removeFirst() }
                words.append(.redirect)
            default:
                current.append(char)
                started = true
            }
        }
        end()
        return words
    }

    /// The simple commands of a line, their redirections (and targets) removed.
    static func segments(of words: [Word]) -> [[String]] {
        var segments: [[String]] = [[]]
        var skipNext = false
        for word in words {
            switch word {
            case .pipe: segments.append([])
            case .redirect: skipNext = true
            case .text(let text):
                if skipNext { skipNext = false; continue }
                segments[segments.count - 1].append(text)
            }
        }
        return segments.filter { !$0.isEmpty }
    }
}

/// Repository paths a Markdown document names: Markdown link targets, and paths under the
/// repository's top-level directories written in backquotes.
enum NamedPaths {
    struct Path: Equatable {
        let path: String
        let link: Bool
    }

    static let topLevel = ["Sources/", "Tests/", "Examples/", "bench/", "docs/", "Man/", "packaging/", "scripts/",
                           "Fuzz/", "Completions/"]
    static let rootFiles: Set<String> = ["Package.swift", "Makefile", "LICENSE", "README.md"]

    static func extract(from text: String) -> [Path] {
        var paths: [Path] = []
        // Markdown links: [text](target), relative targets only.
        let link = try! NSRegularExpression(pattern: #"\]\(([^)\s#]+)(#[^)]*)?\)"#)
        let ns = text as NSString
        for match in link.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let target = ns.substring(with: match.range(at: 1))
            if target.contains("://") || target.hasPrefix("mailto:") { continue }
            paths.append(Path(path: target, link: true))
        }
        // `code spans` that are, or start with, a repository path; the rows of a table whose header
        // names "Upstream" hold paths in upstream OpenClaw's repository, not this one.
        var ours: [String] = []
        var upstreamTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix("|") { upstreamTable = false } else if line.contains("Upstream") { upstreamTable = true }
            if !upstreamTable { ours.append(String(line)) }
        }
        let kept = ours.joined(separator: "\n") as NSString
        let span = try! NSRegularExpression(pattern: #"`([^`\n]+)`"#)
        for match in span.matches(in: kept as String, range: NSRange(location: 0, length: kept.length)) {
            for word in kept.substring(with: match.range(at: 1)).split(separator: " ") {
                var candidate = String(word)
                while let last = candidate.last, ",.;:)".contains(last) { candidate.removeLast() }
                let isPath = rootFiles.contains(candidate) || topLevel.contains { candidate.hasPrefix($0) }
                // Placeholders and globs name no one file.
                if isPath, !candidate.contains("<"), !candidate.contains("*"), !candidate.contains("{") {
                    paths.append(Path(path: candidate, link: false))
                }
            }
        }
        return paths
    }
}
