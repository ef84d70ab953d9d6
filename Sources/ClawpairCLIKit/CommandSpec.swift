import ClawpairCore

// How to add a subcommand:
//  1. Create `Sources/clawpair/Commands/<Name>Command.swift` with a type conforming to
//     `ParsableCommand`: a static `spec` (name, abstract, discussion, options with help text,
//     value names and completion kinds, arguments, examples) plus `init(parsing:context:)`
//     (validation; throw `UsageError`) and `run(_:)`.
//  2. Add it to the parent's `subcommands`: `Subcommand("name") { NameCommand.spec }`.
//  3. `make docs` regenerates Man/ and Completions/; commit them (a test diffs them).

/// How a shell should complete an option's value or an argument.
public enum CompletionKind: Sendable, Equatable {
    /// Nothing to suggest.
    case none
    /// File names.
    case file
    /// Directory names.
    case directory
    /// A fixed set of words.
    case values([String])
    /// Host names.
    case hostname
    /// The lines the program itself prints when run with these arguments, at completion time
    /// (e.g. `["list-names", "gateways"]` for the paired gateways' names).
    case program([String])
}

/// One option of a command: a flag, an option taking a value, or a repeatable value option.
public struct OptionSpec: Sendable {
    /// Whether the option takes a value, and whether it may repeat.
    public enum Arity: Sendable, Equatable {
        /// A boolean switch: `--json`.
        case flag
        /// Takes one value: `--timeout MS`, given at most once.
        case value
        /// Takes one value each time and may be given many times: `--url URL --url URL`.
        case repeated
        /// A flag that counts how often it was given: `-v -v`.
        case counted
    }

    /// The long name, without the leading `--`.
    public let long: String
    /// The one-letter name, without `-`.
    public let short: Character?
    public let arity: Arity
    /// The value placeholder in help and man pages, e.g. `URL`.
    public let valueName: String
    /// One or two sentences shown in `--help`, the man page and completions.
    public let help: String
    public let completion: CompletionKind
    /// Hidden options are accepted but not documented.
    public let isHidden: Bool

    public init(long: String, short: Character? = nil, arity: Arity, valueName: String = "",
                help: String, completion: CompletionKind = .none, isHidden: Bool = false) {
        precondition(!long.isEmpty && !long.hasPrefix("-"), "option names are given without dashes")
        precondition(arity == .flag || arity == .counted || !valueName.isEmpty, "value options need a value name")
        self.long = long
        self.short = short
        self.arity = arity
        self.valueName = valueName
        self.help = help
        self.completion = completion
        self.isHidden = isHidden
    }

    /// A boolean switch.
    public static func flag(_ long: String, short: Character? = nil, help: String, hidden: Bool = false) -> OptionSpec {
        OptionSpec(long: long, short: short, arity: .flag, help: help, isHidden: hidden)
    }

    /// An option that takes one value.
    public static func value(_ long: String, short: Character? = nil, _ valueName: String, help: String,
                             completion: CompletionKind = .none, hidden: Bool = false) -> OptionSpec {
        OptionSpec(long: long, short: short, arity: .value, valueName: valueName, help: help,
                   completion: completion, isHidden: hidden)
    }

    /// An option that takes a value and may be given several times.
    public static func repeated(_ long: String, short: Character? = nil, _ valueName: String, help: String,
                                completion: CompletionKind = .none) -> OptionSpec {
        OptionSpec(long: long, short: short, arity: .repeated, valueName: valueName, help: help, completion: completion)
    }

    /// `--long`, or `-s, --long` when there is a short name, followed by the value placeholder.
    public var synopsis: String {
        var text = short.map { "-\($0), --\(long)" } ?? "--\(long)"
        if takesValue { text += " <\(valueName.lowercased())>" }
        return text
    }

    /// Whether the option consumes a value.
    public var takesValue: Bool { arity == .value || arity == .repeated }
}

/// One positional argument.
public struct ArgumentSpec: Sendable {
    /// The placeholder, e.g. `input`.
    public let name: String
    public let help: String
    public let isOptional: Bool
    /// Takes all remaining positionals.
    public let isRepeated: Bool
    public let completion: CompletionKind

