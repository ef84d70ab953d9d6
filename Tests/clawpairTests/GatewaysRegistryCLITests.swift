import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair gateways list|use|forget` on registries written by hand: records others can read,
/// symbolic links, damaged records, and more records than the old silent limit of 256.
@Suite("clawpair gateways (registry files)")
struct GatewaysRegistryCLITests {
    /// A clawpair home with a gateways directory (0700), removed afterwards.
    struct Home {
        let directory: String
        var gateways: String { directory + "/home/gateways" }

        init() throws {
            directory = NSTemporaryDirectory() + "clawpair-gws-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory + "/home/gateways", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        func run(_ arguments: [String]) throws -> ClawpairBinary.Result {
            try ClawpairBinary.run(arguments, environment: ["CLAWPAIR_HOME": directory + "/home", "HOME": directory])
        }

        /// `gw-<16 hex of n>`.
        static func id(_ n: Int) -> String {
            let hex = String(n, radix: 16)
            return "gw-" + String(repeating: "0", count: 16 - hex.count) + hex
        }

        /// Writes record `n` named `name` with `mode`; returns its path.
        @discardableResult
        func writeRecord(_ n: Int, name: String, mode: Int = 0o600) throws -> String {
            let id = Self.id(n)
            let json = """
            {"version": 1, "id": "\(id)", "name": "\(name)", "urls": ["ws://10.1.\(n / 250).\(n % 250 + 1):18789"], \
            "tlsFingerprint": null, "deviceId": "d", "tokens": {}, "pairedAtMs": 1, "lastSeenAtMs": null, "deviceName": null}
            """
            let path = gateways + "/\(id).json"
            try json.write(toFile: path, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            return path
        }
    }

    static func withHome(_ body: (Home) throws -> Void) throws {
        let home = try Home()
        defer { home.remove() }
        try body(home)
    }

    @Test("a record others can read is refused with the chmod fix; after chmod 600 it is used")
    func groupReadableRecord() throws {
        try Self.withHome { home in
            let file = try home.writeRecord(1, name: "lan", mode: 0o644)
            let list = try home.run(["gateways", "list"])
            #expect(list.status == 0, "\(list)")
            #expect(list.stdout == "No paired gateways.\n")
            #expect(list.stderr.hasPrefix("warning: \(file) is accessible to other users (mode 644); refusing to use a gateway record others can read\n"),
                    "\(list)")
            let use = try home.run(["gateways", "use", "lan"])
            #expect(use.status == 1, "\(use)")
            #expect(use.stderr == "error: \(file) is accessible to other users (mode 644); refusing to use a gateway record others can read\n"
                    + "hint: run: chmod 600 \(file)\n", "\(use)")

            chmod(file, 0o600)
            let fixed = try home.run(["gateways", "use", "lan"])
            #expect(fixed.status == 0, "\(fixed)")
            #expect(fixed.stdout == "Using lan (ws://10.1.0.2:18789).\n")
        }
    }

    @Test("a symbolic link is refused; unreadable records are forgotten by their id")
    func symlinkAndDamaged() throws {
        try Self.withHome { home in
            let target = try home.writeRecord(2, name: "elsewhere")
            let linked = home.gateways + "/\(Home.id(3)).json"
            try FileManager.default.moveItem(atPath: target, toPath: home.directory + "/outside.json")
            try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: home.directory + "/outside.json")
            let list = try home.run(["gateways", "list"])
            #expect(list.stderr.contains("warning: \(linked) is a symbolic link; gateway records must be regular files"), "\(list)")
            let use = try home.run(["gateways", "use", Home.id(3)])
            #expect(use.status == 1, "\(use)")
            #expect(use.stderr.hasSuffix("hint: replace \(linked) with the file it points to, or remove it: clawpair gateways forget \(Home.id(3))\n"),
                    "\(use)")

            let forget = try home.run(["gateways", "forget", Home.id(3)])
            #expect(forget.status == 0, "\(forget)")
            #expect(forget.stdout == "Removed the unreadable gateway record \(linked).\n")
            #expect(!FileManager.default.fileExists(atPath: linked))
            #expect(FileManager.default.fileExists(atPath: home.directory + "/outside.json"), "the link goes, not its target")

            let damaged = home.gateways + "/\(Home.id(4)).json"
            try "{not json".write(toFile: damaged, atomically: false, encoding: .utf8)
            chmod(damaged, 0o600)
            let listed = try home.run(["gateways", "list"])
            #expect(listed.stderr.contains("warning: the gateway record \(damaged) is damaged"), "\(listed)")
            #expect(try home.run(["gateways", "forget", Home.id(4)]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: damaged))
            let unknown = try home.run(["gateways", "forget", Home.id(5)])
            #expect(unknown.status == 3, "\(unknown)")
            #expect(unknown.stderr.hasPrefix("error: no paired gateway is called '\(Home.id(5))'\n"), "\(unknown)")
        }
    }

    @Test("300 records: all are listed and each can be forgotten (no silent limit at 256)")
    func manyRecords() throws {
        try Self.withHome { home in
            for n in 0..<300 { try home.writeRecord(n, name: String(format: "g%03d", n)) }
            let list = try home.run(["gateways", "list", "--json"])
            #expect(list.status == 0, "\(list)")
            let gateways = try #require((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["gateways"] as? [Any])
            #expect(gateways.count == 300)
            #expect(list.stderr.isEmpty, "\(list)")
            for name in ["g000", "g299"] {
                let forget = try home.run(["gateways", "forget", name])
                #expect(forget.status == 0, "\(forget)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: home.gateways).filter { $0.hasSuffix(".json") }.count == 298)
        }
    }
}

/// How `clawpair pair` reports the pairing flow's own failures: exit status and hint.
@Suite("clawpair pair (failures)")
struct PairFailureCLITests {
    static let now: Int64 = 1_737_264_000_000

    static func withHome(_ body: (GatewaysRegistryCLITests.Home) async throws -> Void) async throws {
        let home = try GatewaysRegistryCLITests.Home()
        defer { home.remove() }
        try await body(home)
    }

    static func run(_ home: GatewaysRegistryCLITests.Home, _ arguments: [String], stdin: String, nowMs: Int64? = nil) throws -> ClawpairBinary.Result {
        try ClawpairBinary.run(arguments, stdin: stdin, environment: ["CLAWPAIR_HOME": home.directory + "/home", "HOME": home.directory],
                               nowMs: nowMs)
    }

    @Test("an expired code is exit 4 and says when it expired; a code without a credential is exit 2")
    func badCodes() async throws {
        try await Self.withHome { home in
            let code = try ClawpairBinary.run(["setup-code", "encode", "--url", "ws://192.168.1.5:18789", "--bootstrap-token", "-"],
                                              stdin: "bootstrap-0123456789\n", nowMs: Self.now)
            #expect(code.status == 0, "\(code)")
            let expired = try Self.run(home, ["pair", "-"], stdin: code.stdout, nowMs: Self.now + 600_000)
            #expect(expired.status == 4, "\(expired)")
            #expect(expired.stderr == "error: the setup code expired 2025-01-19T05:30:00.000Z\n"
                    + "hint: mint a new one on the gateway: clawpair qr (or openclaw qr)\n", "\(expired)")

            let bare = Data(#"{"url":"ws://192.168.1.5:18789"}"#.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let none = try Self.run(home, ["pair", "-", "--json"], stdin: bare + "\n")
            #expect(none.status == 2, "\(none)")
            #expect(none.stderr == "error: the setup code carries no bootstrap token, token or password\n"
                    + "hint: it only names a gateway; mint a pairing code with 'clawpair qr'\n", "\(none)")
            #expect(none.stdout.contains("\"ok\": false"), "--json still prints the error document: \(none)")
            #expect(!FileManager.default.fileExists(atPath: home.directory + "/home/identity"), "no identity is made for a code that cannot pair")
        }
    }

    @Test("--gateway-name that another gateway has: exit 2 with the registry's hint, nothing stored")
    func gatewayNameTaken() async throws {
        try await Self.withHome { home in
            let token = "pair-failure-token-0123456789"
            let tokenFile = home.directory + "/token"
            try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
            try await withTestGateway(TestGatewayOptions(token: token)) { gateway in
                let minted = try ClawpairBinary.run(["qr", "--setup-code-only", "--node", "--url", gateway.url, "--token-file", tokenFile],
                                                    environment: ["CLAWPAIR_HOME": home.directory + "/operator", "HOME": home.directory])
                #expect(minted.status == 0, "\(minted)")
                let existing = try home.writeRecord(7, name: "lan")
                let paired = try Self.run(home, ["pair", "-", "--gateway-name", "lan"], stdin: minted.stdout)
                #expect(paired.status == 2, "\(paired)")
                #expect(paired.stderr.hasSuffix("error: a paired gateway is already called 'lan'\n"
                                                + "hint: choose another --name, or 'clawpair gateways forget' the old one\n"), "\(paired)")
                let records = try FileManager.default.contentsOfDirectory(atPath: home.gateways).filter { $0.hasSuffix(".json") }
                #expect(records == [(existing as NSString).lastPathComponent])
            }
        }
    }
}
