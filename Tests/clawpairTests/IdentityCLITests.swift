import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair identity …` through the built binary, each test in its own CLAWPAIR_HOME.
@Suite struct IdentityCLITests {
    static let now: Int64 = 1_737_264_000_000
    static let deviceId = "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"
    static let publicKey = "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"
    static let publicKeyPem = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAA6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=\n-----END PUBLIC KEY-----\n"
    static let privateKeyPem = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f\n-----END PRIVATE KEY-----\n"
    static let tsFile = """
        {
          "version": 1,
          "deviceId": "\(deviceId)",
          "publicKeyPem": "\(publicKeyPem.replacingOccurrences(of: "\n", with: "\\n"))",
          "privateKeyPem": "\(privateKeyPem.replacingOccurrences(of: "\n", with: "\\n"))",
          "createdAtMs": 1737264000000
        }

        """
    static let swiftFile = """
        {"deviceId":"\(deviceId)","publicKey":"A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=",\
        "privateKey":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=","createdAtMs":1737264000000}
        """
    static let t11 = "lWe440Zva9J55BeYBPKoGLhSqbxB3NKzobxR5SWPM1QV9KaZEmrtR48WE_qqVxcmqbedlmLX3OlA7MHW-jhyCw"
    static let t12 = "uehP4pTJ8Yhp9ssyvApBH8x2CJG2KN6FGsD61U7zgq5GQ-mA_08XhbriWbGyUvNQIHAm7_NpvEY0i2k2MjunBw"
    static let v3Operator = "qBIqiSRDjcwd5BQiVxLw4Sb1Rn10a5fiC3TvRl4pWFmIYD71XjDJxhWSZaw58Za91bUB7ZikLxCFFUvlMLZdAg"
    static let v2Operator = "EQDSGDp1xifDhdjcGAdqnma5J80Sr3oxbb_yPasR-pa5-7ASqYKdaITxs1ZDzWElPfwkZC0ceRXCh1kixCf1CQ"

    /// A temporary directory standing in for the user's home, with a clawpair store inside.
    final class Sandbox {
        let root: String
        var home: String { root + "/clawpair" }
        var identityPath: String { home + "/identity/device.json" }
        var environment: [String: String] { ["CLAWPAIR_HOME": home, "HOME": root] }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-cli-id-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        func run(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]) throws -> ClawpairBinary.Result {
            try ClawpairBinary.run(arguments, stdin: stdin, environment: environment.merging(extra) { _, new in new },
                                   nowMs: IdentityCLITests.now)
        }

        @discardableResult
        func file(_ name: String, _ text: String, mode: Int = 0o600) -> String {
            let path = root + "/" + name
            #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
            chmod(path, mode_t(mode))
            return path
        }

        func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

        func mode(_ path: String) -> Int {
            var info = stat()
            return lstat(path, &info) == 0 ? Int(info.st_mode) & 0o7777 : -1
        }

        /// Imports the spec's seed 00..1f identity.
        func importVector() throws {
            let result = try run(["identity", "import", file("vector-device.json", IdentityCLITests.tsFile)])
            #expect(result.status == 0, "\(result)")
        }
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: new

    @Test func newWritesAPrivateTSFileAndTalksOnStderrWhenPiped() throws {
        let box = try Sandbox()
        let result = try box.run(["identity", "new"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty, "stdout is not a terminal: the report goes to stderr (as age-keygen)")
        #expect(result.stderr.hasPrefix("Created a new device identity in \(box.identityPath) (mode 600)\nDevice ID    "), "\(result)")
        #expect(result.stderr.contains("\nPublic key   "))
        #expect(result.stderr.contains("Next: check it with 'clawpair identity show'"))
        #expect(box.mode(box.home) == 0o700)
        #expect(box.mode(box.home + "/identity") == 0o700)
        #expect(box.mode(box.identityPath) == 0o600)
        let file = try Self.json(try #require(box.read(box.identityPath)))
        #expect(file["version"] as? Int == 1)
        #expect((file["createdAtMs"] as? NSNumber)?.int64Value == Self.now)
        #expect((file["privateKeyPem"] as? String)?.hasPrefix("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI") == true)
        #expect(try #require(box.read(box.identityPath)).hasSuffix("\n}\n"))
        let id = try #require(file["deviceId"] as? String)
        #expect(result.stderr.contains(id))
    }

    @Test func newNeverOverwritesWithoutForce() throws {
        let box = try Sandbox()
        #expect(try box.run(["identity", "new", "-q"]).status == 0)
        let before = box.read(box.identityPath)
        let again = try box.run(["identity", "new"])
        #expect(again.status == 1)
        #expect(again.stderr == "error: \(box.identityPath) already exists\n"
                + "hint: pass --force to replace it (the old identity is lost unless you exported it)\n", "\(again)")
        #expect(box.read(box.identityPath) == before)
        let forced = try box.run(["--json", "identity", "new", "--force"])
        #expect(forced.status == 0, "\(forced)")
        let report = try Self.json(forced.stdout)
        #expect(report["replaced"] as? Bool == true)
        #expect(report["path"] as? String == box.identityPath)
        #expect(box.read(box.identityPath) != before)
        #expect(box.mode(box.identityPath) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.home + "/identity") == ["device.json"])
    }

    @Test func newWithExplicitFile() throws {
        let box = try Sandbox()
        let path = box.root + "/node-device.json"
        let result = try box.run(["identity", "new", "--identity", path])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("'clawpair identity show --identity \(path)'"))
        #expect(box.mode(path) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: box.home), "the store is untouched")
        let existing = box.file("notes.txt", "keep me")
        #expect(try box.run(["identity", "new", "--identity", existing]).status == 1)
        #expect(box.read(existing) == "keep me")
    }

    @Test func neverWritesIntoOpenClawStateByDefault() throws {
        let box = try Sandbox()
        let result = try box.run(["identity", "new"], environment: ["CLAWPAIR_HOME": box.root + "/.openclaw"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("inside OpenClaw's state directory"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: box.root + "/.openclaw"))
        // Without CLAWPAIR_HOME the store is ~/.config/clawpair.
        let xdg = try ClawpairBinary.run(["--json", "identity", "new"], environment: ["HOME": box.root])
        #expect(xdg.status == 0, "\(xdg)")
        #expect(try Self.json(xdg.stdout)["path"] as? String == box.root + "/.config/clawpair/identity/device.json")
        // Named explicitly, a path there is allowed.
        try FileManager.default.createDirectory(atPath: box.root + "/.openclaw/identity", withIntermediateDirectories: true)
        let explicit = try box.run(["identity", "export", "--format", "openclaw", "-o", box.root + "/.openclaw/identity/device.json"],
                                   environment: ["CLAWPAIR_HOME": box.root + "/.config/clawpair"])
        #expect(explicit.status == 0, "\(explicit)")
    }

    // MARK: show

    @Test func showHumanOutputIsExact() throws {
        let box = try Sandbox()
        try box.importVector()
        let result = try box.run(["identity", "show"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(result.stdout == """
            Identity     \(box.identityPath) (OpenClaw TS form)
            Permissions  mode 600, owned by you: ok
            Device ID    \(Self.deviceId)
            Public key   \(Self.publicKey)
            Created      2025-01-19T05:20:00.000Z (now)
            Public key (PEM):
            \(Self.publicKeyPem)
            """, "\(result)")
    }

    @Test func showJSON() throws {
        let box = try Sandbox()
        try box.importVector()
        let result = try box.run(["identity", "show", "--json"])
        let object = try Self.json(result.stdout)
        #expect(Set(object.keys) == ["ok", "path", "form", "deviceId", "publicKey", "publicKeyBase64", "publicKeyPem", "createdAtMs",
                                     "createdAt", "permissions", "tokens"])
        #expect(object["deviceId"] as? String == Self.deviceId)
        #expect(object["publicKeyBase64"] as? String == "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=")
        #expect(object["publicKeyPem"] as? String == Self.publicKeyPem)
        #expect(object["form"] as? String == "openclaw")
        let permissions = try #require(object["permissions"] as? [String: Any])
        #expect(permissions["mode"] as? String == "600")
        #expect(permissions["ok"] as? Bool == true)
        #expect(!result.stdout.contains("PRIVATE"))
    }

    @Test func looseSymlinkedOrCorruptFilesAreRefusedNeverRegenerated() throws {
        let box = try Sandbox()
        try box.importVector()
        chmod(box.identityPath, 0o644)
        let loose = try box.run(["identity", "show"])
        #expect(loose.status == 1)
        #expect(loose.stderr == "error: \(box.identityPath) is accessible to other users (mode 644); refusing to use a key others can read\n"
                + "hint: run: chmod 600 \(box.identityPath)\n", "\(loose)")
        #expect(try box.run(["identity", "sign-connect", "--nonce", "n"]).status == 1)
        chmod(box.identityPath, 0o600)

        let corrupt = "{\"version\":1,\"deviceId\":\"x\""
        box.file("clawpair/identity/device.json", corrupt)
        let shown = try box.run(["identity", "show"])
        #expect(shown.status == 1)
        #expect(shown.stderr.hasPrefix("error: \(box.identityPath): not valid JSON (byte 27: expected ',' or '}')\nhint: the file is damaged"), "\(shown)")
        #expect(try box.run(["identity", "new"]).status == 1)
        #expect(box.read(box.identityPath) == corrupt, "a corrupt identity is never replaced without --force")

        let target = box.file("real.json", Self.tsFile)
        let link = box.root + "/link.json"
        symlink(target, link)
        let linked = try box.run(["identity", "show", "--identity", link])
        #expect(linked.status == 1)
        #expect(linked.stderr.hasPrefix("error: \(link) is a symbolic link"), "\(linked)")

        let missing = try Sandbox().run(["identity", "show"])
        #expect(missing.status == 3, "\(missing)")
        #expect(missing.stderr.contains("hint: create one with 'clawpair identity new'"))
    }

    // MARK: import / export

    @Test func bothOpenClawFormsRoundTrip() throws {
        let box = try Sandbox()
        let swiftPath = box.file("node-device.json", Self.swiftFile)
        let imported = try box.run(["identity", "import", swiftPath])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout == "Imported identity \(Self.deviceId) from \(swiftPath) (OpenClaw Swift form) into \(box.identityPath)\n")
        #expect(box.read(box.identityPath) == Self.tsFile, "stored in the TS form, byte for byte as OpenClaw writes it")

        let ts = try box.run(["identity", "export", "--format", "openclaw"])
        #expect(ts.stdout == Self.tsFile)
        let swift = try box.run(["identity", "export", "--format", "openclaw-swift"])
        let object = try Self.json(swift.stdout)
        #expect(object["privateKey"] as? String == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
        #expect(object["publicKey"] as? String == "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=")
        #expect(Array(object.keys).count == 4)
        #expect(try box.run(["identity", "export", "--format", "pem"]).stdout == Self.privateKeyPem)
        #expect(try box.run(["identity", "export", "--format", "pem", "--public"]).stdout == Self.publicKeyPem)

        // The Swift export imports back into a fresh store, and a PEM key imports too.
        let other = try Sandbox()
        let back = try other.run(["identity", "import", other.file("swift.json", swift.stdout)])
        #expect(back.status == 0, "\(back)")
        #expect(other.read(other.identityPath) == Self.tsFile)
        let pem = try Sandbox()
        let fromPEM = try pem.run(["--json", "identity", "import", pem.file("key.pem", Self.privateKeyPem)])
        #expect(fromPEM.status == 0, "\(fromPEM)")
        let identity = try #require(try Self.json(fromPEM.stdout)["identity"] as? [String: Any])
        #expect(identity["form"] as? String == "pem")
        #expect(identity["deviceId"] as? String == Self.deviceId)

        // Export to a file: 0600, exclusive unless --force.
        let out = box.root + "/exported.json"
        #expect(try box.run(["identity", "export", "--format", "openclaw-swift", "-o", out]).status == 0)
        #expect(box.mode(out) == 0o600)
        #expect(try box.run(["identity", "export", "--format", "openclaw", "-o", out]).status == 1)
        #expect(try box.run(["identity", "export", "--format", "openclaw", "-o", out, "--force"]).status == 0)
        #expect(box.read(out) == Self.tsFile)
    }

    @Test func importChecksPermissionsKeysAndExistingIdentity() throws {
        let box = try Sandbox()
        let loose = box.file("loose.json", Self.tsFile, mode: 0o644)
        let refused = try box.run(["identity", "import", loose])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("hint: run: chmod 600 \(loose)"), "\(refused)")

        let stale = box.file("stale.json", Self.tsFile.replacingOccurrences(of: Self.deviceId, with: String(repeating: "0", count: 64)))
        let corrected = try box.run(["identity", "import", stale])
        #expect(corrected.status == 0, "\(corrected)")
        #expect(corrected.stderr.contains("warning: \(stale) said deviceId 0000"), "\(corrected)")
        #expect(box.read(box.identityPath) == Self.tsFile)

        // The same identity again is fine; another needs --force.
        #expect(try box.run(["identity", "import", box.file("same.json", Self.tsFile)]).status == 0)
        let other = try Sandbox()
        #expect(try other.run(["identity", "new", "--identity", other.root + "/other.json", "-q"]).status == 0)
        let otherFile = other.root + "/other.json"
        let blocked = try box.run(["identity", "import", otherFile])
        #expect(blocked.status == 1)
        #expect(blocked.stderr.contains("already exists"), "\(blocked)")
        #expect(box.read(box.identityPath) == Self.tsFile)
        #expect(try box.run(["identity", "import", "--force", otherFile]).status == 0)
        #expect(box.read(box.identityPath) != Self.tsFile)

        // Mismatched key pair: the file's public key is not the private key's.
        let mismatched = box.file("mismatch.json", Self.swiftFile.replacingOccurrences(of: "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=",
                                                                                         with: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))
        let bad = try box.run(["identity", "import", "--force", mismatched])
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("error: \(mismatched): the public key does not belong to the private key"), "\(bad)")

        // Standard input.
        let fresh = try Sandbox()
        let piped = try fresh.run(["identity", "import", "-"], stdin: Self.swiftFile)
        #expect(piped.status == 0, "\(piped)")
        #expect(fresh.read(fresh.identityPath) == Self.tsFile)
    }

    @Test func tokenCacheImportShowExport() throws {
        let box = try Sandbox()
        let cache = """
            {
              "version": 1,
              "deviceId": "\(Self.deviceId)",
              "tokens": {
                "operator": {
                  "token": "secret-operator-token",
                  "role": "operator",
                  "scopes": [
                    "operator.read"
                  ],
                  "updatedAtMs": 1737264000000
                }
              }
            }

            """
        let device = box.file("device.json", Self.tsFile)
        let auth = box.file("device-auth.json", cache)
        let result = try box.run(["--json", "identity", "import", device, auth])
        #expect(result.status == 0, "\(result)")
        let report = try Self.json(result.stdout)
        #expect((report["tokenCache"] as? [String: Any])?["roles"] as? [String] == ["operator"])
        #expect(box.mode(box.home + "/identity/device-auth.json") == 0o600)
        let shown = try box.run(["identity", "show"])
        #expect(shown.stdout.contains("Tokens       operator (1 scope)\n"), "\(shown)")
        #expect(!shown.stdout.contains("secret-operator-token"))
        #expect(try box.run(["identity", "export", "--format", "device-auth"]).stdout == cache)

        let foreign = box.file("foreign-auth.json", cache.replacingOccurrences(of: Self.deviceId, with: "abc"))
        let refused = try box.run(["identity", "import", "--force", foreign])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("holds tokens of device abc, not of this identity"), "\(refused)")
    }

    // MARK: sign-connect

    @Test func signConnectMatchesTheSpecVectors() throws {
        let box = try Sandbox()
        try box.importVector()
        let token = box.file("bootstrap.txt", "bootstrap-abc\n")
        let node = ["identity", "sign-connect", "--nonce", "nonce-123", "--signed-at-ms", "1737264000000",
                    "--client-id", "openclaw-ios", "--client-mode", "node", "--role", "node", "--token-file", token]
        let v2 = try box.run(node)
        #expect(v2.status == 0, "\(v2)")
        #expect(v2.stdout == Self.t11 + "\n")
        #expect(v2.stderr.isEmpty)
        let v3 = try box.run(node + ["--v3", "--platform", "iOS 18.4.0", "--device-family", "iPhone", "--print-payload"])
        #expect(v3.stdout == "v3|\(Self.deviceId)|openclaw-ios|node|node||1737264000000|bootstrap-abc|nonce-123|ios 18.4.0|iphone\n"
                + Self.t12 + "\n", "\(v3)")

        let operatorArgs = ["identity", "sign-connect", "--nonce", "0b6f1c4e-2d1a-4f7e-9a55-3c2b1d0e9f88", "--signed-at-ms",
                            "1737264000000", "--scope", "operator.read", "--scope", " operator.pairing", "--scope", "operator.read"]
        let env = ["CLAWPAIR_CONNECT_TOKEN": "device-token-xyz"]
        #expect(try box.run(operatorArgs, environment: env).stdout == Self.v2Operator + "\n")
        #expect(try box.run(operatorArgs + ["--v3", "--platform", "Linux 6.8.0"], environment: env).stdout == Self.v3Operator + "\n")

        let json = try box.run(["--json"] + operatorArgs, environment: env)
        let object = try Self.json(json.stdout)
        #expect(object["version"] as? String == "v2")
        #expect(object["scopes"] as? [String] == ["operator.read", "operator.pairing"])
        #expect(object["payload"] == nil, "the payload (it holds the token) only with --print-payload")
        let device = try #require(object["device"] as? [String: Any])
        #expect(device["id"] as? String == Self.deviceId)
        #expect(device["publicKey"] as? String == Self.publicKey)
        #expect(device["signature"] as? String == Self.v2Operator)
        #expect((device["signedAt"] as? NSNumber)?.int64Value == 1_737_264_000_000)

        let literal = try box.run(operatorArgs + ["--token", "device-token-xyz"])
        #expect(literal.stdout == Self.v2Operator + "\n")
        #expect(literal.stderr.hasPrefix("warning: a token on the command line is visible to other users"), "\(literal)")
        let missing = try box.run(["identity", "sign-connect"])
        #expect(missing.status == 2)
        // signedAt defaults to now (CLAWPAIR_NOW_MS pins it here).
        let defaulted = try box.run(["identity", "sign-connect", "--nonce", "n", "--print-payload"])
        #expect(defaulted.stdout.hasPrefix("v2|\(Self.deviceId)|cli|cli|operator||\(Self.now)||n\n"), "\(defaulted)")
    }

    @Test func batchSignsOneLinePerLine() throws {
        let box = try Sandbox()
        try box.importVector()
        let lines = [
            #"{"nonce":"nonce-123","signedAtMs":1737264000000,"clientId":"openclaw-ios","clientMode":"node","role":"node","scopes":[],"auth":{"bootstrapToken":"bootstrap-abc"}}"#,
            #"{"nonce":"nonce-123","signedAtMs":1737264000000,"clientId":"openclaw-ios","clientMode":"node","role":"node","token":"bootstrap-abc","version":"v3","platform":"iOS 18.4.0","deviceFamily":"iPhone","deviceId":"\#(Self.deviceId)"}"#,
            #"{"nonce":"x","scope":[]}"#,
            "not json",
            #"{"nonce":"0b6f1c4e-2d1a-4f7e-9a55-3c2b1d0e9f88","scopes":["operator.read","operator.pairing"],"auth":{"password":"pw","deviceToken":"device-token-xyz"}}"#,
        ]
        let result = try box.run(["identity", "sign-connect", "--batch", "--signed-at-ms", "1737264000000"],
                                 stdin: lines.joined(separator: "\n") + "\r\n")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == [Self.t11, Self.t12, "", "", Self.v2Operator].joined(separator: "\n") + "\n", "\(result)")
        #expect(result.stderr.contains("error: line 3: unknown key \"scope\""), "\(result)")
        #expect(result.stderr.contains("error: line 4: invalid JSON"), "\(result)")

        let json = try box.run(["--json", "identity", "sign-connect", "--batch", "--print-payload", "--self-check"],
                               stdin: lines[0] + "\n" + lines[2] + "\n")
        let outLines = json.stdout.split(separator: "\n").map(String.init)
        #expect(outLines.count == 2)
        let first = try Self.json(outLines[0])
        #expect((first["device"] as? [String: Any])?["signature"] as? String == Self.t11)
        #expect((first["payload"] as? String)?.hasPrefix("v2|") == true)
        #expect(try Self.json(outLines[1])["line"] as? Int == 2)
        #expect(try box.run(["identity", "sign-connect", "--batch"], stdin: "").status == 0)
    }

    // MARK: verify

    @Test func verifyExitStatuses() throws {
        let box = try Sandbox()
        try box.importVector()
        let payload = "v2|\(Self.deviceId)|openclaw-ios|node|node||1737264000000|bootstrap-abc|nonce-123"
        let std = "lWe440Zva9J55BeYBPKoGLhSqbxB3NKzobxR5SWPM1QV9KaZEmrtR48WE/qqVxcmqbedlmLX3OlA7MHW+jhyCw=="
        for key in [Self.publicKey, "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=", Self.publicKeyPem, box.file("pub.pem", Self.publicKeyPem)] {
            // `--public-key=…`: a PEM value starts with dashes.
            let ok = try box.run(["identity", "verify", "--public-key=" + key, "--payload", payload, "--signature", Self.t11])
            #expect(ok.status == 0, "\(key): \(ok)")
            #expect(ok.stdout == "valid: signed by device \(Self.deviceId) (v2 connect payload)\n")
        }
        #expect(try box.run(["identity", "verify", "--payload", payload, "--signature", std]).status == 0, "own key, std base64")
        #expect(try box.run(["identity", "verify", "--payload", "-", "--signature", Self.t11], stdin: payload + "\n").status == 0)
        #expect(try box.run(["identity", "verify", "--payload-file", box.file("p.txt", payload), "--signature", Self.t11]).status == 0)

        let tampered = try box.run(["identity", "verify", "--payload", payload + "x", "--signature", Self.t11])
        #expect(tampered.status == 4)
        #expect(tampered.stderr.hasPrefix("error: the signature is not valid for this payload and public key\n"), "\(tampered)")
        #expect(try box.run(["identity", "verify", "--payload", payload, "--signature", "AAAA"]).status == 4)
        let json = try box.run(["--json", "identity", "verify", "--payload", payload + "x", "--signature", Self.t11])
        #expect(try Self.json(json.stdout)["valid"] as? Bool == false)

        // A valid signature over a payload naming another device is refused, as gateways do. (Signed
        // here by python3-cryptography with the spec's seed 00..1f, when it is installed.)
        let script = """
            import base64, sys
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
            key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
            print(base64.urlsafe_b64encode(key.sign(sys.argv[1].encode())).decode().rstrip("="))
            """
        let foreign = "v2|\(String(repeating: "0", count: 64))|cli|cli|operator||1||n"
        if let signed = try? runPython(script, foreign) {
            let mismatch = try box.run(["identity", "verify", "--payload", foreign, "--signature", signed])
            #expect(mismatch.status == 4, "\(mismatch)")
            #expect(mismatch.stderr.contains("DEVICE_AUTH_DEVICE_ID_MISMATCH"), "\(mismatch)")
            #expect(try box.run(["identity", "verify", "--payload", foreign + "x", "--signature", signed]).status == 4)
        }
        #expect(try box.run(["identity", "verify", "--public-key", "nonsense", "--payload", "p", "--signature", Self.t11]).status == 1)
    }

    // MARK: crash safety

    /// kill -9 at random moments while `identity new --force` replaces the file: the file is always
    /// a complete identity, the old one or the new one.
    @Test func killDuringReplaceLeavesOldOrNew() throws {
        let box = try Sandbox()
        #expect(try box.run(["identity", "new", "-q"]).status == 0)
        var seen = Set<String>()
        for round in 0..<40 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ClawpairBinary.path)
            process.arguments = ["identity", "new", "--force", "-q"]
            process.environment = box.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 0...4000))  // the scenario: a kill at a random point of the write, not a wait
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let text = try #require(box.read(box.identityPath), "round \(round): the identity file vanished")
            let object = try Self.json(text)
            #expect(object["version"] as? Int == 1, "round \(round)")
            #expect(text.hasSuffix("\n}\n"), "round \(round): torn file")
            seen.insert(try #require(object["deviceId"] as? String))
            let shown = try box.run(["identity", "show", "--json"])
            #expect(shown.status == 0, "round \(round): \(shown)")
        }
        #expect(box.mode(box.identityPath) == 0o600)
    }

    /// Debian's python3 with an inline script; throws when it is missing or fails.
    func runPython(_ script: String, _ argument: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, argument]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
