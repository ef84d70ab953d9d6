import Foundation

/// A systemd unit file read the way systemd reads the parts the tests use: `[Section]` headers,
/// `Key=Value` lines (later ones add to earlier ones), `#`/`;` comments, and the specifiers
/// `%i`, `%u`, `%h` and `%%` expanded for a given instance. Tests run its `ExecStart` and
/// `ExecReload` themselves: systemd is not PID 1 in the test environment.
public struct SystemdUnit: Sendable {
    /// The file it was read from.
    public let path: String
    private let entries: [(section: String, key: String, value: String)]

    public init(path: String) throws {
        self.path = path
        var section = ""
        var entries: [(String, String, String)] = []
        for raw in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let eq = line.firstIndex(of: "=") else { throw TestError("\(path): not Key=Value: \(line)") }
            entries.append((section, line[..<eq].trimmingCharacters(in: .whitespaces),
                            line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)))
        }
        self.entries = entries
    }

    /// Every value of `key` in `section`, in order.
    public func values(_ section: String, _ key: String) -> [String] {
        entries.filter { $0.section == section && $0.key == key }.map(\.value)
    }

    /// The single value of `key` in `section`, or nil.
    public func value(_ section: String, _ key: String) -> String? { values(section, key).last }

    /// A command line of the unit (`ExecStart`, `ExecReload`) split into words, with specifiers
    /// expanded (`%i` → `instance`, `%u` → `user`, `%h` → `home`) and `$MAINPID` → `mainPID`.
    /// Only the simple form the clawpair units use is supported (no quotes, no `-`/`@` prefixes).
    public func command(_ key: String, instance: String = "", user: String = "root", home: String = "/root",
                        mainPID: Int32? = nil) throws -> [String] {
        guard let line = value("Service", key) else { throw TestError("\(path): no \(key)") }
        return line.split(separator: " ").map { word in
            var text = String(word)
                .replacingOccurrences(of: "%%", with: "\u{0}")
                .replacingOccurrences(of: "%i", with: instance)
                .replacingOccurrences(of: "%u", with: user)
                .replacingOccurrences(of: "%h", with: home)
                .replacingOccurrences(of: "\u{0}", with: "%")
            if let mainPID { text = text.replacingOccurrences(of: "$MAINPID", with: String(mainPID)) }
            return text
        }
    }
}
