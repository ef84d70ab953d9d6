import ClawpairCore
import ClawpairIdentity
import Foundation
import Testing
@testable import ClawpairGateway

/// Issue #25 findings that live in the registry: records it could not read back (6), temporaries
/// of a killed writer (14), waiting for another process's lock (15), what a gateway may grant (4).
@Suite struct RegistryHardeningTests {
    static func withRegistry(_ body: (GatewayRegistry, String) throws -> Void) throws {
        let home = NSTemporaryDirectory() + "clawpair-hardening-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: home) }
        try body(GatewayRegistry(home: home), home)
    }

    static func record(_ name: String, token: String = "t") -> PairedGateway {
        PairedGateway(name: name, urls: ["ws://192.168.1.5:18789"], deviceId: "d1",
                      tokens: [StoredDeviceToken(token: token, role: "operator", scopes: ["operator.read"], issuedAtMs: 1)], pairedAtMs: 1)
    }

    @Test("a record too large to read back is refused before anything is written; the old one stays (#25.6)")
    func oversizedRecordIsRefused() throws {
        try Self.withRegistry { registry, _ in
            var home = Self.record("home")
            try registry.save(home)
            try registry.setActive(home)
            home.store(StoredDeviceToken(token: String(repeating: "x", count: GatewayRegistry.maxRecordBytes), role: "node", scopes: [],
                                         issuedAtMs: 1))
            do {
                try registry.save(home)
                Issue.record("wrote a record it cannot read back")
            } catch let error as GatewayRegistryError {
                guard case .recordTooLarge(let name, let bytes, let limit) = error else { Issue.record("\(error)"); return }
                #expect(name == "home" && bytes > limit && limit == GatewayRegistry.maxRecordBytes)
            }
            let after = registry.snapshot()
            #expect(after.gateways.map(\.tokens.count) == [1], "the stored record is unchanged, not vanished")
            #expect(after.problems.isEmpty && after.activeID == home.id)
        }
    }

    @Test("a hello-ok granting an oversized token or names with controls is refused; pairing stores nothing (#25.4, #25.6)")
    func hostileGrantsAreRefused() throws {
        func hello(role: String = "node", scopes: [String] = [], token: String = "node-token") -> HelloOK {
            HelloOK(.object([("type", "hello-ok"), ("protocol", 3),
                             ("auth", .object([("deviceToken", .string(token)), ("role", .string(role)),
                                               ("scopes", .array(scopes.map(JSONValue.string)))]))]))!
        }
        #expect(hello().grantProblem == nil)
        #expect(hello(role: "node", scopes: ["operator.read", "operator.admin"]).grantProblem == nil)
        #expect(hello(role: "node\u{1B}]52;c;aGk=\u{07}").grantProblem != nil)
        #expect(hello(scopes: ["operator.read\u{1B}[2J"]).grantProblem != nil)
        #expect(hello(scopes: ["\u{202E}evil"]).grantProblem != nil)
        #expect(hello(token: String(repeating: "a", count: HelloOK.maxDeviceTokenBytes + 1)).grantProblem != nil)
        #expect(hello(token: "tok\u{1B}[2J").grantProblem != nil)
        #expect(HelloOK.accepting(hello(role: "x\u{9B}").raw, requested: 3...4).isFailure)

        let (outcome, run) = try GatewayPairingTests.pair([.success(PairingHello(hello: hello(scopes: ["a\u{1B}]0;title\u{07}"])))])
        defer { GatewayPairingTests.cleanUp(run) }
        guard case .failure(.gateway(.protocolViolation)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(run.registry.snapshot().gateways.isEmpty, "nothing stored")
    }

    @Test("the default gateway's record unreadable: operator commands say so instead of using another gateway (#25.6)")
    func unreadableDefaultIsReported() throws {
        try Self.withRegistry { registry, _ in
            let home = Self.record("home")
            try registry.save(home)
            try registry.setActive(home)
            let file = registry.directory + "/\(home.id).json"
            try String(repeating: " ", count: GatewayRegistry.maxRecordBytes + 1).write(toFile: file, atomically: false, encoding: .utf8)
            #expect(registry.snapshot().unreadableActive != nil)
            #expect(throws: GatewayRegistryError.self) {
                try OperatorTarget.resolve(.automatic, environment: [:], registry: registry)
            }
        }
    }

    @Test("a temporary left by a writer killed while creating a new record is removed by the next change (#25.14)")
    func staleTemporariesAreSwept() throws {
        try Self.withRegistry { registry, _ in
            try registry.save(Self.record("first"))
            // A pid that surely is gone: a child that has exited and was reaped.
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/true")
            try child.run()
            child.waitUntilExit()
            let dead = child.processIdentifier
            let stale = registry.directory + "/.gw-00000000000000aa.json.tmp-\(dead)-abc"
            let live = registry.directory + "/.gw-00000000000000bb.json.tmp-\(getpid())-def"
            for path in [stale, live] { #expect(FileManager.default.createFile(atPath: path, contents: Data("secret".utf8))) }
            try registry.save(Self.record("second"))
            #expect(!FileManager.default.fileExists(atPath: stale), "the dead writer's token file is gone")
            #expect(FileManager.default.fileExists(atPath: live), "a live writer's temporary is left alone")
        }
    }

    @Test("a change waiting for another process's lock says so once, names the holder, and gives up at its timeout (#25.15)")
    func lockWaitIsReportedAndBounded() throws {
        try Self.withRegistry { registry, _ in
            try registry.save(Self.record("home"))
            let fd = open(registry.lockPath, O_RDWR | O_CLOEXEC)
            #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
            defer { close(fd) }
            final class Heard: @unchecked Sendable {
                var notices: [(String, Int32?)] = []
            }
            let heard = Heard()
            var waiting = registry
            waiting.lockTimeout = GatewayRegistry.lockNoticeAfter + .milliseconds(200)
            waiting.onLockWait = { path, holder in heard.notices.append((path, holder)) }
            do {
                try waiting.save(Self.record("other"))
                Issue.record("changed the registry while another process held its lock")
            } catch let error as GatewayRegistryError {
                guard case .lockTimeout(let path, let holder, _) = error else { Issue.record("\(error)"); return }
                #expect(path == registry.lockPath && holder == getpid())
                #expect(error.code == "registry-busy")
            }
            #expect(heard.notices.count == 1 && heard.notices.first?.0 == registry.lockPath)
            #expect(registry.list().gateways.map(\.name) == ["home"], "nothing was changed")
        }
    }
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
