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
        let pattern = try! NSRegularExpression(pattern: #"\.(?:target|executableTarget)\(\s*name: "((?:Clawpair\w*)|clawpair)"(?:,\s*dependencies: \[([^\]]*)\])?"#)
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

/// A shim that loads its C library with dlopen cannot depend on the library's `.systemLibrary`
/// target (SwiftPM would link the library, which the lazy loading exists to avoid), so it names
/// the Debian `-dev` package itself when the library's headers are missing: the same package
/// the system-library target's apt provider names, instead of a bare "file not found".
@Suite struct ShimHeaderHintTests {
    /// (shim header, the library header it guards, the system-library target, its Debian package)
    static let guarded = [
        ("COpenSSLShims/include/COpenSSLShims.h", "openssl/ssl.h", "COpenSSL", "libssl-dev"),
        ("CAvahiClientShims/include/CAvahiClientShims.h", "avahi-client/client.h", "CAvahiClient", "libavahi-client-dev"),
        ("CImageShims/include/CImageShimsZBar.h", "zbar.h", "CZBar", "libzbar-dev"),
    ]

    @Test("each dlopen'ed library's shim header stops at a missing header with its Debian package, as Package.swift names it")
    func missingHeaderNamesThePackage() throws {
        let manifest = PackageLayeringTests.manifest
        for (header, libraryHeader, target, package) in Self.guarded {
            #expect(manifest.contains(#"systemLibrary("\#(target)", "#) && manifest.contains(#"apt: ["\#(package)"]"#),
                    "\(target) names \(package) in Package.swift")
            let text = try String(contentsOf: SpecFiles.packageRoot.appendingPathComponent("Sources/\(header)"), encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            let guardLine = lines.firstIndex(of: "#if !__has_include(<\(libraryHeader)>)")
            let firstInclude = lines.firstIndex { line in
                line.hasPrefix("#include <") && !["stddef.h", "stdint.h", "stdio.h"].contains { line.contains($0) }
            }
            #expect(guardLine != nil && firstInclude != nil && guardLine! < firstInclude!, "\(header): the guard comes before the library's headers")
            if let guardLine {
                #expect(lines[guardLine + 1].hasPrefix("#error ") && lines[guardLine + 1].contains(package), "\(header): #error names \(package)")
            }
            let shim = String(header.prefix { $0 != "/" })
            let declaration = manifest.split(separator: "\n").first { $0.contains(#".target(name: "\#(shim)""#) }
            #expect(declaration != nil && declaration?.contains(#""\#(target)""#) == false, "\(shim) must not depend on (and link) \(target)")
        }
    }
}
