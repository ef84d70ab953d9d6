import ClawpairTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `clawpair zone` through the built binary, with exact expectations.
@Suite struct ZoneCLITests {
    /// 2025-12-17T12:00:00Z: the day of the upstream example's serial 2025121701.
    static let exampleDay: Int64 = 1_765_972_800_000
    /// 2026-03-13T12:00:00Z: the `zoneSerial` vectors' clock.
    static let serialDay: Int64 = 1_773_403_200_000

    /// The upstream example (`vectors.json` zone.fullExample) as command-line options.
    static let exampleArguments = [
        "zone", "--domain", "openclaw.internal.", "--ipv4", "100.123.224.76", "--ipv6", "fd7a:115c:a1e0::8801:e04c",
        "--display-name", "Mac Studio (OpenClaw)", "--host-label", "studio-london", "--instance-label", "studio-london",
        "--mode", "full", "--ssh-port", "22", "--cli-path", "/opt/homebrew/bin/openclaw",
    ]

    static let exampleZone = """
        ; openclaw-content-hash: 3564c7ee
        $ORIGIN openclaw.internal.
        $TTL 60
        @ IN SOA ns1 hostmaster 2025121701 7200 3600 1209600 60
        @ IN NS ns1
        ns1 IN A 100.123.224.76
        studio-london IN A 100.123.224.76
        studio-london IN AAAA fd7a:115c:a1e0::8801:e04c
        _openclaw-gw._tcp IN PTR studio-london._openclaw-gw._tcp
        studio-london._openclaw-gw._tcp IN SRV 0 0 18789 studio-london
        studio-london._openclaw-gw._tcp IN TXT "displayName=Mac Studio (OpenClaw)" "role=gateway" "transport=gateway" "gatewayPort=18789" "sshPort=22" "cliPath=/opt/homebrew/bin/openclaw"

        """

    /// A fresh directory, removed afterwards.
    func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-zone-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    func read(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    func inode(_ path: String) -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : 0
    }

