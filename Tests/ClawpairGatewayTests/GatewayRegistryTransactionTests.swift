import ClawpairCore
import ClawpairTestSupport
import Foundation
import Testing
@testable import ClawpairGateway

/// Transactions, the key-file rules for records, the record limit, and two processes racing.
@Suite struct GatewayRegistryTransactionTests {
    static func withDirectory(_ body: (String) async throws -> Void) async throws {
        let home = NSTemporaryDirectory() + "clawpair-registry-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: home) }
        try await body(home)
    }

    /// A registry in a fresh directory holding one gateway called `name` (selected, unless not).
    static func withGateway(_ name: String, selected: Bool = true,
                            _ body: (GatewayRegistry, PairedGateway, String) async throws -> Void) async throws {
        try await withDirectory { home in
            let registry = GatewayRegistry(home: home)
            let gateway = Self.gateway(name)
            try registry.save(gateway)
            if selected { try registry.setActive(gateway) }
            try await body(registry, gateway, home)
        }
    }

    static func gateway(_ name: String, url: String = "ws://192.168.1.5:18789") -> PairedGateway {
        PairedGateway(name: name, urls: [url], deviceId: "d1", pairedAtMs: 1)
    }

    static func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test("update writes what changed, and nothing when the change throws; the lock file is 0600")
    func updateIsAllOrNothing() async throws {
        try await Self.withGateway("a", selected: false) { registry, a, _ in
            #expect(try Self.mode(registry.lockPath) == 0o600)
            #expect(throws: GatewayRegistryError.io("stop")) {
                try registry.update { (snapshot: inout RegistrySnapshot) throws(GatewayRegistryError) in
                    snapshot.gateways[0].name = "renamed"
                    snapshot.activeID = a.id
                    throw .io("stop")
                }
            }
            #expect(try registry.gateway(named: "a") == a)
            #expect(registry.active() == nil)

            let b = Self.gateway("b", url: "ws://10.0.0.2:18789")
            let chosen = try registry.update { (snapshot: inout RegistrySnapshot) throws(GatewayRegistryError) -> String in
                try snapshot.save(b)
                try snapshot.setActive(id: b.id)
                return snapshot.uniqueName("a")
            }
            #expect(chosen == "a-2")
            #expect(registry.active() == b)
            #expect(registry.list().gateways.map(\.name) == ["a", "b"])

            #expect(throws: GatewayRegistryError.nameTaken("a")) {
                try registry.update { snapshot in snapshot.gateways[1].name = "a" }
            }
            let renamed = try registry.update { (snapshot: inout RegistrySnapshot) throws(GatewayRegistryError) in
                try snapshot.setActive(id: a.id)
                return snapshot.active?.name
            }
            #expect(renamed == "a")
        }
    }

    @Test("update(id:) changes a record only while it exists: a copy read before a forget does not bring it back")
    func updateByIDAfterForget() async throws {
        try await Self.withGateway("a") { registry, a, _ in
            let copy = try registry.gateway(named: "a")
            #expect(try registry.update(id: copy.id) { $0.lastSeenAtMs = 7 }?.lastSeenAtMs == 7)
            try registry.forget(copy)
            #expect(try registry.update(id: copy.id) { $0.lastSeenAtMs = 8 } == nil)
            #expect(registry.list().gateways.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: registry.directory + "/\(a.id).json"))
            #expect(!FileManager.default.fileExists(atPath: registry.directory + "/active"))
        }
    }

    @Test("records others can read, and symbolic links, are refused with the file named, never used")
    func insecureRecords() async throws {
        try await Self.withGateway("open") { registry, open, home in
            let file = registry.directory + "/\(open.id).json"
            chmod(file, 0o644)
            let (gateways, problems) = registry.list()
            #expect(gateways.isEmpty)
            #expect(problems == [.insecureFile(path: file, mode: UInt32(S_IFREG) | 0o644)])
            #expect(problems.first?.message.contains("mode 644") == true)
            #expect(throws: GatewayRegistryError.insecureFile(path: file, mode: UInt32(S_IFREG) | 0o644)) {
                try registry.gateway(named: "open")
            }
            #expect(registry.active() == nil)
            #expect(registry.gateway(url: open.urls[0]) == nil)

            chmod(file, 0o600)
            chmod(registry.directory + "/active", 0o640)
            #expect(registry.active() == nil)
            #expect(registry.list().damaged.count == 1)
            chmod(registry.directory + "/active", 0o600)
            #expect(registry.active() == open)

            let elsewhere = home + "/elsewhere.json"
            try FileManager.default.moveItem(atPath: file, toPath: elsewhere)
            try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: elsewhere)
            #expect(registry.list().damaged == [.symlink(path: file)])
            #expect(registry.list().gateways.isEmpty)
        }
    }

    @Test("a symbolic link as the lock file is refused")
    func lockSymlink() async throws {
        try await Self.withDirectory { home in
            let registry = GatewayRegistry(home: home)
            try FileManager.default.createDirectory(atPath: registry.directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try FileManager.default.createSymbolicLink(atPath: registry.lockPath, withDestinationPath: home + "/target")
            #expect(throws: GatewayRegistryError.symlink(path: registry.lockPath)) { try registry.save(Self.gateway("a")) }
            #expect(!FileManager.default.fileExists(atPath: home + "/target"))
        }
    }

    @Test("more records than the limit: reported, and changes are refused rather than made on part of the registry")
    func recordLimit() async throws {
        try await Self.withDirectory { home in
            let roomy = GatewayRegistry(home: home, maxRecords: 4)
            for n in 1...4 { try roomy.save(Self.gateway("g\(n)", url: "ws://10.0.0.\(n):18789")) }
            #expect(roomy.list().gateways.count == 4)
            #expect(roomy.list().damaged.isEmpty)

            let tight = GatewayRegistry(home: home, maxRecords: 3)
            let (gateways, problems) = tight.list()
            #expect(gateways.count == 3)
            #expect(problems == [.tooManyRecords(directory: tight.directory, limit: 3)])
            #expect(throws: GatewayRegistryError.tooManyRecords(directory: tight.directory, limit: 3)) {
                try tight.save(Self.gateway("g5", url: "ws://10.0.0.5:18789"))
            }
            let unread = try #require(roomy.list().gateways.first { !gateways.contains($0) })
            #expect(throws: GatewayRegistryError.tooManyRecords(directory: tight.directory, limit: 3),
                    "a name that may be among the unread records is not 'unknown'") {
                try tight.gateway(named: unread.name)
            }
            // Forgetting by id works past the bound; then every record is read again.
            #expect(try tight.forget(id: unread.id) == tight.directory + "/\(unread.id).json")
            #expect(tight.list().damaged.isEmpty)
            #expect(tight.list().gateways.count == 3)
            #expect(GatewayRegistry.defaultMaxRecords > 256)
        }
    }

    /// The `registry-race` helper, built beside the test bundle and the clawpair binary.
    static var helper: String {
        URL(fileURLWithPath: ClawpairBinary.path).deletingLastPathComponent().appendingPathComponent("registry-race").path
    }

    /// Starts `runs` together (each waits for its byte from the FIFO `go`) and waits for all to exit 0.
    static func race(_ runs: [[String]], go: String) async throws -> [ChildProcess] {
        try FileManager.default.createDirectory(atPath: (go as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard mkfifo(go, 0o600) == 0 else { throw TestError("mkfifo \(go): errno \(errno)") }
        // Held open for writing (read-write never blocks on Linux), so each helper's open returns at once.
        let writer = open(go, O_RDWR)
        guard writer >= 0 else { throw TestError("open \(go): errno \(errno)") }
        defer { close(writer) }
        let children = try runs.map { try Subprocess.spawn([helper] + $0, label: "registry-race \($0[0])") }
        do {
            let bytes = [UInt8](repeating: 1, count: children.count)
            guard write(writer, bytes, bytes.count) == bytes.count else { throw TestError("write \(go): errno \(errno)") }
            for child in children {
                let status = try await child.waitForExit(timeout: .milliseconds(Harness.hangSlackMs + 30_000))
                #expect(status == .exited(0), "\(child.outputExcerpt)")
            }
        } catch {
            for child in children { _ = await child.terminate(grace: .seconds(1)) }
            throw error
        }
        return children
    }

    @Test("two processes committing to one record 50 times each lose no write: every token and URL is there")
    func concurrentCommitsLoseNothing() async throws {
        try await Self.withGateway("shared", selected: false) { registry, record, home in
            let go = home + "/go"
            _ = try await Self.race([["commit", registry.directory, go, record.id, "node", "50"],
                                     ["commit", registry.directory, go, record.id, "operator", "50"]], go: go)
            let stored = try registry.gateway(named: "shared")
            #expect(stored.tokens.map(\.token) == ["node-49", "operator-49"])
            let added = Set(stored.urls.filter { $0.hasSuffix(".invalid:1") })
            let expected = Set((0..<50).flatMap { ["ws://node-\($0).invalid:1", "ws://operator-\($0).invalid:1"] })
            #expect(added == expected, "lost: \(expected.subtracting(added).sorted())")
            #expect(stored.urls.count == 101)
        }
    }

    @Test("50 rounds of add-and-forget against a process touching each record: no forgotten record comes back")
    func forgetWinsOverTouch() async throws {
        try await Self.withDirectory { home in
            let registry = GatewayRegistry(home: home)
            let go = home + "/go"
            _ = try await Self.race([["churn", registry.directory, go, "50"], ["touch", registry.directory, go, "50"]], go: go)
            let (gateways, problems) = registry.list()
            #expect(gateways.map(\.name) == [])
            #expect(problems.isEmpty)
            let left = try FileManager.default.contentsOfDirectory(atPath: registry.directory).filter { !$0.hasPrefix(".") }
            #expect(left.isEmpty, "\(left)")
        }
    }
}
