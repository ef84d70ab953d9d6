import ClawpairTestSupport
import Foundation
import Testing

/// The command-line frame, run through the built binary with exact expectations.
@Suite struct CLIFrameTests {
    @Test func version() throws {
        let result = try ClawpairBinary.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("clawpair "), "\(result)")
        #expect(result.stderr.isEmpty)
    }

    @Test func versionJSON() throws {
        let result = try ClawpairBinary.run(["--version", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == true && object["name"] as? String == "clawpair", "\(result)")
        #expect(result.stdout.hasPrefix("{\n  \"ok\": true,\n  \"name\": \"clawpair\",\n  \"version\": \""), "\(result)")
    }

    /// Every command's usage errors are the JSON envelope under --json (here: one with no JSON output of its own).
    @Test func usageErrorJSON() throws {
        let result = try ClawpairBinary.run(["completions", "tcsh", "--json"])
        #expect(result.status == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        let error = try #require(object["error"] as? [String: Any])
        #expect(object["ok"] as? Bool == false && error["code"] as? String == "usage", "\(result)")
        #expect(error["message"] as? String == result.stderr.split(separator: "\n").first.map { String($0.dropFirst(7)) }, "\(result)")
        let unknown = try ClawpairBinary.run(["nodes", "frobnicate", "--json"])
        #expect(unknown.status == 2 && unknown.stdout.contains("\"code\": \"usage\""), "\(unknown)")
    }

    @Test func bareCommandShowsHelp() throws {
        let result = try ClawpairBinary.run([])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("USAGE: clawpair <command>\n"), "\(result)")
        #expect(result.stdout.contains("setup-code"))
        #expect(!result.stdout.contains("generate-docs"), "hidden commands stay out of help")
    }

    @Test func helpAtEveryLevel() throws {
        for path in [["setup-code"], ["setup-code", "decode"], ["setup-code", "encode"], ["completions"]] {
            let viaFlag = try ClawpairBinary.run(path + ["--help"])
            let viaCommand = try ClawpairBinary.run(["help"] + path)
            #expect(viaFlag.status == 0, "\(path): \(viaFlag)")
            #expect(viaFlag.stdout.hasPrefix("USAGE: clawpair \(path.joined(separator: " "))"), "\(path)")
            #expect(viaFlag.stdout == viaCommand.stdout, "\(path)")
        }
    }

    @Test func groupWithoutCommandIsUsageError() throws {
        let result = try ClawpairBinary.run(["setup-code"])
        #expect(result.status == 2)
        #expect(result.stderr == "error: 'clawpair setup-code' needs a command: encode, decode\nhint: see 'clawpair setup-code --help'\n")
    }

    @Test func unknownCommandSuggests() throws {
        let result = try ClawpairBinary.run(["setup-cod"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: unknown command 'setup-cod' for 'clawpair'\nhint: did you mean 'setup-code'?"),
                "\(result)")
    }

    @Test func unknownOptionSuggests() throws {
        let result = try ClawpairBinary.run(["setup-code", "decode", "--show-secret"])
        #expect(result.status == 2)
        #expect(result.stderr == "error: unknown option '--show-secret' for 'clawpair setup-code decode'\n"
                + "hint: did you mean '--show-secrets'? See 'clawpair setup-code decode --help'\n", "\(result)")
    }

    @Test func noColorWhenNotATerminal() throws {
        // Output to a pipe is never coloured, whatever NO_COLOR says.
        let result = try ClawpairBinary.run(["--help"], environment: ["TERM": "xterm-256color"])
        #expect(!result.stdout.contains("\u{1B}["))
        let error = try ClawpairBinary.run(["nope"], environment: ["TERM": "xterm-256color"])
        #expect(!error.stderr.contains("\u{1B}["))
    }

    @Test func completionScripts() throws {
        for shell in ["bash", "zsh", "fish"] {
            let result = try ClawpairBinary.run(["completions", shell])
            #expect(result.status == 0, "\(shell)")
            #expect(result.stdout.contains("setup-code"), "\(shell)")
        }
        #expect(try ClawpairBinary.run(["completions", "tcsh"]).status == 2)
    }

    @Test func completionScriptsParseInTheirShells() throws {
        for (shell, executable) in [("bash", "/bin/bash"), ("zsh", "/usr/bin/zsh"), ("fish", "/usr/bin/fish")] {
            let script = try ClawpairBinary.run(["completions", shell]).stdout
            let check = try runShell(executable, ["-n"], stdin: script)
            #expect(check.status == 0 && check.stderr.isEmpty, "\(shell): \(check.stderr)")
        }
    }

    /// The committed Man/ and Completions/ are exactly what the declarations generate.
    @Test func generatedDocsAreCommitted() throws {
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-docs-\(getpid())-\(UUID())")
        defer { try? FileManager.default.removeItem(at: temp) }
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        let sources = SpecFiles.packageRoot.appendingPathComponent("Man/sections").path
        let result = try ClawpairBinary.run(["generate-docs", "--man-sources", sources, temp.path])
        #expect(result.status == 0, "\(result)")
        for directory in ["Man", "Completions"] {
            let generated = try FileManager.default.contentsOfDirectory(atPath: temp.appendingPathComponent(directory).path).sorted()
            let committedURL = SpecFiles.packageRoot.appendingPathComponent(directory)
            // Man/sections holds the man sources the pages are generated from, not generated pages.
            let committed = ((try? FileManager.default.contentsOfDirectory(atPath: committedURL.path)) ?? [])
                .filter { $0 != "sections" }.sorted()
            #expect(generated == committed, "\(directory)/ differs in file names: run 'make docs' and commit")
            for name in generated {
                let fresh = try String(contentsOf: temp.appendingPathComponent(directory).appendingPathComponent(name), encoding: .utf8)
                let old = try? String(contentsOf: committedURL.appendingPathComponent(name), encoding: .utf8)
                #expect(fresh == old, "\(directory)/\(name) is stale: run 'make docs' and commit")
            }
        }
    }

    /// One EXIT STATUS and one ENVIRONMENT per page; the full ones only in clawpair(1), generated
    /// from the declarations; the test hook CLAWPAIR_NOW_MS is documented nowhere.
    @Test func oneExitStatusAndEnvironment() throws {
        let man = SpecFiles.packageRoot.appendingPathComponent("Man")
        let pages = try FileManager.default.contentsOfDirectory(atPath: man.path).filter { $0.hasSuffix(".1") }
        for page in pages {
            let text = try String(contentsOf: man.appendingPathComponent(page), encoding: .utf8)
            let lines = text.split(separator: "\n")
            #expect(lines.filter { $0 == ".SH EXIT STATUS" }.count == 1, "\(page)")
            #expect(lines.filter { $0 == ".SH ENVIRONMENT" }.count == 1, "\(page)")
            #expect(!text.contains("CLAWPAIR_NOW_MS"), "\(page)")
            if page != "clawpair.1" {
                #expect(text.contains("Every command's statuses are listed in \\fBclawpair\\fR(1)."), "\(page)")
                #expect(text.contains("\\fBclawpair\\fR(1) describes them."), "\(page)")
            }
        }
        let root = try String(contentsOf: man.appendingPathComponent("clawpair.1"), encoding: .utf8)
        for name in ["NO_COLOR", "OPENCLAW_GATEWAY_URL", "CLAWPAIR_HOME", "CLAWPAIR_BOOTSTRAP_TOKEN"] {
            #expect(root.contains("\n\(name)"), "\(name)")
        }
        #expect(root.contains(".B 4\nrefused"))
        let devices = try String(contentsOf: man.appendingPathComponent("clawpair-devices-list.1"), encoding: .utf8)
        #expect(devices.contains("Variables this command reads: NO_COLOR, OPENCLAW_GATEWAY_URL"))
    }

    @Test func manPagesRenderWithoutWarnings() throws {
        let man = SpecFiles.packageRoot.appendingPathComponent("Man")
        let pages = try FileManager.default.contentsOfDirectory(atPath: man.path).filter { $0.hasSuffix(".1") }
        #expect(!pages.isEmpty)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else { return }
        for page in pages {
            let result = try runShell("/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-z", man.appendingPathComponent(page).path], stdin: "")
            #expect(result.status == 0 && result.stderr.isEmpty, "\(page): \(result.stderr)")
        }
    }
}

/// Runs a helper program (not clawpair) with stdin; for syntax checks of generated files.
func runShell(_ executable: String, _ arguments: [String], stdin: String) throws -> ClawpairBinary.Result {
    try ClawpairBinary.runProgram(executable, arguments, stdin: stdin)
}
