import ClawpairTestSupport
import Foundation
import Testing

/// Rules of the public API of the library products, checked on the sources: no two public types
/// share a name (a program importing two products, or the umbrella, would get an ambiguous-type
/// error), and every public declaration has a doc comment.
@Suite struct PublicAPITests {
    /// One Swift file of a library product's target.
    struct SourceFile {
        let module: String
        let path: String  // relative to the package root
        let lines: [String]
    }

    /// The targets of the library products: every `.library` product of Package.swift except the
    /// umbrella (which only re-exports).
    static func libraryTargets() throws -> [String] {
        let manifest = try String(contentsOf: SpecFiles.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\.library\(name: "(\w+)", targets: \["(\w+)"\]\)"#)
        let text = manifest as NSString
        return pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length))
            .map { text.substring(with: $0.range(at: 2)) }
            .filter { $0 != "Clawpair" }
    }

    static func sources() throws -> [SourceFile] {
        var files: [SourceFile] = []
        for module in try libraryTargets() {
            let directory = SpecFiles.packageRoot.appendingPathComponent("Sources/\(module)")
            guard let walker = FileManager.default.enumerator(atPath: directory.path) else { continue }
            for case let file as String in walker where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                files.append(SourceFile(module: module, path: "Sources/\(module)/\(file)",
                                        lines: text.components(separatedBy: "\n")))
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// A line that declares something `public` or `open` (after any attributes), with what it declares.
    static let declaration = try! NSRegularExpression(pattern:
        #"^(\s*)(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:static|class|final|override|mutating|nonmutating|convenience|required|indirect|nonisolated|lazy|dynamic|(?:private|fileprivate|internal)\(set\))\s+)*(func|var|let|init|subscript|struct|class|enum|protocol|actor|typealias|case|associatedtype)\b\s*`?(\w*)"#)

    static func match(_ line: String) -> (indent: Int, kind: String, name: String)? {
        let range = NSRange(line.startIndex..., in: line)
        guard let found = declaration.firstMatch(in: line, range: range) else { return nil }
        func group(_ i: Int) -> String { Range(found.range(at: i), in: line).map { String(line[$0]) } ?? "" }
        return (group(1).count, group(2), group(3))
    }

    @Test("the scanner sees declarations after attributes and modifiers, and no calls of a function named open")
    func scannerSeesDeclarations() {
        #expect(Self.match("public struct GatewayBeacon: Sendable {")?.name == "GatewayBeacon")
        #expect(Self.match("    @discardableResult public static func run() {")?.kind == "func")
        #expect(Self.match("    public private(set) var state: State = .pending")?.kind == "var")
        #expect(Self.match("open class Base {")?.name == "Base")
        #expect(Self.match("    public init(x: Int) {")?.kind == "init")
        #expect(Self.match("            open(temporary, O_WRONLY, mode)") == nil)
        #expect(Self.match("    public extension X {") == nil && Self.match("public import ClawpairCore") == nil)
        #expect(Self.match("    // public var commented: Int") == nil)
    }

    @Test("no two public top-level types of the library products share a name")
    func typeNamesAreUnique() throws {
        var owners: [String: [String]] = [:]
        let files = try Self.sources()
        #expect(files.count > 100, "the scan found the library sources")
        for file in files {
            for (index, line) in file.lines.enumerated() {
                guard let found = Self.match(line), found.indent == 0,
                      ["struct", "class", "enum", "protocol", "actor", "typealias"].contains(found.kind) else { continue }
                owners[found.name, default: []].append("\(file.path):\(index + 1)")
            }
        }
        #expect(owners["GatewayBeacon"]?.count == 1 && owners["GatewayEndpoint"] != nil, "the scan found top-level types")
        for (name, places) in owners.sorted(by: { $0.key < $1.key }) where places.count > 1 {
            Issue.record("public type \(name) is declared \(places.count) times: \(places.joined(separator: ", "))")
        }
    }

    @Test("ClawpairCLIKit is the executable's, not a product; the tool-output parsers are test support, not public")
    func noCommandLineProducts() throws {
        let targets = try Self.libraryTargets()
        #expect(targets.contains("ClawpairBrowse") && !targets.contains("ClawpairCLIKit"))
        let publicTypes = try Self.sources().flatMap { file in
            file.lines.compactMap { Self.match($0) }.filter { $0.indent == 0 }.map(\.name)
        }
        for testOnly in ["DNSSDOutput", "AvahiBrowseOutput", "DigOutput", "QuotedStrings", "ToolCommand", "ToolScan"] {
            #expect(!publicTypes.contains(testOnly), "\(testOnly) is public")
        }
    }

    @Test("the library products' doc comments name no command-line option and no exit status")
    func docsSpeakLibrary() throws {
        var found: [String] = []
        for file in try Self.sources() {
            for (index, line) in file.lines.enumerated() {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("///") else { continue }
                // Upstream's and other programs' command lines are what the library mirrors or runs.
                if text.contains("openclaw ") || text.contains("tailscale ") { continue }
                if text.contains("exit status") || text.range(of: #"(^|[\s`(])--[a-z]"#, options: .regularExpression) != nil {
                    found.append("\(file.path):\(index + 1): \(text)")
                }
            }
        }
        #expect(found.isEmpty, "command-line wording in library docs:\n\(found.joined(separator: "\n"))")
    }

    /// Words of the command line that a library name must not carry (issue #21.5): an option,
    /// argv or an exit status belongs to the CLI, whatever the library is called from.
    static let commandLineWords = try! NSRegularExpression(pattern: #"commandLine|CommandLine|argv|Argv|exitStatus|ExitStatus|exitCode|ExitCode"#)

    /// The name a line declares in a library product: a public declaration's, or an enum case's
    /// (cases of a public enum are public without the keyword).
    static func declaredName(_ line: String) -> String? {
        if let found = match(line) { return found.name }
        let caseName = try! NSRegularExpression(pattern: #"^\s*(?:indirect\s+)?case\s+`?(\w+)"#)
        guard let found = caseName.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
              let range = Range(found.range(at: 1), in: line) else { return nil }
        return String(line[range])
    }

    static func speaksCommandLine(_ name: String) -> Bool {
        commandLineWords.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }

    @Test("the scan sees command-line words in declared names and enum cases, not in uses")
    func commandLineNameScanner() {
        #expect(Self.declaredName("    case commandLineURL").map(Self.speaksCommandLine) == true)
        #expect(Self.declaredName("    public static func fromArgv(_ words: [String]) {").map(Self.speaksCommandLine) == true)
        #expect(Self.declaredName("    public var exitStatus: Int32").map(Self.speaksCommandLine) == true)
        #expect(Self.declaredName("    case explicitURL").map(Self.speaksCommandLine) == false)
        #expect(Self.declaredName("        case .url(let url): source = .commandLineURL") == nil, "a use is no declaration")
        #expect(Self.declaredName("    public var cliPath: String?").map(Self.speaksCommandLine) == false, "a TXT key of upstream's")
    }

    @Test("no public name of the library products is command-line wording (option, argv, exit status)")
    func namesSpeakLibrary() throws {
        var found: [String] = []
        for file in try Self.sources() {
            for (index, line) in file.lines.enumerated() {
                guard let name = Self.declaredName(line), Self.speaksCommandLine(name) else { continue }
                found.append("\(file.path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "command-line wording in library names:\n\(found.joined(separator: "\n"))")
    }

    /// The long options of the clawpair command, from the generated man pages (`\-\-name` in roff).
    static func commandLineOptions() throws -> Set<String> {
        let directory = SpecFiles.packageRoot.appendingPathComponent("Man")
        let pattern = try NSRegularExpression(pattern: #"\\-\\-([a-z][a-z0-9]*(?:\\-[a-z0-9]+)*)"#)
        var options: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".1") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8) as NSString
            for match in pattern.matches(in: text as String, range: NSRange(location: 0, length: text.length)) {
                options.insert(text.substring(with: match.range(at: 1)).replacingOccurrences(of: "\\-", with: "-"))
            }
        }
        return options
    }

    @Test("no raw value of a library enum is an option name of the command line (those are the CLI's to map)")
    func rawValuesAreNoOptionNames() throws {
        let options = try Self.commandLineOptions()
        #expect(options.contains("tls-fingerprint") && options.contains("json"), "the scan found the options")
        // Plain words that are also option names, used in their ordinary sense (DeviceRequestMatch.name:
        // a device matched by its name).
        let words: Set<String> = ["name"]
        let rawValue = try NSRegularExpression(pattern: #"^\s*case\s+\w+\s*=\s*"([^"]*)""#)
        var found: [String] = []
        for file in try Self.sources() {
            for (index, line) in file.lines.enumerated() {
                guard let match = rawValue.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                      let range = Range(match.range(at: 1), in: line) else { continue }
                let value = String(line[range])
                if options.contains(value) && !words.contains(value) {
                    found.append("\(file.path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found.isEmpty, "option names as library raw values:\n\(found.joined(separator: "\n"))")
    }

    @Test("every public or open declaration of a library product has a doc comment (/// or /** */)")
    func everyPublicDeclarationIsDocumented() throws {
        var undocumented: [String] = []
        var seen = 0
        for file in try Self.sources() {
            for (index, line) in file.lines.enumerated() {
                guard Self.match(line) != nil else { continue }
                seen += 1
                var above = index - 1
                while above >= 0, file.lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                let previous = above >= 0 ? file.lines[above].trimmingCharacters(in: .whitespaces) : ""
                if previous.hasPrefix("///") || previous.hasSuffix("*/") { continue }
                undocumented.append("\(file.path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(seen > 1000, "the scan found the public declarations")
        #expect(undocumented.isEmpty, "\(undocumented.count) public declarations have no doc comment:\n\(undocumented.joined(separator: "\n"))")
    }
}
