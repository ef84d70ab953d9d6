import ClawpairCore
import ClawpairIdentity
import Foundation
import Testing

/// What the identity commands moved into the library: loading a named file or the store's
/// identity, its summary (JSON and lines), public keys given as text or file, the JSON of checks
/// and signatures, and the batch signer.
@Suite struct IdentityToolkitTests {
    static func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "clawpair-identity-kit-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    /// A new identity (created 2025-01-19T05:20Z) written to `directory/device.json` in the TS form.
    static func written(in directory: String) throws -> (DeviceIdentity, String) {
        let identity = try DeviceIdentity.generate(createdAtMs: 1_737_264_000_000)
        let path = directory + "/device.json"
        try IdentityFile.write(identity, form: .openclaw, to: path, replacing: false)
        return (identity, path)
    }

    @Test("a named file is loaded with its path; a stored deviceId that is not the key's is used with a warning")
    func loadNamed() throws {
        try Self.withDirectory { directory in
            let (identity, path) = try Self.written(in: directory)
            let found = try IdentityFile.loadNamedOrStored(path: path, environment: [:])
            #expect(found.path == path && found.warning == nil && found.loaded.identity.deviceId == identity.deviceId)

            let other = String(repeating: "0", count: 64)
            let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: identity.deviceId, with: other)
            let rewritten = directory + "/rewritten.json"
            try IdentityFile.write(identity, form: .openclaw, to: rewritten, replacing: false)
            try text.write(toFile: rewritten, atomically: false, encoding: .utf8)
            let mismatched = try IdentityFile.loadNamedOrStored(path: rewritten, environment: [:])
            #expect(mismatched.loaded.identity.deviceId == identity.deviceId)
            #expect(mismatched.warning == "\(rewritten) says deviceId \(other), but its key's deviceId is \(identity.deviceId); "
                    + "using the key's (gateways derive it from the key)")

