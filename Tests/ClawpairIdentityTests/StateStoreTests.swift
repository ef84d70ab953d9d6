@testable import ClawpairIdentity
import ClawpairTestSupport
import Foundation
import Testing

/// `OpenClawStateStore`: OpenClaw's `state/openclaw.sqlite`, built here by python3's sqlite3 with
/// the upstream schema (`src/state/openclaw-state-schema.sql`), and hostile look-alikes.
@Suite struct StateStoreTests {
    static let schema = SQLiteFixture.openClawSchema

    static func build(_ path: String, sql: String, statements: [(String, [Any])] = []) throws {
        let result = try SQLiteFixture.build(path, sql: sql, statements: statements)
        #expect(result.status == 0, "\(result)")
    }

    /// The TS-form PEMs of `identity`.
    static func pems(_ identity: DeviceIdentity) throws -> (publicKey: String, privateKey: String) {
        let bytes = try IdentityFile.withEncoded(identity, form: .openclaw) { Array($0) }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        return (try #require(object["publicKeyPem"] as? String), try #require(object["privateKeyPem"] as? String))
    }

    static func identityRow(_ identity: DeviceIdentity, deviceId: String? = nil, privateKey: String? = nil) throws -> (String, [Any]) {
        let (pub, priv) = try pems(identity)
        return ("INSERT INTO device_identities VALUES ('primary', ?, ?, ?, 1700000000000, 1700000000001)",
                [deviceId ?? identity.deviceId, pub, privateKey ?? priv])
    }

    static func expectStateStoreError(_ path: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try OpenClawStateStore.read(path: path, defaultCreatedAtMs: 0)
            Issue.record("read \(path)", sourceLocation: sourceLocation)
        } catch {
            guard case let .stateStore(errorPath, reason) = error else {
                Issue.record("\(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(errorPath == path, sourceLocation: sourceLocation)
            #expect(reason.contains(fragment), "\(reason)", sourceLocation: sourceLocation)
        }
    }

    @Test func readsTheUpstreamStoreWithoutTouchingIt() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let identity = try DeviceIdentity.generate(createdAtMs: 5)
        let other = try DeviceIdentity.generate(createdAtMs: 5)
        let path = dir + "/openclaw.sqlite"
        try Self.build(path, sql: Self.schema, statements: [
            try Self.identityRow(identity),
            ("INSERT INTO device_auth_tokens VALUES (?, 'operator', 'tok-op', '[\"operator.read\",\"operator.write\"]', 20)", [identity.deviceId]),
            ("INSERT INTO device_auth_tokens VALUES (?, 'node', 'tok-node', '[]', 10)", [identity.deviceId]),
            ("INSERT INTO device_auth_tokens VALUES (?, 'operator', 'not-mine', '[]', 30)", [other.deviceId]),
        ])
        chmod(path, 0o600)
        let before = try FileManager.default.attributesOfItem(atPath: path)
        let store = try OpenClawStateStore.read(path: path, defaultCreatedAtMs: 0)
        #expect(store.identity.identity.publicKey == identity.publicKey)
        #expect(store.identity.identity.deviceId == identity.deviceId && store.identity.deviceIdMatches)
        #expect(store.identity.identity.createdAtMs == 1_700_000_000_000)
        #expect(store.identity.form == .openclaw)
        #expect(store.tokens.deviceId == identity.deviceId)
        #expect(store.tokens.entries == [
            DeviceTokenCache.Entry(token: "tok-node", role: "node", scopes: [], updatedAtMs: 10),
            DeviceTokenCache.Entry(token: "tok-op", role: "operator", scopes: ["operator.read", "operator.write"], updatedAtMs: 20),
        ])
        #expect(store.openedImmutable)
        // Nothing written: same size and mtime, no journal, WAL or shared-memory file created.
        let after = try FileManager.default.attributesOfItem(atPath: path)
        #expect(before[.modificationDate] as? Date == after[.modificationDate] as? Date)
        #expect(before[.size] as? Int == after[.size] as? Int)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["openclaw.sqlite"])
    }

    @Test func hostileAndForeignStores() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let identity = try DeviceIdentity.generate(createdAtMs: 5)

        let text = dir + "/passwd"
        try "root:x:0:0:root:/root:/bin/bash\n".write(toFile: text, atomically: true, encoding: .utf8)
        chmod(text, 0o600)
        Self.expectStateStoreError(text, "not an SQLite database")

        let damaged = dir + "/damaged.sqlite"
        try Data(Array("SQLite format 3".utf8) + [0] + [UInt8](repeating: 0xA5, count: 4096)).write(to: URL(fileURLWithPath: damaged))
        #expect(throws: IdentityError.self) { try OpenClawStateStore.read(path: damaged, defaultCreatedAtMs: 0) }

        let foreign = dir + "/foreign.sqlite"
        try Self.build(foreign, sql: "CREATE TABLE notes (body TEXT);")
        Self.expectStateStoreError(foreign, "no device_identities table")

        let wrongSchema = dir + "/wrong.sqlite"
        try Self.build(wrongSchema, sql: "CREATE TABLE device_identities (identity_key TEXT, blob BLOB);")
        Self.expectStateStoreError(wrongSchema, "not OpenClaw's state store schema")

        let empty = dir + "/empty.sqlite"
        try Self.build(empty, sql: Self.schema)
        Self.expectStateStoreError(empty, "holds no device identity")

        let huge = dir + "/huge.sqlite"
        try Self.build(huge, sql: Self.schema, statements: [
            try Self.identityRow(identity, privateKey: String(repeating: "A", count: 200_000)),
        ])
        #expect(throws: IdentityError.self) { try OpenClawStateStore.read(path: huge, defaultCreatedAtMs: 0) }

        let mismatched = dir + "/mismatched.sqlite"
        let stranger = try DeviceIdentity.generate(createdAtMs: 5)
        try Self.build(mismatched, sql: Self.schema, statements: [
            try Self.identityRow(identity, privateKey: try Self.pems(stranger).privateKey),
        ])
        Self.expectStateStoreError(mismatched, "the primary device identity is invalid")

        let badScopes = dir + "/scopes.sqlite"
        try Self.build(badScopes, sql: Self.schema, statements: [
            try Self.identityRow(identity),
            ("INSERT INTO device_auth_tokens VALUES (?, 'operator', 't', '{\"a\":1}', 1)", [identity.deviceId]),
        ])
        Self.expectStateStoreError(badScopes, "is not a JSON array")

        let manyTokens = dir + "/many.sqlite"
        try Self.build(manyTokens, sql: Self.schema, statements: [try Self.identityRow(identity)]
            + (0...OpenClawStateStore.maxTokenRows).map { ("INSERT INTO device_auth_tokens VALUES (?, 'role\($0)', 't', '[]', 1)", [identity.deviceId]) })
        Self.expectStateStoreError(manyTokens, "more than \(OpenClawStateStore.maxTokenRows) device tokens")

        // A FIFO is refused without opening it (opening would block).
        let fifo = dir + "/fifo.sqlite"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: IdentityError.notARegularFile(path: fifo)) { try OpenClawStateStore.read(path: fifo, defaultCreatedAtMs: 0) }
        #expect(throws: IdentityError.noIdentity(path: dir + "/absent.sqlite")) {
            try OpenClawStateStore.read(path: dir + "/absent.sqlite", defaultCreatedAtMs: 0)
        }
    }

    @Test func defaultPathFollowsUpstream() {
        #expect(OpenClawStateStore.defaultPath(environment: ["HOME": "/home/a"]) == "/home/a/.openclaw/state/openclaw.sqlite")
        #expect(OpenClawStateStore.defaultPath(environment: ["HOME": "/home/a", "OPENCLAW_STATE_DIR": "/srv/oc"])
                == "/srv/oc/state/openclaw.sqlite")
        #expect(OpenClawStateStore.defaultPath(environment: ["OPENCLAW_STATE_DIR": ""]) == nil)
        #expect(OpenClawStateStore.isDatabase(prefix: Array("SQLite format 3".utf8) + [0, 1]))
        #expect(!OpenClawStateStore.isDatabase(prefix: Array("SQLite format 3".utf8)))
    }

    // MARK: Issue #25.5, #25.11, #25.12

    @Test("a WAL-mode store is read (rows only in its -wal) and nothing is created beside it (#25.11)")
    func walModeStoreCreatesNothing() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let identity = try DeviceIdentity.generate(createdAtMs: 5)
        let path = dir + "/openclaw.sqlite"
        let built = try SQLiteFixture.buildWAL(path, sql: Self.schema, statements: [
            try Self.identityRow(identity),
            ("INSERT INTO device_auth_tokens VALUES (?, 'node', 'tok-node', '[]', 10)", [identity.deviceId]),
        ])
        #expect(built.status == 0, "\(built)")
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(before == ["openclaw.sqlite", "openclaw.sqlite-wal"])
        let store = try OpenClawStateStore.read(path: path, defaultCreatedAtMs: 0)
        #expect(store.identity.identity.deviceId == identity.deviceId)
        #expect(store.tokens.entries.map(\.token) == ["tok-node"])
        #expect(!store.openedImmutable)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == before, "no -shm or journal beside the store")
    }

    @Test("a store that is a symbolic link or readable by others is refused, as key files are (#25.12)")
    func storeFileChecks() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let identity = try DeviceIdentity.generate(createdAtMs: 5)
        let path = dir + "/openclaw.sqlite"
        try Self.build(path, sql: Self.schema, statements: [try Self.identityRow(identity)])
        let link = dir + "/link.sqlite"
        #expect(symlink(path, link) == 0)
        #expect(throws: IdentityError.symlink(path: link)) { try OpenClawStateStore.read(path: link, defaultCreatedAtMs: 0) }
        chmod(path, 0o644)
        #expect(throws: IdentityError.unsafePermissions(path: path, mode: 0o100644)) {
            try OpenClawStateStore.read(path: path, defaultCreatedAtMs: 0)
        }
    }

    @Test("an endless recursive view as the identity table is refused before it is queried (#25.5)")
    func recursiveViewIsRefused() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/openclaw.sqlite"
        try Self.build(path, sql: """
            CREATE VIEW device_identities AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n)
              SELECT 'primary' AS identity_key, 'a' AS device_id, 'p' AS public_key_pem, 'k' AS private_key_pem,
                     1 AS created_at_ms FROM n WHERE x < 0;
            """)
        Self.expectStateStoreError(path, "device_identities is a view, not a table")
    }

    @Test("every query is bounded: a table scan beyond the step budget is interrupted with a clear error (#25.5)")
    func queriesAreBounded() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let identity = try DeviceIdentity.generate(createdAtMs: 5)
        let path = dir + "/openclaw.sqlite"
        // Many rows of other devices in a token table without its primary key: the query scans them all.
        try Self.build(path, sql: """
            CREATE TABLE device_identities (identity_key TEXT NOT NULL PRIMARY KEY, device_id TEXT NOT NULL,
              public_key_pem TEXT NOT NULL, private_key_pem TEXT NOT NULL, created_at_ms INTEGER NOT NULL,
              updated_at_ms INTEGER NOT NULL) STRICT;
            CREATE TABLE device_auth_tokens (device_id TEXT, role TEXT, token TEXT, scopes_json TEXT, updated_at_ms INTEGER);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000)
              INSERT INTO device_auth_tokens SELECT printf('%064x', x), 'node', 't', '[]', x FROM n;
            """, statements: [try Self.identityRow(identity)])
        let honest = try OpenClawStateStore.readSQLite(path: path, defaultCreatedAtMs: 0)
        #expect(honest.tokens.entries.isEmpty)
        var tight = StateStoreLimits()
        tight.maxSteps = 5_000
        do {
            _ = try OpenClawStateStore.readSQLite(path: path, defaultCreatedAtMs: 0, limits: tight)
            Issue.record("the scan was not interrupted")
        } catch {
            guard case .stateStore(_, let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("did not finish within its limits"), "\(reason)")
        }
    }
}
