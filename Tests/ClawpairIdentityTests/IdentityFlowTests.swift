import ClawpairCore
import ClawpairIdentity
import Foundation
import Testing

/// The one-call flows of `identity new`, `identity import` and `identity show`:
/// `CreatedIdentity.create`, `IdentityStore.importFiles` and `IdentitySummary.load`.
@Suite struct IdentityFlowTests {
    /// A scratch directory, an environment whose store is `<dir>/store`, and that store.
    static func scratch() throws -> (dir: String, environment: [String: String], store: IdentityStore) {
        let dir = try KeyFileTests.temporaryDirectory()
        let environment = ["HOME": dir, "CLAWPAIR_HOME": dir + "/store"]
        return (dir, environment, try IdentityStore.locate(environment: environment))
    }

    /// A new identity written to `<dir>/device.json` in `form`, and that path.
    static func identityFile(in dir: String, form: IdentityFileForm) throws -> (DeviceIdentity, String) {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        try IdentityFile.write(identity, form: form, to: dir + "/device.json", replacing: false)
        return (identity, dir + "/device.json")
    }

    @Test func createWritesTheStoreOrANamedFileAndReplacesOnlyWhenAsked() throws {
        let (dir, environment, store) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let created = try CreatedIdentity.create(at: nil, replacing: false, environment: environment, nowMs: 1_737_264_000_000)
        #expect(created.path == store.identityPath && !created.replaced)
        #expect(IdentityFile.status(path: store.identityPath)?.mode == 0o600)
        let stored = try store.loadIdentity()
        #expect(stored.form == .openclaw && stored.identity.deviceId == created.identity.deviceId)
        #expect(created.json == .object([
            ("path", .string(store.identityPath)), ("deviceId", .string(created.identity.deviceId)),
            ("publicKey", .string(created.identity.publicKey.base64URL)), ("publicKeyPem", .string(created.identity.publicKey.pem)),
            ("createdAtMs", .int(1_737_264_000_000)), ("createdAt", .string("2025-01-19T05:20:00.000Z")), ("replaced", .bool(false)),
        ]))
        #expect(throws: IdentityError.alreadyExists(path: store.identityPath)) {
            _ = try CreatedIdentity.create(at: nil, replacing: false, environment: environment, nowMs: 2)
        }
        #expect(try store.loadIdentity().identity.deviceId == created.identity.deviceId)
        let again = try CreatedIdentity.create(at: nil, replacing: true, environment: environment, nowMs: 2)
        #expect(again.replaced && again.identity.deviceId != created.identity.deviceId)

        let named = dir + "/node-device.json"
        let file = try CreatedIdentity.create(at: named, replacing: false, environment: environment, nowMs: 3)
        #expect(file.path == named && !file.replaced)
        #expect(try IdentityFile.load(path: named, defaultCreatedAtMs: 0).identity.deviceId == file.identity.deviceId)
    }

    @Test func createRefusesOpenClawsStateAsTheStore() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let environment = ["HOME": dir, "CLAWPAIR_HOME": dir + "/.openclaw"]
        #expect(throws: IdentityError.self) {
            _ = try CreatedIdentity.create(at: nil, replacing: false, environment: environment, nowMs: 1)
        }
    }

    @Test func importFilesStoresIdentityAndCacheAndReportsThem() throws {
        let (dir, environment, store) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (identity, path) = try Self.identityFile(in: dir, form: .openclawSwift)
        var cache = DeviceTokenCache(deviceId: identity.deviceId)
        cache.store(.init(token: "tok", role: "operator", scopes: ["operator.read"], updatedAtMs: 3))

        var files = IdentityImportSet()
        files.add(try ImportedFile.load(path: path, defaultCreatedAtMs: 0), source: path)
        files.add(.tokenCache(cache), source: "-")
        #expect(files.isOneDevice)
        var warnings: [String] = []
        let report = try store.importFiles(files, replacing: false, environment: environment) { warnings.append($0) }
        #expect(warnings.isEmpty)
        #expect(try store.loadIdentity().identity.deviceId == identity.deviceId)
        #expect(store.tokenEntries(for: identity.deviceId).entries.map(\.role) == ["operator"])
        #expect(report.lines == [
            "Imported identity \(identity.deviceId) from \(path) (OpenClaw Swift form) into \(store.identityPath)",
            "Imported device tokens for operator from - into \(store.tokenCachePath)",
        ])
        #expect(report.json == .object([
            ("identity", .object([
                ("path", .string(store.identityPath)), ("source", .string(path)), ("form", .string("openclaw-swift")),
                ("deviceId", .string(identity.deviceId)), ("publicKey", .string(identity.publicKey.base64URL)),
                ("deviceIdCorrected", .bool(false)),
            ])),
            ("tokenCache", .object([("path", .string(store.tokenCachePath)), ("source", .string("-")),
                                    ("roles", .array([.string("operator")]))])),
        ]))

        // The same key again: unchanged; a cache alone is checked against the stored identity.
        var again = IdentityImportSet()
        again.add(try ImportedFile.load(path: path, defaultCreatedAtMs: 0), source: path)
        let unchanged = try store.importFiles(again, replacing: false, environment: environment)
        #expect(unchanged.lines == ["\(store.identityPath) already holds this identity (\(identity.deviceId))"])
        #expect(unchanged.tokenCache == nil)
        var foreign = IdentityImportSet()
        foreign.add(.tokenCache(DeviceTokenCache(deviceId: String(repeating: "0", count: 64))), source: "c.json")
        #expect(throws: IdentityError.self) { try store.importFiles(foreign, replacing: true, environment: environment) }
        var empty = IdentityImportSet()
        empty.add(.tokenCache(DeviceTokenCache(deviceId: identity.deviceId)), source: "c.json")
        #expect(try store.importFiles(empty, replacing: true, environment: environment).lines
                == ["Imported device tokens for no roles from c.json into \(store.tokenCachePath)"])

        // Two identities are not one device's.
        var two = IdentityImportSet()
        two.add(try ImportedFile.load(path: path, defaultCreatedAtMs: 0), source: path)
        two.add(try ImportedFile.load(path: path, defaultCreatedAtMs: 0), source: path)
        #expect(!two.isOneDevice)
    }

    @Test func importFilesWarnsOfACorrectedDeviceId() throws {
        let (dir, environment, store) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (identity, path) = try Self.identityFile(in: dir, form: .openclaw)
        let wrong = String(repeating: "f", count: 64)
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: identity.deviceId, with: wrong)
        try KeyFileTests.write(text, to: path)
        var files = IdentityImportSet()
        files.add(try ImportedFile.load(path: path, defaultCreatedAtMs: 0), source: path)
        var warnings: [String] = []
        let report = try store.importFiles(files, replacing: false, environment: environment) { warnings.append($0) }
        #expect(warnings == ["\(path) said deviceId \(wrong); the key's deviceId is \(identity.deviceId), which was stored"])
        #expect(report.identity?.deviceIdCorrected == true)
        #expect(try store.loadIdentity().identity.deviceId == identity.deviceId)
    }

    @Test func summaryLoadsTheStoresIdentityWithItsTokensOrANamedFile() throws {
        let (dir, environment, store) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let identity = try CreatedIdentity.create(at: nil, replacing: false, environment: environment, nowMs: 1).identity
        var cache = DeviceTokenCache(deviceId: identity.deviceId)
        cache.store(.init(token: "tok", role: "node", scopes: [], updatedAtMs: 3))
        try store.importTokenCache(cache, source: "c.json", replacing: false)
        let (summary, warnings) = try IdentitySummary.load(path: nil, environment: environment)
        #expect(summary.path == store.identityPath && summary.tokens.map(\.role) == ["node"] && warnings.isEmpty)

        try KeyFileTests.write("{", to: store.tokenCachePath)
        let (damaged, problems) = try IdentitySummary.load(path: nil, environment: environment)
        #expect(damaged.tokens.isEmpty && problems.count == 1 && problems[0].hasPrefix("token cache: "))

        let named = dir + "/other.json"
        try IdentityFile.write(try DeviceIdentity.generate(createdAtMs: 2), form: .openclaw, to: named, replacing: false)
        let (other, none) = try IdentitySummary.load(path: named, environment: environment)
        #expect(other.path == named && other.tokens.isEmpty && none.isEmpty)
    }

    @Test func exportFormatsByNameAndTheExportEachMakes() throws {
        #expect(IdentityExport.Format.allCases.map(\.rawValue) == ["openclaw", "openclaw-swift", "pem", "device-auth"])
        #expect(IdentityExport.Format.allCases.map(\.identityForm) == [.openclaw, .openclawSwift, .pem, nil])
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let cache = DeviceTokenCache(deviceId: identity.deviceId)
        struct Unread: Error {}
        for format in [IdentityExport.Format.openclaw, .openclawSwift, .pem] {
            let export = try IdentityExport.make(format, publicOnly: false, identity: { identity }, tokenCache: { throw Unread() })
            guard case .identity(let exported, let form) = export else { Issue.record("\(format): \(export)"); continue }
            #expect(exported === identity && form == format.identityForm)
        }
        let pub = try IdentityExport.make(.pem, publicOnly: true, identity: { identity }, tokenCache: { throw Unread() })
        #expect(!pub.holdsSecrets)
        let tokens = try IdentityExport.make(.deviceAuth, publicOnly: false, identity: { throw Unread() }, tokenCache: { cache })
        guard case .tokenCache(let exported) = tokens else { Issue.record("\(tokens)"); return }
        #expect(exported == cache)
        #expect(throws: Unread.self) {
            _ = try IdentityExport.make(.deviceAuth, publicOnly: false, identity: { identity }, tokenCache: { throw Unread() })
        }
    }
}