            #expect(throws: IdentityError.self) {
                try IdentityFile.loadNamedOrStored(path: nil, environment: ["CLAWPAIR_HOME": directory + "/empty-store"])
            }
        }
    }

    @Test("the summary: JSON members, labelled lines, permissions and token roles (never tokens)")
    func summary() throws {
        try Self.withDirectory { directory in
            let (identity, path) = try Self.written(in: directory)
            let loaded = try IdentityFile.load(path: path, defaultCreatedAtMs: 0)
            let token = DeviceTokenCache.Entry(token: "secret-token", role: "operator", scopes: ["operator.read"], updatedAtMs: 5)
            let summary = IdentitySummary(path: path, loaded: loaded, tokens: [token])
            let json = summary.json
            #expect(json["deviceId"]?.stringValue == identity.deviceId && json["form"]?.stringValue == "openclaw")
            #expect(json["createdAt"]?.stringValue == "2025-01-19T05:20:00.000Z")
            #expect(json["permissions"]?["mode"]?.stringValue == "600" && json["permissions"]?["ok"] == .bool(true))
            #expect(json["tokens"]?[0]?["role"]?.stringValue == "operator")
            #expect(!json.compact().contains("secret-token"))
            let rows = summary.rows(nowMs: 1_737_264_000_000 + 3_600_000)
            #expect(rows.map(\.label) == ["Identity", "Permissions", "Device ID", "Public key", "Created", "Tokens"])
            #expect(rows[0].value == "\(path) (OpenClaw TS form)")
            #expect(rows[1].value == "mode 600, owned by you: ok")
            #expect(rows[5].value == "operator (1 scope)")
            #expect(IdentityFileForm.pem.displayName == "PKCS#8 PEM")
        }
    }

    @Test("a public key as text or as a file; neither is an error naming what was given")
    func publicKeyInput() throws {
        try Self.withDirectory { directory in
            let identity = try DeviceIdentity.generate(createdAtMs: 0)
            #expect(try DevicePublicKey.parse(textOrFile: identity.publicKey.base64URL, what: "--key") == identity.publicKey)
            let path = directory + "/key.pem"
            try identity.publicKey.pem.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(try DevicePublicKey.parse(textOrFile: path, what: "--key") == identity.publicKey)
            #expect { try DevicePublicKey.parse(textOrFile: "not-a-key", what: "--key") } throws: { error in
                if case .invalid(what: "--key", _)? = error as? IdentityError { return true }
                return false
            }
        }
    }

    /// A new identity and the defaults of a batch over it (no nonce: each line gives its own).
    static func batchBase() throws -> (DeviceIdentity, ConnectPayload) {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        return (identity, ConnectPayload(deviceId: identity.deviceId, clientId: "cli", clientMode: "cli", role: "operator",
                                         scopes: [], signedAtMs: 1_737_264_000_000, token: "", nonce: ""))
    }

    @Test("batch lines: a signature per line (or its JSON), a failure worded by the caller in step")
    func batchSigner() throws {
        let (identity, base) = try Self.batchBase()
        let plain = ConnectBatchSigner(identity: identity, base: base, selfCheck: true, json: false, includePayload: false)
        let answer = plain.answer(Array(#"{"nonce":"n1"}"#.utf8), number: 1)
        #expect(answer.failure == nil)
        let signed = try identity.signConnect(try base.applying(batchLine: Array(#"{"nonce":"n1"}"#.utf8)))
        #expect(String(decoding: answer.output, as: UTF8.self) == signed.signature.base64URL)
        #expect(identity.publicKey.check(signatureText: signed.signature.base64URL, payload: Array(signed.payload.text.utf8)).json["valid"] == .bool(true))

        let json = ConnectBatchSigner(identity: identity, base: base, selfCheck: false, json: true, includePayload: true) { _ in "worded" }
        let ok = try JSONValue.parse(json.answer(Array(#"{"nonce":"n2"}"#.utf8), number: 1).output)
        #expect(ok["payload"]?.stringValue?.contains("n2") == true && ok["device"]?["nonce"]?.stringValue == "n2")
        let failed = json.answer(Array("{}".utf8), number: 7)
        #expect(failed.failure == "worded")
        #expect(String(decoding: failed.output, as: UTF8.self) == #"{"line":7,"error":"worded"}"#)
        #expect(plain.answer(Array("{}".utf8), number: 1) == ([], "no \"nonce\""))
    }

    /// A reader over `input` through a pipe (the writer closed, so the reader sees its end).
    static func reader(_ input: String, maxLineBytes: Int = ConnectPayload.maxBatchLineBytes) throws -> LineReader {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let bytes = Array(input.utf8)
        #expect(write(fds[1], bytes, bytes.count) == bytes.count)
        close(fds[1])
        return LineReader(fd: fds[0], maxLineBytes: maxLineBytes)
    }

    @Test("a batch run: one answer per line in order, failures reported with their line numbers")
    func batchRun() throws {
        let (identity, base) = try Self.batchBase()
        let signer = ConnectBatchSigner(identity: identity, base: base, selfCheck: true, json: false, includePayload: false)
        var reader = try Self.reader("{\"nonce\":\"n1\"}\r\n{}\n{\"nonce\":\"n3\"}")
        defer { close(reader.fd) }
        var written: [UInt8] = []
        var failed: [String] = []
        let failures = try signer.run(&reader, write: { written += $0 }, failed: { failed.append("\($0): \($1)") })
        #expect(failures == 1)
        #expect(failed == ["2: no \"nonce\""])
        let lines = String(decoding: written, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let expected = try ["n1", "n3"].map { nonce in
            try identity.signConnect(base.applying(batchLine: Array("{\"nonce\":\"\(nonce)\"}".utf8))).signature.base64URL
        }
        #expect(lines == [Substring(expected[0]), "", Substring(expected[1]), ""])
    }

    @Test("a batch run ends at a line over the reader's limit")
    func batchRunLongLine() throws {
        let (identity, base) = try Self.batchBase()
        let signer = ConnectBatchSigner(identity: identity, base: base, selfCheck: false, json: false, includePayload: false)
        var reader = try Self.reader(String(repeating: "x", count: 64), maxLineBytes: 16)
        defer { close(reader.fd) }
        #expect(throws: LineReader.LineTooLong(limit: 16)) {
            _ = try signer.run(&reader, write: { _ in }, failed: { _, _ in })
        }
    }

    @Test("an export: the file written with its mode and sentence, the same bytes handed out, no silent replace")
    func export() throws {
        try Self.withDirectory { directory in
            let identity = try DeviceIdentity.generate(createdAtMs: 1_737_264_000_000)
            let cache = DeviceTokenCache(deviceId: identity.deviceId,
                                         entries: [.init(token: "tok", role: "operator", scopes: ["operator.read"], updatedAtMs: 1)])
            let cases: [(IdentityExport, String, Int, String, Bool)] = [
                (.identity(identity, form: .openclawSwift), "swift.json", 0o600,
                 "Wrote identity \(identity.deviceId) to \(directory)/swift.json (\(IdentityFileForm.openclawSwift.displayName), mode 600)", true),
                (.publicKey(identity), "public.pem", 0o644, "Wrote the public key of \(identity.deviceId) to \(directory)/public.pem", false),
                (.tokenCache(cache), "device-auth.json", 0o600, "Wrote the device token cache to \(directory)/device-auth.json (mode 600)", true),
            ]
            for (export, name, mode, sentence, secret) in cases {
                let path = directory + "/" + name
                #expect(try export.write(to: path, replacing: false) == sentence)
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                #expect((attributes[.posixPermissions] as? Int) == mode, "\(name)")
                var handed: [UInt8] = []
                try export.withBytes { handed = Array($0) }
                #expect(handed == Array(try Data(contentsOf: URL(fileURLWithPath: path))), "\(name)")
                #expect(export.holdsSecrets == secret)
                #expect(throws: IdentityError.alreadyExists(path: path)) { _ = try export.write(to: path, replacing: false) }
                #expect(try export.write(to: path, replacing: true) == sentence)
            }
            struct Stop: Error {}
            #expect(throws: Stop.self) { try IdentityExport.identity(identity, form: .pem).withBytes { _ in throw Stop() } }
        }
    }
}
