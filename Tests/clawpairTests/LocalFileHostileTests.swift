import ClawpairTestSupport
import Foundation
import Glibc
import Testing

/// Local files an attacker (or an accident) can shape: FIFOs where clawpair reads its registry
/// or OpenClaw's config, temporaries left by a writer killed before its rename, and a token file
/// others can read. Nothing here touches the network except a loopback hostile gateway.
@Suite("clawpair with hostile local files", .serialized)
struct LocalFileHostileTests {
    /// A private home (`CLAWPAIR_HOME=<dir>/home`), removed afterwards.
    struct Home {
        let directory: String
        var home: String { directory + "/home" }
        var environment: [String: String] { ["CLAWPAIR_HOME": home, "HOME": directory] }

        init() throws {
            directory = NSTemporaryDirectory() + "clawpair-files-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory + "/home/gateways", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            chmod(directory + "/home", 0o700)
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        /// Runs clawpair; 20 s only catches a hang (a blocked open of a FIFO never returns).
        func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ClawpairBinary.Result {
            try ClawpairBinary.run(arguments, environment: environment.merging(extra) { _, new in new }, timeoutSeconds: 20)
        }
    }

    static func withHome<T>(_ body: (Home) async throws -> T) async throws -> T {
        let home = try Home()
        defer { home.remove() }
        return try await body(home)
    }

    @Test("a FIFO as gateways/active or as a registry record: gateways list and check answer, never hang")
    func registryFIFOs() async throws {
        try await Self.withHome { home in
            let record = home.home + "/gateways/gw-0123456789abcdef.json"
            #expect(mkfifo(home.home + "/gateways/active", 0o600) == 0)
            #expect(mkfifo(record, 0o600) == 0)
            let list = try home.run(["gateways", "list"])
            #expect(list.status == 0, "\(list)")
            #expect(list.stderr.contains("\(record) is damaged: not a regular file"), "\(list)")
            let check = try home.run(["gateways", "check"])
            #expect(check.status != 0, "\(check)")
            #expect(!check.stderr.isEmpty, "\(check)")
        }
    }

    @Test("a FIFO as OPENCLAW_CONFIG_PATH: the config read is refused, the command goes on")
    func configFIFO() async throws {
        // discover reads discovery.wideArea.domain when no --domain is given; with --wide-area-only
        // and no domain anywhere it then stops with a usage error, before any packet is sent.
        // (Operator commands read gateway.auth only for a loopback gateway named without --url.)
        try await Self.withHome { home in
            let config = home.directory + "/openclaw.json"
            #expect(mkfifo(config, 0o600) == 0)
            let result = try home.run(["discover", "--wide-area-only", "-v"], environment: ["OPENCLAW_CONFIG_PATH": config])
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr.contains("\(config) is not a regular file (it is a FIFO)"), "\(result)")
        }
    }

    @Test("temporaries a killed `identity new --force` left behind are removed by the next write")
    func staleTemporaries() async throws {
        try await Self.withHome { home in
            let created = try home.run(["identity", "new"])
            #expect(created.status == 0, "\(created)")
            // What a writer killed between its write and its rename leaves: a full private key
            // under a name that records its (now gone) pid.
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/true")
            try child.run()
            child.waitUntilExit()
            let identity = home.home + "/identity"
            let stale = "\(identity)/.device.json.tmp-\(child.processIdentifier)-k1ll3d"
            try String(contentsOfFile: identity + "/device.json", encoding: .utf8).write(toFile: stale, atomically: false, encoding: .utf8)
            let again = try home.run(["identity", "new", "--force"])
            #expect(again.status == 0, "\(again)")
            let left = try FileManager.default.contentsOfDirectory(atPath: identity).filter { $0.contains(".tmp-") }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("a --token-file others can read works but warns")
    func sharedTokenFile() async throws {
        let gateway = try await startHostileGateway("huge-policy", ["--tick-ms", "15000"], maxSeconds: 600)
        do { try await Self.withHome { home in
            let file = home.directory + "/token"
            try "secret-token\n".write(toFile: file, atomically: false, encoding: .utf8)
            chmod(file, 0o644)
            let shared = try home.run(["devices", "list", "--url", gateway.url, "--token-file", file])
            #expect(shared.status == 0, "\(shared)")
            #expect(shared.stderr.contains("warning: \(file) holds the gateway token and is accessible to other users (mode 644); "
                                           + "run: chmod 600 \(file)"), "\(shared)")
            chmod(file, 0o600)
            let private_ = try home.run(["devices", "list", "--url", gateway.url, "--token-file", file])
            #expect(private_.status == 0, "\(private_)")
            #expect(!private_.stderr.contains("accessible to other users"), "\(private_)")
        } } catch {
            await gateway.stop()
            throw error
        }
        await gateway.stop()
    }

    @Test("qr scan: a JPEG whose header claims 6000×6600 over a few KiB is a damaged image (exit 1), not \"no QR code\"")
    func forgedJPEG() async throws {
        try await Self.withHome { home in
            let jpeg = home.directory + "/forged.jpg"
            let made = try await Subprocess.run(["/usr/bin/convert", "-size", "64x64", "xc:white", "-quality", "80", "JPEG:\(jpeg)"])
            #expect(made.status == .exited(0), "\(made.stderr)")
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: jpeg)))
            var offset = 2
            while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != 0xC0 {
                offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
            }
            try #require(offset + 9 <= bytes.count && bytes[offset + 1] == 0xC0)
            bytes.replaceSubrange((offset + 5)..<(offset + 9), with: [0x19, 0xC8, 0x17, 0x70])  // 6600 high, 6000 wide
            try Data(bytes).write(to: URL(fileURLWithPath: jpeg))
            let result = try home.run(["qr", "scan", jpeg])
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.hasPrefix("error: \(jpeg): the JPEG image is damaged: "), "\(result)")
        }
    }
}
