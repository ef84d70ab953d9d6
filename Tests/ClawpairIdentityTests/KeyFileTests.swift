import ClawpairIdentity
import Foundation
import Testing

/// Identity files: one message per failed check, permission and symlink refusal, O_EXCL and
/// atomic replacement, the token cache, and the store's location rules.
@Suite struct KeyFileTests {
    static let vector = try! Vectors.identity().vectors[0]

    /// A fresh private temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-id-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    static func write(_ text: String, to path: String, mode: Int = 0o600) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]))
        chmod(path, mode_t(mode))
    }

    /// The format error decoding `text` throws, or nil when it decodes.
    static func formatError(_ text: String) -> IdentityFormatError? {
        do {
            _ = try IdentityFile.decode(Array(text.utf8), defaultCreatedAtMs: 0)
            return nil
        } catch {
            if case let .invalid(_, formatError) = error { return formatError }
            Issue.record("not a format error: \(error)")
            return nil
        }
    }

    static func ts(_ replacing: [String: String] = [:], drop: Set<String> = []) -> String {
        let v = vector
        var members: [(String, String)] = [
            ("version", "1"), ("deviceId", "\"\(v.deviceId)\""),
            ("publicKeyPem", "\"\(v.publicKeyPem.replacingOccurrences(of: "\n", with: "\\n"))\""),
            ("privateKeyPem", "\"\(v.privateKeyPem.replacingOccurrences(of: "\n", with: "\\n"))\""),
            ("createdAtMs", "1737264000000"),
        ]
        members = members.filter { !drop.contains($0.0) }.map { ($0.0, replacing[$0.0] ?? $0.1) }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    @Test func everyBadInputHasItsOwnMessage() {
        let v = Self.vector
        let der47 = "MC0CAQAwBQYDK2VwBCEEIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4="  // 47 bytes
        let x25519 = "MC4CAQAwBQYDK2VuBCIEIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f"  // OID 1.3.101.110
        let otherKey = try! DeviceIdentity(seed: Array(repeating: 7, count: 32), createdAtMs: 0).publicKey
        let cases: [(String, IdentityFormatError)] = [
            ("", .invalidJSON(offset: 0, reason: "expected a JSON object")),
            ("[]", .invalidJSON(offset: 0, reason: "expected a JSON object")),
            ("{} x", .invalidJSON(offset: 3, reason: "extra data after the object")),
            ("{\"a\":1,}", .invalidJSON(offset: 7, reason: "expected a member name")),
            ("{\"a\":\"\u{1}\"}", .invalidJSON(offset: 6, reason: "unescaped control character in a string")),
            ("{\"a\":\"\\x\"}", .invalidJSON(offset: 6, reason: "invalid escape sequence")),
            ("{\"a\":01}", .invalidJSON(offset: 6, reason: "expected ',' or '}'")),
            ("{\"a\":" + String(repeating: "[", count: 40) + "}", .invalidJSON(offset: 20, reason: "nested too deeply")),
            ("{\"a\":1,\"a\":2}", .duplicateField("a")),
            ("{\"x\":1}", .unknownForm),
            (Self.ts(drop: ["version"]), .missingField("version")),
            (Self.ts(["version": "\"1\""]), .wrongType(field: "version", expected: "a number")),
            (Self.ts(["version": "2"]), .unsupportedVersion(2)),
            (Self.ts(drop: ["deviceId"]), .missingField("deviceId")),
            (Self.ts(["deviceId": "7"]), .wrongType(field: "deviceId", expected: "a string")),
            (Self.ts(drop: ["privateKeyPem"]), .missingField("privateKeyPem")),
            (Self.ts(["createdAtMs": "1.5"]), .invalidTimestamp(field: "createdAtMs")),
            (Self.ts(["createdAtMs": "-1"]), .invalidTimestamp(field: "createdAtMs")),
            (Self.ts(["privateKeyPem": "\"key\""]), .pemMissingBegin(label: "PRIVATE KEY")),
            (Self.ts(["privateKeyPem": "\"-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----\\n\""]),
             .pemWrongLabel(expected: "PRIVATE KEY", found: "PUBLIC KEY")),
            (Self.ts(["privateKeyPem": "\"-----BEGIN PRIVATE KEY-----\\nAAAA\\n\""]), .pemMissingEnd(label: "PRIVATE KEY")),
            (Self.ts(["privateKeyPem": "\"-----BEGIN PRIVATE KEY-----\\nA*AA\\n-----END PRIVATE KEY-----\\n\""]),
             .pemBody(label: "PRIVATE KEY")),
            (Self.ts(["privateKeyPem": "\"-----BEGIN PRIVATE KEY-----\\n\(der47)\\n-----END PRIVATE KEY-----\\n\""]),
             .derLength(what: "private key (PKCS#8)", expected: 48, actual: 47)),
            (Self.ts(["privateKeyPem": "\"-----BEGIN PRIVATE KEY-----\\n\(x25519)\\n-----END PRIVATE KEY-----\\n\""]),
             .derPrefix(what: "private key (PKCS#8)")),
            (Self.ts(["privateKeyPem": "\"-----BEGIN PRIVATE KEY-----\\u00e9\""]), .notASCII(field: "privateKeyPem")),
            (Self.ts(["publicKeyPem": "\"\(otherKey.pem.replacingOccurrences(of: "\n", with: "\\n"))\""]), .publicKeyMismatch),
            ("{\"deviceId\":\"\(v.deviceId)\",\"publicKey\":\"\(v.publicKeyBase64Std)\",\"privateKey\":\"@@@@\",\"createdAtMs\":1}",
             .base64(field: "privateKey")),
            ("{\"deviceId\":\"\(v.deviceId)\",\"publicKey\":\"\(v.publicKeyBase64Std)\",\"privateKey\":\"AAAA\",\"createdAtMs\":1}",
             .length(field: "privateKey", expected: 32, actual: 3)),
            ("{\"deviceId\":\"\(v.deviceId)\",\"publicKey\":\"\(v.publicKeyBase64Std)\",\"privateKey\":\"\(v.seedBase64Std)\"}",
             .missingField("createdAtMs")),
            ("{\"deviceId\":\"\(v.deviceId)\",\"publicKey\":\"\(otherKey.base64Standard)\",\"privateKey\":\"\(v.seedBase64Std)\",\"createdAtMs\":1}",
             .publicKeyMismatch),
        ]
        for (input, expected) in cases {
            #expect(Self.formatError(input) == expected, "input \(input.debugDescription)")
        }
        // Messages differ per check.
        let messages = Set(cases.map(\.1.message))
        #expect(messages.count >= cases.count - 4, "each check has its own message")
    }

    @Test func lenientSyntaxIsAccepted() throws {
        // Unknown members, escaped slashes, CRLF in PEM, whitespace around the object.
        let v = Self.vector
        let crlf = v.privateKeyPem.replacingOccurrences(of: "\n", with: "\\r\\n").replacingOccurrences(of: "/", with: "\\/")
        let text = "\n " + Self.ts(["privateKeyPem": "\"\(crlf)\""]).dropLast() + ",\"extra\":{\"nested\":[1,2.5,null,true]}}\n"
        let loaded = try IdentityFile.decode(Array(text.utf8), defaultCreatedAtMs: 0)
        #expect(loaded.identity.deviceId == v.deviceId)
        // A stale deviceId is reported, not fatal, at this level.
        let stale = try IdentityFile.decode(Array(Self.ts(["deviceId": "\"abc\""]).utf8), defaultCreatedAtMs: 0)
        #expect(!stale.deviceIdMatches)
        #expect(stale.storedDeviceId == "abc")
    }

    @Test func publicKeyAndSignatureParsingErrors() {
        #expect(throws: IdentityFormatError.base64(field: "public key")) { try DevicePublicKey(parsing: "not base64!") }
        #expect(throws: IdentityFormatError.length(field: "public key", expected: 32, actual: 3)) { try DevicePublicKey(parsing: "AAAA") }
        #expect(throws: IdentityFormatError.derLength(what: "public key (SPKI)", expected: 44, actual: 3)) {
            try DevicePublicKey(parsing: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        }
        #expect(throws: IdentityFormatError.length(field: "signature", expected: 64, actual: 3)) { try DeviceSignature(parsing: "AAAA") }
        #expect(throws: IdentityFormatError.base64(field: "signature")) { try DeviceSignature(parsing: "###") }
    }

    @Test func loadRefusesLooseModesSymlinksAndNonFiles() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/device.json"
        try Self.write(Self.vector.tsDeviceJsonFileText, to: path)
        #expect(try IdentityFile.load(path: path, defaultCreatedAtMs: 0).identity.deviceId == Self.vector.deviceId)
        for mode in [0o640, 0o604, 0o660, 0o620, 0o602] {
            chmod(path, mode_t(mode))
            #expect(throws: IdentityError.unsafePermissions(path: path, mode: UInt32(0o100000 | mode))) {
                try IdentityFile.load(path: path, defaultCreatedAtMs: 0)
            }
        }
        chmod(path, 0o400)
        #expect(try IdentityFile.load(path: path, defaultCreatedAtMs: 0).identity.deviceId == Self.vector.deviceId)
        let link = dir + "/link.json"
        symlink(path, link)
        #expect(throws: IdentityError.symlink(path: link)) { try IdentityFile.load(path: link, defaultCreatedAtMs: 0) }
        #expect(throws: IdentityError.notARegularFile(path: dir)) { try IdentityFile.load(path: dir, defaultCreatedAtMs: 0) }
        let fifo = dir + "/fifo"
        mkfifo(fifo, 0o600)
        #expect(throws: IdentityError.notARegularFile(path: fifo)) { try IdentityFile.load(path: fifo, defaultCreatedAtMs: 0) }
        #expect(throws: IdentityError.noIdentity(path: dir + "/missing")) {
            try IdentityFile.load(path: dir + "/missing", defaultCreatedAtMs: 0)
        }
        let big = dir + "/big.json"
        try Self.write(String(repeating: " ", count: IdentityFile.maxBytes + 1), to: big)
        #expect(throws: IdentityError.malformed(path: big, .tooLarge(limit: IdentityFile.maxBytes))) {
            try IdentityFile.load(path: big, defaultCreatedAtMs: 0)
        }
    }

    @Test func writeIsExclusiveUnlessReplacing() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/device.json"
        let first = try DeviceIdentity.generate(createdAtMs: 1)
        let second = try DeviceIdentity.generate(createdAtMs: 2)
        try IdentityFile.write(first, form: .openclaw, to: path, replacing: false)
        #expect(IdentityFile.status(path: path)?.mode == 0o600)
        #expect(throws: IdentityError.alreadyExists(path: path)) {
            try IdentityFile.write(second, form: .openclaw, to: path, replacing: false)
        }
        #expect(try IdentityFile.load(path: path, defaultCreatedAtMs: 0).identity.publicKey == first.publicKey)
        try IdentityFile.write(second, form: .openclawSwift, to: path, replacing: true)
        let back = try IdentityFile.load(path: path, defaultCreatedAtMs: 0)
        #expect(back.identity.publicKey == second.publicKey)
        #expect(back.form == .openclawSwift)
        #expect(IdentityFile.status(path: path)?.mode == 0o600)
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["device.json"])
        // A dangling symlink at the target is never followed: link-no-replace refuses it.
        let link = dir + "/link.json"
        symlink(dir + "/elsewhere.json", link)
        #expect(throws: IdentityError.alreadyExists(path: link)) {
            try IdentityFile.write(first, form: .openclaw, to: link, replacing: false)
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/elsewhere.json"))
    }

    @Test func storeLocationAndPrivateDirectories() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try IdentityStore.locate(environment: ["CLAWPAIR_HOME": "/x/y/", "XDG_CONFIG_HOME": "/c", "HOME": "/h"]).directory == "/x/y")
        #expect(try IdentityStore.locate(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]).directory == "/c/clawpair")
        #expect(try IdentityStore.locate(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]).directory == "/h/.config/clawpair")
        #expect(try IdentityStore.locate(environment: ["HOME": "/h"]).identityPath == "/h/.config/clawpair/identity/device.json")

        let env = ["HOME": dir]
        #expect(IdentityStore.isInsideOpenClawState(dir + "/.openclaw/identity/device.json", environment: env))
        #expect(IdentityStore.isInsideOpenClawState(dir + "/x/../.openclaw", environment: env))
        #expect(!IdentityStore.isInsideOpenClawState(dir + "/.openclaw-other", environment: env))
        #expect(IdentityStore.isInsideOpenClawState("/srv/state/identity", environment: ["OPENCLAW_STATE_DIR": "/srv/state"]))
        let inside = IdentityStore(directory: dir + "/.openclaw")
        #expect(throws: IdentityError.insideOpenClawState(path: dir + "/.openclaw")) {
            try inside.saveIdentity(DeviceIdentity.generate(createdAtMs: 0), replacing: false, environment: env)
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/.openclaw"))

        let store = IdentityStore(directory: dir + "/a/b/clawpair")
        let identity = try DeviceIdentity.generate(createdAtMs: 5)
        try store.saveIdentity(identity, replacing: false, environment: env)
        #expect(IdentityFile.status(path: store.directory)?.mode == 0o700)
        #expect(IdentityFile.status(path: store.identityDirectory)?.mode == 0o700)
        #expect(IdentityFile.status(path: store.identityPath)?.mode == 0o600)
        #expect(try store.loadIdentity().identity.publicKey == identity.publicKey)
        // A stored deviceId that is not the key's is an error for the store (never silently rewritten).
        try Self.write(Self.ts(["deviceId": "\"0000\""]), to: store.identityPath)
        #expect(throws: IdentityError.deviceIdMismatch(path: store.identityPath, stored: "0000", derived: Self.vector.deviceId)) {
            try store.loadIdentity()
        }
        // A corrupt identity is an error, and it is still there afterwards.
        try Self.write("{\"version\":1", to: store.identityPath)
        #expect(throws: IdentityError.self) { try store.loadIdentity() }
        #expect(try String(contentsOfFile: store.identityPath, encoding: .utf8) == "{\"version\":1")
        // A store directory others can read is refused.
        chmod(store.identityDirectory, 0o755)
        #expect(throws: IdentityError.self) { try store.preparePrivateDirectories() }
    }

    @Test func tokenCacheRoundTrip() throws {
        let text = """
            {
              "version": 1,
              "deviceId": "\(Self.vector.deviceId)",
              "tokens": {
                "operator": {
                  "token": "tok-op",
                  "role": "operator",
                  "scopes": [
                    "operator.read",
                    "operator.write"
                  ],
                  "updatedAtMs": 1737264000000
                },
                "node": {
                  "token": "tok-node",
                  "role": "node",
                  "scopes": [],
                  "updatedAtMs": 1737264000001
                }
              }
            }

            """
        let cache = try DeviceTokenCache.decode(Array(text.utf8))
        #expect(cache.deviceId == Self.vector.deviceId)
        #expect(cache.entry(for: "operator")?.scopes == ["operator.read", "operator.write"])
        #expect(cache.entry(for: "node")?.token == "tok-node")
        #expect(String(decoding: cache.encoded(), as: UTF8.self) == text, "the encoding is OpenClaw's layout")
        var updated = cache
        updated.store(.init(token: "new", role: "node", scopes: [], updatedAtMs: 9))
        #expect(updated.entries.count == 2)
        #expect(updated.entry(for: "node")?.token == "new")
        #expect(throws: IdentityFormatError.unsupportedVersion(2)) { try DeviceTokenCache.decode(Array("{\"version\":2}".utf8)) }
        #expect(throws: IdentityFormatError.missingField("tokens")) {
            try DeviceTokenCache.decode(Array("{\"version\":1,\"deviceId\":\"x\"}".utf8))
        }
        #expect(throws: IdentityFormatError.wrongType(field: "tokens.a.token", expected: "a string")) {
            try DeviceTokenCache.decode(Array("{\"version\":1,\"deviceId\":\"x\",\"tokens\":{\"a\":{}}}".utf8))
        }
    }
}
