import ClawpairIdentity
import Foundation
import Testing

/// `IdentityStore.importIdentity`, `importTokenCache` and `tokenEntries`: the store side of
/// `clawpair identity import` and `identity show`.
@Suite struct StoreImportTests {
    /// `identity` written to a file in `directory` and loaded back, as an import reads it.
    static func loaded(_ identity: DeviceIdentity, in directory: String, name: String) throws -> LoadedIdentity {
        let path = directory + "/" + name
        try IdentityFile.write(identity, form: .openclawSwift, to: path, replacing: false)
        return try IdentityFile.load(path: path, defaultCreatedAtMs: 0)
    }

    @Test func importsOnceRefusesAnotherUnlessReplacing() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["HOME": dir]
        let store = IdentityStore(directory: dir + "/store")
        let first = try DeviceIdentity.generate(createdAtMs: 1)
        let second = try DeviceIdentity.generate(createdAtMs: 2)

        #expect(try store.importIdentity(Self.loaded(first, in: dir, name: "first.json"), replacing: false, environment: env))
        #expect(try store.loadIdentity().identity.publicKey == first.publicKey)
        #expect(IdentityFile.status(path: store.identityPath)?.mode == 0o600)
        // The same key again: nothing written, whatever `replacing` says.
        #expect(try !store.importIdentity(Self.loaded(first, in: dir, name: "again.json"), replacing: false, environment: env))
        // Another key: refused, and the stored one stays.
        let other = try Self.loaded(second, in: dir, name: "second.json")
        #expect(throws: IdentityError.alreadyExists(path: store.identityPath)) {
            try store.importIdentity(other, replacing: false, environment: env)
        }
        #expect(try store.loadIdentity().identity.publicKey == first.publicKey)
        #expect(try store.importIdentity(other, replacing: true, environment: env))
        #expect(try store.loadIdentity().identity.publicKey == second.publicKey)
        // A damaged file in the store is not silently replaced either.
        try KeyFileTests.write("{", to: store.identityPath)
        #expect(throws: IdentityError.alreadyExists(path: store.identityPath)) {
            try store.importIdentity(other, replacing: false, environment: env)
        }
    }

    @Test func tokenCachesBelongToTheirDevice() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = IdentityStore(directory: dir + "/store")
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        // No identity and no device named: the stored identity is missing.
        #expect(throws: IdentityError.self) {
            try store.importTokenCache(DeviceTokenCache(deviceId: identity.deviceId), source: "cache.json", replacing: false)
        }
        try store.saveIdentity(identity, replacing: false, environment: ["HOME": dir])
        #expect(store.tokenEntries(for: identity.deviceId).entries.isEmpty && store.tokenEntries(for: identity.deviceId).problem == nil)

        let foreign = DeviceTokenCache(deviceId: String(repeating: "0", count: 64))
        #expect(throws: IdentityError.tokenCacheMismatch(path: "cache.json", cacheDeviceId: foreign.deviceId,
                                                         identityDeviceId: identity.deviceId)) {
            try store.importTokenCache(foreign, source: "cache.json", replacing: false)
        }
        var cache = DeviceTokenCache(deviceId: identity.deviceId)
        cache.store(.init(token: "tok", role: "operator", scopes: ["operator.read"], updatedAtMs: 3))
        try store.importTokenCache(cache, source: "cache.json", replacing: false)
        #expect(IdentityFile.status(path: store.tokenCachePath)?.mode == 0o600)
        #expect(store.tokenEntries(for: identity.deviceId).entries.map(\.role) == ["operator"])
        #expect(throws: IdentityError.self) { try store.importTokenCache(cache, source: "cache.json", replacing: false) }
        try store.importTokenCache(cache, source: "cache.json", deviceId: identity.deviceId, replacing: true)

        // Entries of another device are not shown, and the reason says why.
        let (entries, problem) = store.tokenEntries(for: foreign.deviceId)
        #expect(entries.isEmpty && problem?.contains(foreign.deviceId) == true)
        try KeyFileTests.write("{", to: store.tokenCachePath)
        #expect(store.tokenEntries(for: identity.deviceId).problem != nil)
    }

    @Test func publicKeyPEMIsWrittenPublicAndNeverOverwrittenSilently() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let key = try DeviceIdentity.generate(createdAtMs: 1).publicKey
        let path = dir + "/key.pub"
        try key.writePEM(to: path, replacing: false)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == key.pem)
        #expect(IdentityFile.status(path: path)?.mode == 0o644)
        let other = try DeviceIdentity.generate(createdAtMs: 2).publicKey
        #expect(throws: IdentityError.alreadyExists(path: path)) { try other.writePEM(to: path, replacing: false) }
        try other.writePEM(to: path, replacing: true)
        #expect(try DevicePublicKey(parsing: String(contentsOfFile: path, encoding: .utf8)) == other)
    }
}