    public init(_ name: String, help: String, optional: Bool = false, repeated: Bool = false,
                completion: CompletionKind = .none) {
        self.name = name
        self.help = help
        self.isOptional = optional
        self.isRepeated = repeated
        self.completion = completion
    }

    /// `<name>`, `[<name>]`, `<name>...` as in usage lines.
    public var synopsis: String {
        var text = "<\(name)>"
        if isRepeated { text += "..." }
        return isOptional ? "[\(text)]" : text
    }
}

/// A titled block of prose in the man page (e.g. JSON OUTPUT, ENVIRONMENT). `--help` never shows
/// these; only the generated man pages do.
public struct DocSection: Sendable {
    public let title: String
    /// Paragraphs. A paragraph whose lines start with two spaces is preformatted.
    public let paragraphs: [String]
    /// Whether the paragraphs are written in the page's man source (``ManSource``, read by
    /// ``DocsWriter`` when it generates the pages) instead of here; then ``paragraphs`` is empty
    /// until ``CommandSpec/resolvingManSources(path:_:)`` fills it in.
    public let isInManSource: Bool

    public init(_ title: String, _ paragraphs: [String]) {
        self.title = title
        self.paragraphs = paragraphs
        self.isInManSource = false
    }

    private init(title: String, paragraphs: [String], isInManSource: Bool) {
        self.title = title
        self.paragraphs = paragraphs
        self.isInManSource = isInManSource
    }

    /// A man page section whose prose is kept in the page's man source file
    /// (`Man/sections/<page>.txt`, see ``ManSource``): long man-only text (JSON schemas, formats,
    /// set-up guides) that the program itself never prints.
    public static func inManSource(_ title: String) -> DocSection {
        DocSection(title: title, paragraphs: [], isInManSource: true)
    }

    /// This section with `paragraphs` from a man source.
    func filled(_ paragraphs: [String]) -> DocSection {
        DocSection(title: title, paragraphs: paragraphs, isInManSource: true)
    }
}

/// An example invocation with what it does.
public struct Example: Sendable {
    public let command: String
    public let comment: String
    public init(_ command: String, _ comment: String) {
        self.command = command
        self.comment = comment
    }
}

/// Runs a parsed command.
public typealias CommandRunner = @Sendable (ParsedArguments, CommandContext) throws -> ExitStatus

/// A subcommand as its parent lists it: its name at once, its spec when first needed.
///
/// Building a spec (help text, options, sections) costs start-up time, and a run needs only the
/// specs on its command's path: `clawpair discover` builds the root's and discover's, not the
/// other thirteen. Help, man pages and completions, which list every subcommand, build them all.
public struct Subcommand: Sendable {
    /// The name the command line uses; must be the spec's own ``CommandSpec/name``.
    public let name: String
    private let make: @Sendable () -> CommandSpec

    /// A subcommand whose spec `make` returns (typically a command type's `static let spec`,
    /// which Swift builds once, on first access).
    public init(_ name: String, _ make: @escaping @Sendable () -> CommandSpec) {
        self.name = name
        self.make = make
    }

    /// A subcommand whose spec is built already.
    public init(_ spec: CommandSpec) {
        name = spec.name
        make = { spec }
    }

    /// The subcommand's spec (its name checked against ``name``).
    public var spec: CommandSpec {
        let spec = make()
        precondition(spec.name == name, "subcommand '\(name)' declares the spec of '\(spec.name)'")
        return spec
    }
}

/// A command declared as data: the single source of `--help`, man pages, completions and parsing.
public struct CommandSpec: Sendable {
    public let name: String
    /// One line, no trailing period; shown in command lists and the man page NAME section.
    public let abstract: String
    /// Paragraphs shown after the usage line in `--help` and as the man page DESCRIPTION.
    public let discussion: [String]
    public let options: [OptionSpec]
    public let arguments: [ArgumentSpec]
    /// The subcommands as declared, their specs built on first use.
    public let subcommandEntries: [Subcommand]
    /// Every subcommand's spec (building those not built yet).
    public var subcommands: [CommandSpec] { subcommandEntries.map(\.spec) }
    /// Whether this command has subcommands (a group), without building their specs.
    public var hasSubcommands: Bool { !subcommandEntries.isEmpty }
    public let examples: [Example]
    public let sections: [DocSection]
    public let isHidden: Bool
    /// Nil for a group, whose job is to hold subcommands.
    public let runner: CommandRunner?