    @Test func writesTheUpstreamExampleByteForByte() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("openclaw.internal.db").path
            let result = try ClawpairBinary.run(Self.exampleArguments + ["-o", path], nowMs: Self.exampleDay)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == "Wrote \(path) (serial 2025121701, content hash 3564c7ee)\n", "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
            #expect(try read(URL(fileURLWithPath: path)) == Self.exampleZone)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644, "a zone is public")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(leftovers == ["openclaw.internal.db"], "no temporary files left: \(leftovers)")
        }
    }

    @Test func defaultFileNameIsTheDomain() throws {
        try withDirectory { directory in
            let result = try runIn(directory, Self.exampleArguments, nowMs: Self.exampleDay)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == "Wrote openclaw.internal.db (serial 2025121701, content hash 3564c7ee)\n", "\(result)")
            #expect(try read(directory.appendingPathComponent("openclaw.internal.db")) == Self.exampleZone)
        }
    }

    @Test func unchangedContentIsLeftAlone() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("zone.db").path
            _ = try ClawpairBinary.run(Self.exampleArguments + ["-o", path], nowMs: Self.exampleDay)
            let before = inode(path)
            let again = try ClawpairBinary.run(Self.exampleArguments + ["-o", path], nowMs: Self.exampleDay + 86_400_000)
            #expect(again.status == 0, "\(again)")
            #expect(again.stdout == "\(path) unchanged (serial 2025121701, content hash 3564c7ee)\n", "\(again)")
            #expect(inode(path) == before, "the file was not replaced")
            #expect(try read(URL(fileURLWithPath: path)) == Self.exampleZone)
            // A change the next day takes the new day's serial; another the same day adds one.
            let changed = try ClawpairBinary.run(Self.exampleArguments + ["-o", path, "--port", "18790"],
                                                 nowMs: Self.exampleDay + 86_400_000)
            #expect(changed.stdout.hasPrefix("Wrote \(path) (serial 2025121801, content hash "), "\(changed)")
            let sameDay = try ClawpairBinary.run(Self.exampleArguments + ["-o", path, "--port", "18791"],
                                                 nowMs: Self.exampleDay + 86_400_000)
            #expect(sameDay.stdout.hasPrefix("Wrote \(path) (serial 2025121802, content hash "), "\(sameDay)")
            #expect(try read(URL(fileURLWithPath: path)).contains("\"gatewayPort=18791\""))
        }
    }

    /// The `zoneSerial` vectors, through a previous file on disk and the pinned clock.
    @Test func serialFollowsRFC1982FromThePreviousFile() throws {
        let vectors: [(UInt32, UInt32)] = [(2027010101, 2027010102), (2026031400, 2026031401), (4294967295, 2026031301),
                                           (0, 2026031301), (2026031301, 2026031302), (4173514949, 4173514950)]
        try withDirectory { directory in
            let path = directory.appendingPathComponent("zone.db").path
            for (previous, expected) in vectors {
                let old = Self.exampleZone.replacingOccurrences(of: "2025121701", with: String(previous))
                    .replacingOccurrences(of: "3564c7ee", with: "00000000")
                try old.write(toFile: path, atomically: false, encoding: .utf8)
                let result = try ClawpairBinary.run(Self.exampleArguments + ["-o", path, "--tls-fingerprint", "abc123".padding(toLength: 64, withPad: "0", startingAt: 0)],
                                                    nowMs: Self.serialDay)
                #expect(result.status == 0, "previous \(previous): \(result)")
                #expect(result.stdout.hasPrefix("Wrote \(path) (serial \(expected), "), "previous \(previous): \(result)")
                #expect(try read(URL(fileURLWithPath: path)).contains("@ IN SOA ns1 hostmaster \(expected) 7200"), "previous \(previous)")
            }
        }
    }

    @Test func jsonSchema() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("z.db").path
            let result = try ClawpairBinary.run(Self.exampleArguments + ["-o", path, "--json"], nowMs: Self.exampleDay)
            #expect(result.status == 0, "\(result)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["ok", "path", "domain", "serial", "changed", "contentHash", "records"])
            #expect(object["path"] as? String == path)
            #expect(object["domain"] as? String == "openclaw.internal.")
            #expect(object["serial"] as? Int == 2025121701)
            #expect(object["changed"] as? Bool == true)
            #expect(object["contentHash"] as? String == "3564c7ee")
            let records = try #require(object["records"] as? [[String: String]])
            #expect(records.map { $0["type"] ?? "" } == ["SOA", "NS", "A", "A", "AAAA", "PTR", "SRV", "TXT"])
            #expect(records[6] == ["name": "studio-london._openclaw-gw._tcp", "type": "SRV", "data": "0 0 18789 studio-london"])
            #expect(records[0]["data"] == "ns1 hostmaster 2025121701 7200 3600 1209600 60")
            let again = try ClawpairBinary.run(Self.exampleArguments + ["-o", path, "--json"], nowMs: Self.exampleDay)
            #expect(again.stdout.contains("\"changed\": false"), "\(again)")
        }
    }

    @Test func printsToStandardOutput() throws {
        let result = try ClawpairBinary.run(Self.exampleArguments + ["-o", "-"], nowMs: Self.exampleDay)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == Self.exampleZone)
        #expect(result.stderr.isEmpty)
    }

    @Test func tlsAndTailnetKeys() throws {
        let pin = "SHA256:" + (0..<32).map { _ in "AB" }.joined(separator: ":")
        let result = try ClawpairBinary.run(["zone", "--domain", "openclaw.internal", "--ipv4", "100.64.0.1", "--display-name", "Box",
                                             "--host-label", "box", "--instance-label", "box-gateway", "--tls-fingerprint", pin, "-o", "-"],
                                            environment: ["OPENCLAW_TAILNET_DNS": " box.tail1234.ts.net "], nowMs: Self.exampleDay)
        #expect(result.status == 0, "\(result)")
        let txt = try #require(result.stdout.split(separator: "\n").last)
        #expect(txt == "box-gateway._openclaw-gw._tcp IN TXT \"displayName=Box\" \"role=gateway\" \"transport=gateway\" \"gatewayPort=18789\" "
                + "\"gatewayTls=1\" \"gatewayTlsSha256=\(String(repeating: "ab", count: 32))\" \"tailnetDns=box.tail1234.ts.net\"")
        #expect(!result.stdout.contains("AAAA"), "no --ipv6, no AAAA line")
        let plainTLS = try ClawpairBinary.run(["zone", "--domain", "x.internal", "--ipv4", "100.64.0.1", "--display-name", "Box", "--tls", "-o", "-"],
                                              nowMs: Self.exampleDay)
        #expect(plainTLS.stdout.contains("\"gatewayPort=18789\" \"gatewayTls=1\"\n"), "\(plainTLS)")
    }

    @Test func nonASCIITextIsEscapedForEveryServer() throws {
        let result = try ClawpairBinary.run(["zone", "--domain", "openclaw.internal", "--ipv4", "100.64.0.1", "--host-label", "box",
                                             "--display-name", "Caf\u{E9} \u{1F99E}", "-o", "-"], nowMs: Self.exampleDay)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains(#" IN TXT "displayName=Caf\195\169 \240\159\166\158" "role=gateway""#), "\(result)")
        let ascii = result.stdout.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(ascii, "the zone file is ASCII")
    }

    @Test func defaultsComeFromTheHostname() throws {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, 255)
        let hostname = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let first = String(hostname.split(separator: ".").first ?? "openclaw")
        // The zone's label rule, restated: lowercase, runs of other characters → "-", trimmed "-".
        var label = ""
        var inRun = false
        for scalar in first.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" {
                label.unicodeScalars.append(scalar)
                inRun = false
            } else if !inRun {
                label += "-"
                inRun = true
            }
        }
        label = label.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        let result = try ClawpairBinary.run(["zone", "--domain", "openclaw.internal", "--ipv4", "100.64.0.1", "-o", "-"], nowMs: Self.exampleDay)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("\n\(label.isEmpty ? "openclaw" : label) IN A 100.64.0.1\n"), "\(result)")
        #expect(result.stdout.contains("_openclaw-gw._tcp IN PTR \(label.isEmpty ? "" : label + "-")gateway._openclaw-gw._tcp\n"), "\(result)")
        let display = first.lowercased().contains("openclaw") ? first : "\(first) (OpenClaw)"
        #expect(result.stdout.contains("\"displayName=\(display)\""), "\(result)")
    }

    @Test func notesForOddInputs() throws {
        let result = try ClawpairBinary.run(["zone", "--domain", "openclaw.internal", "--ipv4", "192.168.1.20", "--display-name", "Box",
                                             "--host-label", " Studio London ", "--instance-label", "studio-gw", "-o", "-"],
                                            nowMs: Self.exampleDay)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "note: 192.168.1.20 is not a tailnet address (100.64.0.0/10); clients must be able to reach it\n"
                + "note: host label ' Studio London ' is written as 'studio-london'\n", "\(result)")
        #expect(result.stdout.contains("\nstudio-london IN A 192.168.1.20\n"))
        let quiet = try ClawpairBinary.run(["zone", "-q", "--domain", "openclaw.internal", "--ipv4", "192.168.1.20", "--display-name", "Box",
                                            "--host-label", "x", "-o", "-"], nowMs: Self.exampleDay)
        #expect(quiet.stderr.isEmpty, "\(quiet)")
    }

    @Test func refusesToReplaceAForeignFile() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("precious.txt").path
            try "not a zone\n".write(toFile: path, atomically: false, encoding: .utf8)
            let refused = try ClawpairBinary.run(Self.exampleArguments + ["-o", path], nowMs: Self.exampleDay)
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr == "error: \(path) exists and is not a zone written by clawpair or OpenClaw\n"
                    + "hint: pass --force to replace it, or choose another file with -o\n", "\(refused)")
            #expect(try read(URL(fileURLWithPath: path)) == "not a zone\n")
            let forced = try ClawpairBinary.run(Self.exampleArguments + ["-o", path, "--force"], nowMs: Self.exampleDay)
            #expect(forced.status == 0, "\(forced)")
            #expect(try read(URL(fileURLWithPath: path)) == Self.exampleZone)
        }
    }

    @Test func writeFailuresAreExit1() throws {
        let result = try ClawpairBinary.run(Self.exampleArguments + ["-o", "/nonexistent-clawpair-dir/zone.db"], nowMs: Self.exampleDay)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasPrefix("error: /nonexistent-clawpair-dir/"), "\(result)")
        try withDirectory { directory in
            let result = try ClawpairBinary.run(Self.exampleArguments + ["-o", directory.path], nowMs: Self.exampleDay)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("hint: give a file, not a directory"), "\(result)")
        }
    }

    @Test func usageErrorsAreExit2() throws {
        let base = ["zone", "--domain", "openclaw.internal", "--ipv4", "100.64.0.1", "--display-name", "Box", "--host-label", "box", "-o", "-"]
        func replacing(_ option: String, _ value: String) -> [String] {
            var arguments = base
            if let index = arguments.firstIndex(of: option) { arguments[index + 1] = value } else { arguments += [option, value] }
            return arguments
        }
        let cases: [([String], String)] = [
            (["zone", "--ipv4", "100.64.0.1"], "error: --domain is required\nhint: e.g. --domain openclaw.internal\n"),
            (["zone", "--domain", "openclaw.internal"], "error: --ipv4 is required\nhint: e.g. --ipv4 100.123.224.76\n"),
            (replacing("--domain", "local"), "error: cannot use 'local' as the zone domain: local. is the Multicast DNS domain; "
                + "wide-area discovery needs a unicast domain such as openclaw.internal\n"),
            (replacing("--domain", "bad domain.internal"), "error: cannot use 'bad domain.internal' as the zone domain: the label "
                + "'bad domain' has characters other than letters, digits, '-' and '_'\n"),
            (replacing("--ipv4", "100.64.0.256"), "error: --ipv4 '100.64.0.256' is not an IPv4 address\nhint: give dotted decimal, e.g. 100.123.224.76\n"),
            (replacing("--ipv6", "[fd7a::1]"), "error: --ipv6 '[fd7a::1]' is not an IPv6 address\nhint: e.g. fd7a:115c:a1e0::8801:e04c (no brackets or zone)\n"),
            (replacing("--port", "0"), "error: --port '0' is not a port (1-65535)\n"),
            (replacing("--mode", "loud"), "error: --mode 'loud' is not minimal or full\n"),
            (replacing("--ssh-port", "22"), "error: --ssh-port is only written with --mode full\nhint: add --mode full, or leave --ssh-port out\n"),
            (replacing("--tls-fingerprint", "abc123"), "error: --tls-fingerprint is not a SHA-256 fingerprint\n"
                + "hint: give 64 hex digits or 32 colon-separated pairs, optionally prefixed sha256:\n"),
            (replacing("--display-name", "a\nb"), "error: display name contains a control character\n"),
            (base + ["--json"], "error: --json describes a written file; with -o - the zone itself is the output\n"
                + "hint: leave out --json, or give a file with -o\n"),
        ]
        for (arguments, stderr) in cases {
            let result = try ClawpairBinary.run(arguments, nowMs: Self.exampleDay)
            #expect(result.status == 2, "\(arguments): \(result)")
            // Under --json a usage error is the JSON envelope on stdout (clawpair(1), JSON OUTPUT).
            #expect(arguments.contains("--json") ? result.stdout.hasPrefix("{\n  \"ok\": false,\n  \"error\": {\n    \"code\": \"usage\"")
                        : result.stdout.isEmpty, "\(arguments): \(result)")
            #expect(result.stderr == stderr, "\(arguments): \(result)")
        }
        let long = try ClawpairBinary.run(replacing("--display-name", String(repeating: "x", count: 250)), nowMs: Self.exampleDay)
        #expect(long.status == 2 && long.stderr == "error: the TXT string for displayName is 262 bytes; DNS allows at most 255\n", "\(long)")
    }

    @Test func helpAndManPage() throws {
        let help = try ClawpairBinary.run(["zone", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("USAGE: clawpair zone [<options>]\n"), "\(help)")
        let root = try ClawpairBinary.run(["--help"])
        #expect(root.stdout.contains("  zone "), "zone is listed now that it is a real command")
        let man = SpecFiles.packageRoot.appendingPathComponent("Man/clawpair-zone.1")
        let page = try String(contentsOf: man, encoding: .utf8)
        #expect(page.contains("JSON OUTPUT") && page.contains("SERVING THE ZONE"))
    }

    /// Runs the binary with `directory` as its working directory.
    func runIn(_ directory: URL, _ arguments: [String], nowMs: Int64) throws -> ClawpairBinary.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ClawpairBinary.path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ["PATH": "/usr/bin:/bin", "CLAWPAIR_NOW_MS": String(nowMs)]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ClawpairBinary.Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                                     stderr: String(decoding: err, as: UTF8.self))
    }
}
