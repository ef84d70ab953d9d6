import ClawpairTestSupport
import Foundation
import Testing

/// Package.swift's layering comment is true: every library and the executable lists exactly the
/// targets it is declared to depend on, each of those is listed further down (dependencies point
/// down), and no source file imports a target its own target does not declare.
@Suite struct PackageLayeringTests {
    static let manifest = (try? String(contentsOf: SpecFiles.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""

    /// The comment's entries in order: target name → the targets after its "uses".
    static func commented() -> [(name: String, uses: Set<String>)] {
        var entries: [(name: String, uses: Set<String>)] = []
        var usesText: String?
        func flush() {
            if let text = usesText, !entries.isEmpty {
                let names = text == "nothing" ? [] : text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                entries[entries.count - 1].uses = Set(names.filter { !$0.isEmpty })
            }
            usesText = nil
        }
        for line in manifest.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            guard line.hasPrefix("//") else { break }
            if line.hasPrefix("// C targets") { break }
            let body = line.dropFirst(2)
            if body.hasPrefix("   "), !body.hasPrefix("    "), let name = body.split(separator: " ").first,
               name.hasPrefix("Clawpair") || name == "clawpair" {
                flush()
                entries.append((String(name), []))
            } else if let range = body.range(of: "uses ") , body[..<range.lowerBound].allSatisfy({ $0 == " " }) {
                flush()
                usesText = String(body[range.upperBound...])
            } else if usesText != nil {
                usesText! += " " + body.trimmingCharacters(in: .whitespaces)
            }
        }
        flush()
        return entries
    }

    /// The declared dependencies of each library target and of the executable.
    static func declared() -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        let pattern = try! NSRegularExpression(pattern: #"\.(?:target|executableTarget)\(\s*name: "((?:Clawpair\w+)|clawpair)"(?:,\s*dependencies: \[([^\]]*)\])?"#)
        let text = manifest as NSString
        for match in pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length)) {
            let name = text.substring(with: match.range(at: 1))
            if name.hasSuffix("TestSupport") { continue }  // a test target's helper, not a layer
            var deps: Set<String> = []
            if match.range(at: 2).location != NSNotFound {
                deps = Set(text.substring(with: match.range(at: 2)).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }.filter { !$0.isEmpty })
            }
            result[name] = deps
        }
        return result
    }

    @Test("every library and the executable is in the comment with exactly its declared dependencies, each listed below it")
    func commentMatchesTargets() {
        let entries = Self.commented()
        let declared = Self.declared()
        #expect(!declared.isEmpty && declared["ClawpairTestSupport"] == nil)
        #expect(Set(entries.map(\.name)) == Set(declared.keys), "targets missing from the comment or listed but not declared")
        for (index, entry) in entries.enumerated() {
            #expect(entry.uses == declared[entry.name], "\(entry.name): the comment says \(entry.uses.sorted()), Package.swift \(declared[entry.name]?.sorted() ?? [])")
            let below = Set(entries[(index + 1)...].map(\.name))
            for used in entry.uses where used.hasPrefix("Clawpair") {
                #expect(below.contains(used), "\(entry.name) uses \(used), which is not listed below it")
            }
        }
    }

    @Test("no source file imports a clawpair target its own target does not declare")
    func importsAreDeclared() throws {
        let declared = Self.declared()
        let sources = SpecFiles.packageRoot.appendingPathComponent("Sources")
        for (target, deps) in declared {
            let directory = sources.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: directory.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    guard let index = words.firstIndex(of: "import"), index <= 1, index + 1 < words.count else { continue }
                    let module = String(words[index + 1])
                    guard declared[module] != nil || module.hasPrefix("C") && !module.hasPrefix("Clawpair") && module != "C" else { continue }
                    guard module.hasPrefix("Clawpair") || module.hasPrefix("C") else { continue }
                    #expect(deps.contains(module), "\(target)/\(file) imports \(module), which \(target) does not declare")
                }
            }
        }
    }
}
