/// The long man-only sections of one man page, as a text file beside the generated pages
/// (`Man/sections/<page>.txt`): prose the program never prints (`--help` shows the discussion,
/// options and examples, never these), kept out of the executable and written as text.
///
/// The format, for people editing it:
///
///     # JSON OUTPUT
///
///     A paragraph, wrapped at will: its lines are joined with single spaces.
///
///       A preformatted block: every line starts with two spaces,
///       and the lines are kept as they are.
///
/// A line `# TITLE` starts a section; blank lines separate paragraphs; a paragraph whose every
/// line starts with two spaces is preformatted (``DocSection/paragraphs``' own rule). Lines
/// before the first title are not allowed, so a stray edit does not vanish silently.
public struct ManSource: Sendable, Equatable {
    /// One section: its title and paragraphs, in the file's order.
    public struct Section: Sendable, Equatable {
        public let title: String
        public let paragraphs: [String]

        public init(title: String, paragraphs: [String]) {
            self.title = title
            self.paragraphs = paragraphs
        }
    }

    /// The sections, in the file's order.
    public let sections: [Section]

    public init(sections: [Section]) {
        self.sections = sections
    }

    /// Reads a man source (`page` names it in errors).
    public init(parsing text: String, page: String) throws(ManSourceError) {
        var sections: [Section] = []
        var title: String?
        var paragraphs: [String] = []
        var block: [Substring] = []
        func endBlock() {
            guard !block.isEmpty else { return }
            let preformatted = block.allSatisfy { $0.hasPrefix("  ") }
            paragraphs.append(block.joined(separator: preformatted ? "\n" : " "))
            block.removeAll()
        }
        func endSection() {
            endBlock()
            if let title { sections.append(Section(title: title, paragraphs: paragraphs)) }
            paragraphs.removeAll()
        }
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("# ") {
                endSection()
                let name = String(line.dropFirst(2))
                guard !name.isEmpty, !sections.contains(where: { $0.title == name }) else {
                    throw .malformed(page: page, line: index + 1, problem: name.isEmpty ? "an empty title" : "a second '\(name)'")
                }
                title = name
            } else if line.allSatisfy({ $0 == " " }) {
                endBlock()
            } else {
                guard title != nil else {
                    throw .malformed(page: page, line: index + 1, problem: "text before the first '# TITLE' line")
                }
                block.append(line)
            }
        }
        endSection()
        self.sections = sections
    }

    /// The paragraphs of the section called `title`, or nil.
    public func paragraphs(of title: String) -> [String]? {
        sections.first { $0.title == title }?.paragraphs
    }

    /// The text form: what ``init(parsing:page:)`` reads back, with prose wrapped at `width`
    /// columns (between words; a word longer than that stays whole).
    public func text(width: Int = 100) -> String {
        var out: [String] = []
        for (index, section) in sections.enumerated() {
            if index > 0 { out.append("") }
            out.append("# " + section.title)
            for paragraph in section.paragraphs {
                out.append("")
                if paragraph.split(separator: "\n", omittingEmptySubsequences: false).allSatisfy({ $0.hasPrefix("  ") }) {
                    out.append(paragraph)
                    continue
                }
                var line = ""
                for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                    if line.isEmpty {
                        line = String(word)
                    } else if line.count + 1 + word.count <= width {
                        line += " " + word
                    } else {
                        out.append(line)
                        line = String(word)
                    }
                }
                out.append(line)
            }
        }
        return out.joined(separator: "\n") + "\n"
    }
}

/// Why a man source cannot be used; ``DocsWriter`` fails with it, so a stale or broken source
/// never yields a page with a section missing.
public enum ManSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The page declares `title` as kept in its man source, and the source has no such section
    /// (or there is no source file).
    case missingSection(page: String, title: String)
    /// The source has a section its page does not declare.
    case undeclaredSection(page: String, title: String)
    /// The source cannot be read as the format says (the 1-based line and what is wrong there).
    case malformed(page: String, line: Int, problem: String)

    public var description: String {
        switch self {
        case let .missingSection(page, title):
            return "Man/sections/\(page).txt has no '# \(title)' section, which \(page)(1) declares"
        case let .undeclaredSection(page, title):
            return "Man/sections/\(page).txt has a '# \(title)' section that \(page)(1) does not declare"
        case let .malformed(page, line, problem):
            return "Man/sections/\(page).txt line \(line): \(problem)"
        }
    }
}
