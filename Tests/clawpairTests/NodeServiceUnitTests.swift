import ClawpairTestSupport
import Foundation
import Testing

/// The systemd units of `clawpair node` (packaging/systemd/clawpair-node.{system,user}.service):
/// what `node install --print` renders, installed by `make install-units`, accepted by
/// `systemd-analyze verify`, hardened to an exposure of at most 2.0 in
/// `systemd-analyze security --offline=true`, with upstream's restart policy.
@Suite("clawpair node: systemd units", .serialized)
struct NodeServiceUnitTests {
    static let packaged = [
        "system": SpecFiles.packageRoot.appendingPathComponent("packaging/systemd/clawpair-node.system.service").path,
        "user": SpecFiles.packageRoot.appendingPathComponent("packaging/systemd/clawpair-node.user.service").path,
    ]

    /// A clawpair home holding one gateway record with a node token.
    struct Home {
        let directory = NSTemporaryDirectory() + "clawpair-nodeunit-\(UUID().uuidString.prefix(8))"
        static let id = "gw-00000000000000a1"

        init() throws {
            try FileManager.default.createDirectory(atPath: directory + "/.config/clawpair/gateways", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let json = """
            {"version": 1, "id": "\(Self.id)", "name": "lab", "urls": ["ws://10.9.0.1:18789"], "tlsFingerprint": null, \
            "deviceId": "d", "tokens": {"node": {"token": "tok", "role": "node", "scopes": []}}, "pairedAtMs": 1, \
            "lastSeenAtMs": null, "deviceName": null}
            """
            let path = directory + "/.config/clawpair/gateways/\(Self.id).json"
            try json.write(toFile: path, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }

        func run(_ arguments: [String]) throws -> ClawpairBinary.Result {
            try ClawpairBinary.run(arguments, environment: ["CLAWPAIR_HOME": directory + "/.config/clawpair", "HOME": directory])
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test("node install --print renders exactly the packaged units (ExecStart aside)")
    func printMatchesPackaging() throws {
        let home = try Home()
        defer { home.remove() }
        for kind in ["system", "user"] {
            let result = try home.run(["node", "install", "--\(kind)", "--print"])
            #expect(result.status == 0, "\(result)")
            let rendered = result.stdout.replacingOccurrences(of: ClawpairBinary.path, with: "/usr/bin/clawpair")
                .replacingOccurrences(of: " --gateway \(Home.id)", with: "")
            let packaged = try String(contentsOfFile: Self.packaged[kind]!, encoding: .utf8)
            #expect(rendered == packaged, "\(kind): regenerate packaging/systemd/clawpair-node.\(kind).service")
            #expect(result.stdout.contains("ExecStart=\(ClawpairBinary.path) node run --gateway \(Home.id)\n"))
        }
        let which = try home.run(["node", "install", "--print", "--commands", "system.which"])
        #expect(which.stdout.contains("node run --gateway \(Home.id) --commands system.which\n"), "\(which)")
        let unknown = try home.run(["node", "install", "--print", "--commands", "system.run"])
        #expect(unknown.status == 2, "\(unknown)")
    }

    @Test("without a node pairing, install says how to pair (exit 3)")
    func notANode() throws {
        let directory = NSTemporaryDirectory() + "clawpair-nodeunit-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try ClawpairBinary.run(["node", "install", "--print"], environment: ["CLAWPAIR_HOME": directory, "HOME": directory])
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("clawpair pair - < code.txt"), "\(result)")
    }

    @Test("node run without its pairing (store missing, empty, or no node token) says so and exits 78, which the units do not restart")
    func runWithoutPairing() throws {
        let home = try Home()
        defer { home.remove() }
        let store = home.directory + "/.config/clawpair"
        try FileManager.default.removeItem(atPath: store + "/gateways/\(Home.id).json")
        let unpaired = try home.run(["node", "run"])
        #expect(unpaired.status == 78, "\(unpaired)")
        #expect(unpaired.stderr.contains("not paired as a node") && unpaired.stderr.contains("clawpair pair - < code.txt"), "\(unpaired)")
        let named = try home.run(["node", "run", "--gateway", "lab"])
        #expect(named.status == 78 && named.stderr.contains("clawpair pair - < code.txt"), "\(named)")
        try FileManager.default.removeItem(atPath: store)
        let missing = try home.run(["node", "run", "--json"])
        #expect(missing.status == 78, "\(missing)")
        let document = try JSONSerialization.jsonObject(with: Data(missing.stdout.utf8)) as? [String: Any]
        let error = document?["error"] as? [String: Any]
        #expect(document?["ok"] as? Bool == false && error?["code"] as? String == "configuration", "\(missing)")
        #expect((error?["message"] as? String)?.contains("the clawpair store \(store) does not exist") == true, "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: store), "node run creates no empty store")
    }

    @Test("both units keep upstream's restart policy, are Type=notify with a watchdog, and verify")
    func policyAndVerify() throws {
        let prefix = try SystemdUnitTests.installUnits(name: "clawpair-nodeunits")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let runtime = "\(prefix)/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let env = ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime]
        for (kind, flag) in [("system", [String]()), ("user", ["--user"])] {
            let path = "\(prefix)/lib/systemd/\(kind)/clawpair-node.service"
            let unit = try SystemdUnit(path: path)
            #expect(unit.value("Service", "ExecStart") == "\(prefix)/bin/clawpair node run", "\(kind)")
            #expect(unit.value("Service", "Restart") == "always")
            #expect(unit.value("Service", "RestartSec") == "5")
            #expect(unit.value("Service", "RestartPreventExitStatus") == "78")
            #expect(unit.value("Service", "Type") == "notify")
            #expect(unit.value("Service", "WatchdogSec") != nil)
            #expect(unit.value("Service", "RestrictAddressFamilies") == "AF_UNIX AF_INET AF_INET6 AF_NETLINK")
            #expect(unit.values("Service", "SystemCallFilter").first == "@system-service")
            let verify = try ClawpairBinary.runProgram("/usr/bin/systemd-analyze", flag + ["verify", "--man=no", path], environment: env)
            #expect(verify.status == 0 && verify.stderr.isEmpty, "\(kind): \(verify)")
        }
    }

    @Test("each unit's exposure in systemd-analyze security --offline=true is at most 2.0")
    func exposure() throws {
        for (kind, path) in Self.packaged {
            // Scored as a system unit: the user unit then also pays for running as root, an upper bound.
            let scratch = NSTemporaryDirectory() + "clawpair-exposure-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            try FileManager.default.copyItem(atPath: path, toPath: scratch + "/clawpair-node.service")
            let result = try ClawpairBinary.runProgram("/usr/bin/systemd-analyze",
                                                       ["security", "--offline=true", "--no-pager", scratch + "/clawpair-node.service"],
                                                       environment: ["PATH": "/usr/bin:/bin"])
            let line = result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") }.map(String.init) ?? ""
            // "→ Overall exposure level for clawpair-node.service: 1.1 OK :-)"
            let after = line.components(separatedBy: ".service: ").dropFirst().first ?? ""
            let score = after.split(separator: " ").first.flatMap { Double($0) }
            #expect(score != nil, "\(kind): \(result)")
            #expect((score ?? 10) <= 2.0, "\(kind): \(line)")
        }
    }
}
