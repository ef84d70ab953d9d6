import ClawpairTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The JSON contract of clawpair(1) (issue #24 §14), checked against the man page itself: with
/// --json a failing command prints one document whose first member is "ok": false, then an
/// "error" object with a code the man page lists, and exits with the status the page gives that
/// code. Every command's usage failure, then the failure paths that broke it: discover finding
/// nothing, qr scan without a code, nodes list --connected with none connected, gateways check
/// refused and unreachable (the stand-in gateway on loopback).
@Suite("clawpair --json: the failure envelope of every command", .serialized)
struct JSONContractTests {
    /// The codes clawpair(1)'s JSON OUTPUT lists, each with the exit status it names (nil: none named).
    static func documentedCodes() throws -> [String: Int?] {
        let page = try String(contentsOfFile: SpecFiles.packageRoot.appendingPathComponent("Man/clawpair.1").path, encoding: .utf8)
        let section = try #require(page.components(separatedBy: ".SH JSON OUTPUT").dropFirst().first?
            .components(separatedBy: "\n.SH ").first)
        var codes: [String: Int?] = [:]
        for line in section.split(separator: "\n") where !line.hasPrefix(".") {
            let text = line.replacingOccurrences(of: "\\-", with: "-")
            guard let colon = text.firstIndex(of: ":") else { continue }
            let name = String(text[..<colon])
            let rest = String(text[text.index(after: colon)...])
            let status = rest.range(of: #"\(exit (\d)\)"#, options: .regularExpression).map { Int(rest[$0].dropFirst(6).dropLast())! }
            if name.hasSuffix(" errors") {
                for code in rest.split(separator: ",") { codes[code.trimmingCharacters(in: .whitespaces)] = .some(nil) }
            } else if !name.contains(" ") {
                codes[name] = status
            }
        }
        return codes
    }

    /// Every command of the man pages (`clawpair-devices-approve.1` is `devices approve`) that
    /// has no subcommands of its own.
    static func leafCommands() throws -> [[String]] {
        let dashed = ["setup-code", "join-code", "sign-connect"]
        let commands = try FileManager.default.contentsOfDirectory(atPath: SpecFiles.packageRoot.appendingPathComponent("Man").path)
            .filter { $0.hasPrefix("clawpair-") && $0.hasSuffix(".1") }
            .map { file -> [String] in
                var stem = String(file.dropFirst("clawpair-".count).dropLast(2))
                for name in dashed { stem = stem.replacingOccurrences(of: name, with: name.replacingOccurrences(of: "-", with: "_")) }
                return stem.split(separator: "-").map { $0.replacingOccurrences(of: "_", with: "-") }
            }
        return commands.filter { command in !commands.contains { $0.count > command.count && Array($0.prefix(command.count)) == command } }
    }

    /// Checks `result` against the contract; returns the document.
    @discardableResult
    static func checkFailure(_ result: ClawpairBinary.Result, code: String? = nil, status: Int32? = nil,
                             _ what: String, codes: [String: Int?]) throws -> [String: Any] {
        #expect(result.status != 0, "\(what) failed: \(result)")
        if let status { #expect(result.status == status, "\(what): \(result)") }
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text.hasPrefix("{") && text.dropFirst().trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("\"ok\": false"),
                "\(what): the first member is \"ok\": false: \(result.stdout)")
        let document = try GatewayCommandTests.json(result.stdout)
        let error = try #require(document["error"] as? [String: Any], "\(what): an error object: \(result.stdout)")
        let shown = try #require(error["code"] as? String, "\(what): a code: \(result.stdout)")
        if let code { #expect(shown == code, "\(what): \(result.stdout)") }
        #expect(error["message"] is String && error.keys.contains("hint"), "\(what): \(result.stdout)")
        #expect(codes.keys.contains(shown), "\(what): code \(shown) is not in clawpair(1)")
        if case .some(.some(let documented)) = codes[shown] {
            #expect(result.status == Int32(documented), "\(what): \(shown) is exit \(documented) in clawpair(1): \(result)")
        }
        return document
    }

    @Test("every command: an unknown option is a usage error envelope with exit 2")
    func usageEverywhere() throws {
        let codes = try Self.documentedCodes()
        #expect(codes["usage"] == .some(2) && codes["not-found"] == .some(3) && codes["auth-rejected"] == .some(4))
        let commands = try Self.leafCommands()
        #expect(commands.contains(["devices", "join-code"]) && commands.contains(["setup-code", "decode"])
                && commands.contains(["identity", "sign-connect"]) && commands.count > 30, "\(commands)")
        try GatewayCommandTests.withHomeSync { home in
            for command in commands {
                let result = try home.run(command + ["--json", "--no-such-option"])
                try Self.checkFailure(result, code: "usage", status: 2, command.joined(separator: " "), codes: codes)
            }
        }
    }

    @Test("discover that finds nothing: exit 3 with \"ok\": false and not-found before what it searched")
    func discoverNothing() throws {
        let result = try ClawpairBinary.run(["discover", "--wide-area-only", "--dns-server", "127.0.0.1:9",
                                             "--domain", "plain.example", "--timeout", "300ms", "--json"])
        let document = try Self.checkFailure(result, code: "not-found", status: 3, "discover", codes: try Self.documentedCodes())
        #expect(document["beacons"] is [Any], "the search's own members stay: \(result.stdout)")
    }

    @Test("qr scan: an image with no code and a file that is no image each fail with an error object")
    func qrScanFailures() throws {
        let codes = try Self.documentedCodes()
        try GatewayCommandTests.withHomeSync { home in
            // A blank 8x8 binary PGM: an image without a code.
            let blank = home.directory + "/blank.pgm"
            try Data("P5 8 8 255\n".utf8 + [UInt8](repeating: 255, count: 64)).write(to: URL(fileURLWithPath: blank))
            let none = try home.run(["qr", "scan", "--json", blank])
            let empty = try Self.checkFailure(none, code: "not-found", status: 3, "qr scan of a blank image", codes: codes)
            #expect(empty["found"] as? Int == 0, "\(none.stdout)")
            let text = home.directory + "/text.png"
            try "not an image".write(toFile: text, atomically: true, encoding: .utf8)
            let notImage = try home.run(["qr", "scan", "--json", text])
            let document = try Self.checkFailure(notImage, status: 1, "qr scan of a text file", codes: codes)
            #expect(document["images"] is [Any], "\(notImage.stdout)")
        }
    }

    @Test("nodes list --connected with none connected, gateways check refused then unreachable: ok false, the right code and status")
    func gatewayFailures() async throws {
        let codes = try Self.documentedCodes()
        try await GatewayCommandTests.withHome { home in
            let nodeHome = ["CLAWPAIR_HOME": home.directory + "/node"]
            var port = 0
            try await withTestGateway(TestGatewayOptions(token: GatewayCommandTests.token)) { gateway in
                port = gateway.port
                let minted = try home.op(gateway, ["qr", "--setup-code-only", "--node"])
                #expect(minted.status == 0, "\(minted)")
                let paired = try home.run(["pair", "-"], environment: nodeHome, stdin: minted.stdout)
                #expect(paired.status == 0, "\(paired)")

                let connected = try home.op(gateway, ["nodes", "list", "--connected", "--json"])
                let listed = try Self.checkFailure(connected, code: "not-found", status: 3, "nodes list --connected", codes: codes)
                #expect((listed["nodes"] as? [Any])?.isEmpty == true, "\(connected.stdout)")
                let text = try home.op(gateway, ["nodes", "list", "--connected"])
                #expect(text.status == 3 && text.stdout == "No nodes match (1 other offline or not seen recently).\n", "\(text)")

                let accepted = try home.run(["gateways", "check", "--json"], environment: nodeHome)
                #expect(accepted.status == 0, "\(accepted)")
                #expect(try GatewayCommandTests.json(accepted.stdout)["ok"] as? Bool == true, "\(accepted.stdout)")

                let nodeId = try #require((try GatewayCommandTests.json(try home.op(gateway, ["nodes", "list", "--json"]).stdout)["nodes"]
                                           as? [[String: Any]])?.first?["nodeId"] as? String)
                #expect(try home.op(gateway, ["devices", "remove", nodeId]).status == 0)
                let refused = try home.run(["gateways", "check", "--json"], environment: nodeHome)
                let document = try Self.checkFailure(refused, code: "auth-rejected", status: 4, "gateways check (refused)", codes: codes)
                let error = try #require(document["error"] as? [String: Any])
                #expect(error["gateway"] is [String: Any], "the gateway's own error object, as devices list gives: \(refused.stdout)")
                let result = try #require((document["results"] as? [[String: Any]])?.first)
                #expect((result["error"] as? [String: Any])?["code"] as? String == "auth-rejected", "\(refused.stdout)")
                let human = try home.run(["gateways", "check"], environment: nodeHome)
                #expect(human.stdout == "Gateway \(try Self.gatewayName(home, nodeHome)) (\(gateway.url))\nnode: refused\n", "\(human)")
            }
            // The gateway's port, held closed (bound, not listening): a stand-in gateway of a test running
            // beside this one, given the same free port, answered there once and refused the token (4, not 3).
            let held = try #require(Self.holdClosed(port: port), "port \(port) was taken again before it could be held")
            defer { close(held) }
            let gone = try home.run(["gateways", "check", "--json", "--timeout", "2s"], environment: nodeHome)
            try Self.checkFailure(gone, code: "unreachable", status: 3, "gateways check (unreachable)", codes: codes)
        }
    }

    /// A socket bound to `port` on loopback that does not listen: connections there are refused
    /// and no other process can listen on the port while it is open. Nil when it is in use.
    static func holdClosed(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        // Past the closed connections' TIME_WAIT; a listener of another process still makes bind fail.
        var reuse: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// The name of the one paired gateway of `environment`'s store.
    static func gatewayName(_ home: GatewayCommandTests.Home, _ environment: [String: String]) throws -> String {
        let listed = try GatewayCommandTests.json(try home.run(["gateways", "list", "--json"], environment: environment).stdout)
        return try #require((listed["gateways"] as? [[String: Any]])?.first?["name"] as? String)
    }
}

extension GatewayCommandTests {
    /// ``withHome(_:)`` for synchronous bodies.
    static func withHomeSync<T>(_ body: (Home) throws -> T) throws -> T {
        let home = try Home()
        defer { home.remove() }
        return try body(home)
    }
}
