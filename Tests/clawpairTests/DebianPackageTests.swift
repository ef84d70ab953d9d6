import ClawpairTestSupport
import Foundation
import Testing

/// The Debian package: `scripts/build-deb`, the script `make deb` runs on the release binary,
/// packages the debug binary under test; the package is unpacked into a scratch root with
/// `dpkg -x`, and what it installed is used as a user would: the binary, a man page through
/// `man -l`, each completion file through its own shell.
@Suite struct DebianPackageTests {
    /// Builds the package once into a fresh directory and unpacks it into `root`.
    struct Unpacked {
        let directory: URL
        let deb: String
        var root: String { directory.appendingPathComponent("root").path }

        /// With `maintainer`, the build's `DEB_MAINTAINER`; without, the default.
        init(maintainer: String? = nil) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-deb-\(getpid())-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
            environment["DEB_MAINTAINER"] = maintainer
            let build = try ClawpairBinary.runProgram(DebianPackageTests.script, [ClawpairBinary.path, directory.appendingPathComponent("out").path, "--test"],
                                                      environment: environment, timeoutSeconds: 300)
            guard build.status == 0, build.stderr.isEmpty else { throw PackagingFailure( "build-deb: \(build)") }
            deb = build.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let unpack = try ClawpairBinary.runProgram("/usr/bin/dpkg", ["-x", deb, directory.appendingPathComponent("root").path])
            guard unpack.status == 0 else { throw PackagingFailure( "dpkg -x: \(unpack)") }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        func field(_ name: String) throws -> String {
            try ClawpairBinary.runProgram("/usr/bin/dpkg-deb", ["-f", deb, name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    static let script = SpecFiles.packageRoot.appendingPathComponent("scripts/build-deb").path

    @Test func packageInstallsAndEveryInstalledFileWorks() throws {
        // Whoever publishes the package names themselves (packaging/deb/README.md); any character a name may hold passes.
        let maintainer = "Jane O'Doe & Co/Lab <jane.doe@example.org>"
        let package = try Unpacked(maintainer: maintainer)
        defer { package.remove() }
        let root = package.root
        let env = ["PATH": "/usr/bin:/bin", "HOME": package.directory.path, "LC_ALL": "C.UTF-8"]
        #expect(try package.field("Maintainer") == maintainer)

        // Named after Version.swift's version (the script checks the binary reports it) and this architecture.
        let version = try ClawpairBinary.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let arch = try ClawpairBinary.runProgram("/usr/bin/dpkg", ["--print-architecture"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(URL(fileURLWithPath: package.deb).lastPathComponent == "clawpair_\(version.dropFirst("clawpair ".count))_\(arch).deb")

        // The installed binary runs.
        let installed = try ClawpairBinary.runProgram("\(root)/usr/bin/clawpair", ["--version"], environment: env)
        #expect(installed.status == 0 && installed.stdout == "\(version)\n", "\(installed)")
        let code = try ClawpairBinary.runProgram("\(root)/usr/bin/clawpair", ["setup-code", "--help"], environment: env)
        #expect(code.status == 0 && code.stdout.hasPrefix("USAGE: clawpair setup-code"), "\(code)")

        // A gzipped man page renders.
        let man = try ClawpairBinary.runProgram("/usr/bin/man", ["-l", "-P", "cat", "\(root)/usr/share/man/man1/clawpair.1.gz"],
                                                environment: env.merging(["MANWIDTH": "80"]) { _, new in new })
        #expect(man.status == 0 && man.stdout.contains("clawpair") && man.stdout.contains("setup-code"), "\(man)")

        // bash: the vendor file registers the completion function, which completes a command name.
        let bash = try ClawpairBinary.runProgram("/bin/bash", ["--norc", "--noprofile", "-c", """
            source \(root)/usr/share/bash-completion/completions/clawpair
            complete -p clawpair
            COMP_WORDS=(clawpair setup-); COMP_CWORD=1; COMP_LINE='clawpair setup-'; COMP_POINT=${#COMP_LINE}
            _clawpair clawpair setup- clawpair
            printf '%s\\n' "${COMPREPLY[@]}"
            """], environment: env)
        #expect(bash.status == 0 && bash.stdout.contains("complete -F _clawpair clawpair") && bash.stdout.contains("\nsetup-code\n"),
                "\(bash)")

        // zsh: compinit finds _clawpair in the vendor directory and binds it to clawpair.
        let zsh = try ClawpairBinary.runProgram("/usr/bin/zsh", ["-f", "-c", """
            fpath=(\(root)/usr/share/zsh/vendor-completions $fpath)
            autoload -Uz compinit && compinit -u -d \(package.directory.path)/zcompdump
            print -r -- "bound:$_comps[clawpair]"
            """], environment: env)
        #expect(zsh.status == 0 && zsh.stdout.contains("bound:_clawpair\n") && zsh.stderr.isEmpty, "\(zsh)")

        // fish: the vendor file completes a command name.
        let fish = try ClawpairBinary.runProgram("/usr/bin/fish", ["--no-config", "-c", """
            source \(root)/usr/share/fish/vendor_completions.d/clawpair.fish
            complete -C'clawpair setup-'
            """], environment: env)
        #expect(fish.status == 0 && fish.stdout.hasPrefix("setup-code"), "\(fish)")

        // Depends: the linked libraries (dpkg-shlibdeps) and the dlopen'ed ones; avahi-daemon recommended.
        let depends = try package.field("Depends")
        for library in ["libc6", "libpng16-16", "libjpeg62-turbo", "libsodium23", "libqrencode4",
                        "libssl3", "libzbar0", "libavahi-client3", "libavahi-common3"] {
            #expect(depends.contains("\(library) ") || depends.contains("\(library),") || depends.hasSuffix(library),
                    "Depends lacks \(library): \(depends)")
        }
        #expect(try package.field("Recommends") == "avahi-daemon")
        // The systemd units of packaging/systemd, unchanged, where dh_installsystemd puts them (system and user).
        for (unit, directory) in [("clawpair-advertise@.service", "system"), ("clawpair-advertise.service", "user")] {
            let shipped = "\(root)/usr/lib/systemd/\(directory)/\(unit)"
            let source = SpecFiles.packageRoot.appendingPathComponent("packaging/systemd/\(unit)").path
            #expect(FileManager.default.contentsEqual(atPath: shipped, andPath: source), "\(shipped)")
            let parsed = try SystemdUnit(path: shipped)
            #expect(try parsed.command("ExecStart") == ["/usr/bin/clawpair", "advertise", "--from-openclaw-config"])
        }
        #expect(FileManager.default.fileExists(atPath: "\(root)/usr/share/doc/clawpair/copyright"))
        #expect(FileManager.default.fileExists(atPath: "\(root)/usr/share/doc/clawpair/changelog.gz"))
    }

    /// `dpkg -i` for real, into a scratch root with its own empty dpkg database (`--root`): safe
    /// because the package has no maintainer scripts and nothing outside the scratch root is
    /// written. The scratch database has none of the dependencies, hence `--force-depends`.
    @Test func dpkgInstallsIntoAScratchRootAndRemovesCleanly() throws {
        let package = try Unpacked()
        defer { package.remove() }
        // The default Maintainer: the changelog's top entry, a deliberate reserved .invalid address, never a placeholder domain.
        let changelog = SpecFiles.packageRoot.appendingPathComponent("packaging/deb/changelog").path
        let recorded = try ClawpairBinary.runProgram("/usr/bin/dpkg-parsechangelog", ["-l", changelog, "-S", "Maintainer"])
        #expect(try package.field("Maintainer") == "clawpair maintainers <maintainers@clawpair.invalid>")
        #expect(recorded.stdout == "clawpair maintainers <maintainers@clawpair.invalid>\n", "\(recorded)")
        let scratch = package.directory.appendingPathComponent("scratch").path
        for directory in ["var/lib/dpkg/info", "var/lib/dpkg/updates"] {
            try FileManager.default.createDirectory(atPath: "\(scratch)/\(directory)", withIntermediateDirectories: true)
        }
        #expect(FileManager.default.createFile(atPath: "\(scratch)/var/lib/dpkg/status", contents: Data()))
        let env = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        let install = try ClawpairBinary.runProgram("/usr/bin/dpkg", ["--root=\(scratch)", "--force-depends", "-i", package.deb],
                                                    environment: env)
        #expect(install.status == 0 && install.stdout.contains("Setting up clawpair"), "\(install)")
        let listed = try ClawpairBinary.runProgram("/usr/bin/dpkg", ["--root=\(scratch)", "-L", "clawpair"], environment: env).stdout
        for path in ["/usr/bin/clawpair", "/usr/lib/systemd/system/clawpair-advertise@.service",
                     "/usr/lib/systemd/user/clawpair-advertise.service", "/usr/share/man/man1/clawpair-advertise.1.gz"] {
            #expect(listed.split(separator: "\n").contains(Substring(path)), "dpkg -L lacks \(path)")
            #expect(FileManager.default.fileExists(atPath: scratch + path), "\(path)")
        }
        let installed = try ClawpairBinary.runProgram("\(scratch)/usr/bin/clawpair", ["--version"], environment: env)
        #expect(installed.status == 0 && installed.stdout.hasPrefix("clawpair "), "\(installed)")
        let remove = try ClawpairBinary.runProgram("/usr/bin/dpkg", ["--root=\(scratch)", "-r", "clawpair"], environment: env)
        #expect(remove.status == 0, "\(remove)")
        #expect(!FileManager.default.fileExists(atPath: "\(scratch)/usr/bin/clawpair"))
        #expect(!FileManager.default.fileExists(atPath: "\(scratch)/usr/lib/systemd/system/clawpair-advertise@.service"))
    }

    @Test("a Maintainer that is not \"Full Name <address>\" stops build-deb before it builds anything")
    func malformedMaintainerRefused() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-deb-bad-\(getpid())-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        for bad in ["jane@example.org", "Jane Doe", "<jane@example.org>", "Jane <jane@localhost>", "Jane\nDoe <jane@example.org>"] {
            let build = try ClawpairBinary.runProgram(Self.script, [ClawpairBinary.path, out, "--test"],
                                                      environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEB_MAINTAINER": bad])
            #expect(build.status == 1 && build.stderr.contains("is not \"Full Name <address>\""), "\(bad): \(build)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(bad)")
        }
        // Debian's own variables, as dch reads them, when DEB_MAINTAINER is not set.
        let debemail = try ClawpairBinary.runProgram(Self.script, [ClawpairBinary.path, out, "--test"],
                                                     environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBEMAIL": "nodomain"])
        #expect(debemail.status == 1 && debemail.stderr.contains("Maintainer '<nodomain>'"), "\(debemail)")
    }
}

/// A packaging step that failed, with what it printed.
struct PackagingFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
