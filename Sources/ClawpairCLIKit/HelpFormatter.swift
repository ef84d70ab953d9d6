import ClawpairCore

/// Renders `--help` text from a command's spec.
public enum HelpFormatter {
    /// The width help text is wrapped to.
    public static let width = 80
    static let labelColumn = 28

    /// The usage line: `clawpair setup-code decode [<options>] [<input>]`.
    public static func usage(path: [String], spec: CommandSpec) -> String {
        var parts = [path.joined(separator: " ")]
        if !spec.visibleSubcommands.isEmpty && spec.runner == nil {
            parts.append("<command>")
        } else {
            parts.append("[<options>]")
            parts += spec.arguments.map(\.synopsis)
            // A group that also runs on its own (`clawpair qr`) takes either form.
            if !spec.visibleSubcommands.isEmpty { parts.append("| \(path.joined(separator: " ")) <command>") }
        }
        return parts.joined(separator: " ")
    }

    /// The whole help page for the command at `path`.
    public static func help(path: [String], spec: CommandSpec, style: TextStyle = TextStyle(enabled: false)) -> String {
        var out = "\(style.bold("USAGE:")) \(usage(path: path, spec: spec))\n\n"
        out += wrap(spec.abstract + ".", indent: 0) + "\n"
        for paragraph in spec.discussion {
            out += "\n" + render(paragraph: paragraph, indent: 0) + "\n"
        }
        if !spec.arguments.isEmpty {
            out += "\n\(style.bold("ARGUMENTS:"))\n"
            for argument in spec.arguments { out += row("<\(argument.name)>", argument.help) }
        }
        if !spec.visibleOptions.isEmpty {
            out += "\n\(style.bold("OPTIONS:"))\n"
            for option in spec.visibleOptions { out += row(option.synopsis, option.help) }
        }
        out += "\n\(style.bold("GLOBAL OPTIONS:"))\n"
        if path.count > 1 {
            // Below the top level the global options are one line each command shares (help fits a terminal);
            // the top-level help, and every man page, explain them.
            let names = GlobalOptions.specs.map { option in option.short.map { "-\($0)/--\(option.long)" } ?? "--\(option.long)" }
            out += wrap(names.joined(separator: ", ") + " (see '\(path[0]) --help')", indent: 2) + "\n"
        } else {
            for option in GlobalOptions.specs { out += row(option.synopsis, option.help) }
        }
        if !spec.visibleSubcommands.isEmpty {
            out += "\n\(style.bold("COMMANDS:"))\n"
            for sub in spec.visibleSubcommands { out += row(sub.name, sub.abstract) }
            out += "\n  See '\(path.joined(separator: " ")) <command> --help' for more about a command.\n"
        }
        if !spec.examples.isEmpty {
            out += "\n\(style.bold("EXAMPLES:"))\n"
            for example in spec.examples {
                out += wrap("# " + example.comment, indent: 2) + "\n  $ \(example.command)\n"
            }
        }
        return out
    }

    /// A two-column row: label, then wrapped help text (on the next line when the label is long).
    static func row(_ label: String, _ help: String) -> String {
        let lead = "  " + label
        let body = wrap(help, indent: labelColumn)
        if lead.count + 2 <= labelColumn {
            let padded = lead + String(repeating: " ", count: labelColumn - lead.count)
            return padded + body.dropFirst(labelColumn) + "\n"
        }
        return lead + "\n" + body + "\n"
    }

    /// A paragraph: preformatted (lines start with two spaces) or wrapped.
    static func render(paragraph: String, indent: Int) -> String {
        if paragraph.hasPrefix("  ") {
            let pad = String(repeating: " ", count: indent)
            return paragraph.split(separator: "\n", omittingEmptySubsequences: false).map { pad + $0 }.joined(separator: "\n")
        }
        return wrap(paragraph, indent: indent)
    }

    /// Greedy word wrap to ``width`` with every line indented by `indent` spaces.
    public static func wrap(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty && indent + line.count + 1 + word.count > width {
                lines.append(pad + line)
                line = String(word)
            } else {
                line += line.isEmpty ? String(word) : " " + word
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(pad + line) }
        return lines.joined(separator: "\n")
    }
}
