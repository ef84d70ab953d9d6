import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair identity import` of OpenClaw's SQLite state store (`state/openclaw.sqlite`, upstream
/// schema from `src/state/openclaw-state-schema.sql`), built by python3's sqlite3.
@Suite struct IdentityImportStoreCLITests {
    typealias Box = IdentityCLITests.Sandbox

    /// Writes a state store holding the spec's seed 00..1f identity and two device tokens.
    static func makeStore(at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let id = IdentityCLITests.deviceId
        let statements: [(String, [Any])] = [
            ("INSERT INTO device_identities VALUES ('primary', ?, ?, ?, 1737264000000, 1737264000000)",
             [id, IdentityCLITests.publicKeyPem, IdentityCLITests.privateKeyPem]),
            ("INSERT INTO device_auth_tokens VALUES (?, 'operator', 'tok-operator', '[\"operator.read\"]', 2)", [id]),
            ("INSERT INTO device_auth_tokens VALUES (?, 'node', 'tok-node', '[]', 1)", [id]),
        ]
        let result = try SQLiteFixture.build(path, sql: SQLiteFixture.openClawSchema, statements: statements)
        #expect(result.status == 0, "\(result)")
        chmod(path, 0o600)
    }

    @Test func importsTheDefaultStoreReadOnly() throws {
        let box = try Box()
        let store = box.root + "/.openclaw/state/openclaw.sqlite"
        try Self.makeStore(at: store)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let result = try box.run(["identity", "import"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == """
            Imported identity \(IdentityCLITests.deviceId) from \(store) (OpenClaw TS form) into \(box.identityPath)
            Imported device tokens for node, operator from \(store) into \(box.home)/identity/device-auth.json

            """, "\(result)")
        #expect(box.read(box.identityPath) == IdentityCLITests.tsFile)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "the store is not changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.root + "/.openclaw/state") == ["openclaw.sqlite"])

        let show = try box.run(["--json", "identity", "show"])
        #expect(show.stdout.contains("\"operator\""), "\(show)")
    }

    @Test func followsOpenClawStateDirAndNamedStores() throws {
        let box = try Box()
        let store = box.root + "/srv-openclaw/state/openclaw.sqlite"
        try Self.makeStore(at: store)
        let json = try box.run(["--json", "identity", "import"], environment: ["OPENCLAW_STATE_DIR": box.root + "/srv-openclaw"])
        #expect(json.status == 0, "\(json)")
        let object = try IdentityCLITests.json(json.stdout)
        #expect((object["identity"] as? [String: Any])?["source"] as? String == store)
        #expect((object["tokenCache"] as? [String: Any])?["roles"] as? [String] == ["node", "operator"])

        let other = try Box()
        let named = try other.run(["identity", "import", store])
        #expect(named.status == 0, "\(named)")
    }

    @Test func explainsAMissingStoreAndForeignFiles() throws {
        let box = try Box()
        let missing = try box.run(["identity", "import"])
        #expect(missing.status != 0, "\(missing)")
        #expect(missing.stderr.contains("\(box.root)/.openclaw/state/openclaw.sqlite"), "\(missing)")

        // A file others can read that is no identity file is not met with "chmod 600".
        let passwd = box.file("passwd", "root:x:0:0:root:/root:/bin/bash\n", mode: 0o644)
        let foreign = try box.run(["identity", "import", passwd])
        #expect(foreign.status == 1, "\(foreign)")
        #expect(foreign.stderr.hasPrefix("error: \(passwd): not an OpenClaw identity file"), "\(foreign)")
        #expect(!foreign.stderr.contains("chmod"), "\(foreign)")
        let system = try box.run(["identity", "import", "/etc/passwd"])
        #expect(system.status == 1 && !system.stderr.contains("chmod"), "\(system)")

        let fake = box.file("fake.sqlite", "SQLite format 3\u{0}" + String(repeating: "x", count: 100))
        let damaged = try box.run(["identity", "import", fake])
        #expect(damaged.status == 1, "\(damaged)")
        #expect(damaged.stderr.hasPrefix("error: \(fake): "), "\(damaged)")
    }

    @Test func identityNewQuietPrintsTheDeviceIdOnStdout() throws {
        let box = try Box()
        let result = try box.run(["identity", "new", "-q"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let object = try IdentityCLITests.json(try #require(box.read(box.identityPath)))
        #expect(result.stdout == "\(try #require(object["deviceId"] as? String))\n", "\(result)")
    }
}