    public init(name: String, abstract: String, discussion: [String] = [], options: [OptionSpec] = [],
                arguments: [ArgumentSpec] = [], subcommands: [CommandSpec] = [], examples: [Example] = [],
                sections: [DocSection] = [], hidden: Bool = false, runner: CommandRunner? = nil) {
        self.init(name: name, abstract: abstract, discussion: discussion, options: options, arguments: arguments,
                  subcommands: subcommands.map(Subcommand.init), examples: examples, sections: sections,
                  hidden: hidden, runner: runner)
    }

    /// A spec whose subcommands' specs are built when first needed (see ``Subcommand``).
    public init(name: String, abstract: String, discussion: [String] = [], options: [OptionSpec] = [],
                arguments: [ArgumentSpec] = [], subcommands: [Subcommand], examples: [Example] = [],
                sections: [DocSection] = [], hidden: Bool = false, runner: CommandRunner? = nil) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
        self.subcommandEntries = subcommands
        self.examples = examples
        self.sections = sections
        self.isHidden = hidden
        self.runner = runner
    }

    /// The direct subcommand called `name`.
    public func subcommand(named name: String) -> CommandSpec? {
        subcommandEntries.first { $0.name == name }?.spec
    }

    /// Subcommands shown in help, man pages and completions.
    public var visibleSubcommands: [CommandSpec] { subcommands.filter { !$0.isHidden } }

    /// Options shown in help, man pages and completions.
    public var visibleOptions: [OptionSpec] { options.filter { !$0.isHidden } }

    /// This spec and its visible subcommands with every ``DocSection/inManSource(_:)`` section
    /// filled in from the man source of its page: `source` is called with the page name
    /// (``ManPageGenerator/pageName(_:)``) of each page that has such sections. Throws
    /// ``ManSourceError`` when a section is missing from its source, or a source names a section
    /// the page does not declare.
    public func resolvingManSources(path: [String], _ source: (String) throws -> ManSource) throws -> CommandSpec {
        var resolved = sections
        if sections.contains(where: \.isInManSource) {
            let page = ManPageGenerator.pageName(path)
            let text = try source(page)
            let declared = Set(sections.filter(\.isInManSource).map(\.title))
            if let extra = text.sections.first(where: { !declared.contains($0.title) }) {
                throw ManSourceError.undeclaredSection(page: page, title: extra.title)
            }
            resolved = try sections.map { section in
                guard section.isInManSource else { return section }
                guard let paragraphs = text.paragraphs(of: section.title) else {
                    throw ManSourceError.missingSection(page: page, title: section.title)
                }
                return section.filled(paragraphs)
            }
        }
        let children = try subcommands.map { sub in
            sub.isHidden ? sub : try sub.resolvingManSources(path: path + [sub.name], source)
        }
        return CommandSpec(name: name, abstract: abstract, discussion: discussion, options: options, arguments: arguments,
                           subcommands: children, examples: examples, sections: resolved, hidden: isHidden, runner: runner)
    }
}

/// A command implemented as a type: a static spec, validation in `init`, and `run`.
public protocol ParsableCommand: SendableMetatype {
    /// The command's declaration.
    static var spec: CommandSpec { get }
    /// Validates the parsed arguments (throw ``UsageError`` for command-line mistakes).
    init(parsing arguments: ParsedArguments, context: CommandContext) throws
    /// Does the work and says how the process should end.
    func run(_ context: CommandContext) throws -> ExitStatus
}

extension ParsableCommand {
    /// A runner that validates then runs this command; for `CommandSpec(runner:)`.
    public static var runner: CommandRunner {
        { arguments, context in try Self(parsing: arguments, context: context).run(context) }
    }
}
