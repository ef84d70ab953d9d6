import ClawpairCore
import ClawpairIdentity
import Foundation
import Testing

/// `IdentityError.code`, `IdentityStore.locate()`, `IdentityStore.loadOrCreateIdentity` and a
/// `DeviceIdentity` shared between tasks.
@Suite("identity codes and load-or-create")
struct IdentityCodeTests {
    @Test("codes group the cases by what a user does about them")
    func codes() {
        let cases: [(IdentityError, String)] = [
            (.noIdentity(path: "/x"), "no-identity"), (.malformed(path: "/x", .duplicateField("k")), "identity-invalid"),
            (.invalid(what: "key", .duplicateField("k")), "identity-invalid"),
            (.deviceIdMismatch(path: "/x", stored: "a", derived: "b"), "identity-invalid"),
            (.tokenCacheMismatch(path: "/x", cacheDeviceId: "a", identityDeviceId: "b"), "identity-invalid"),
            (.unsafePermissions(path: "/x", mode: 0o644), "unsafe-permissions"), (.symlink(path: "/x"), "unsafe-permissions"),
            (.notARegularFile(path: "/x"), "unsafe-permissions"), (.alreadyExists(path: "/x"), "exists"),
            (.system(SystemError(call: "open", errno: 5)), "io-error"), (.file(.exists(path: "/x")), "io-error"),
            (.sodiumUnavailable, "error"), (.insideOpenClawState(path: "/x"), "error"), (.stateStore(path: "/x", reason: "r"), "error"),
        ]
        for (error, code) in cases { #expect(error.code == code, "\(error)") }
    }

    @Test("the first call creates and saves an identity (0600); later calls load that one")
    func loadOrCreate() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = IdentityStore(directory: dir + "/store")
        let first = try store.loadOrCreateIdentity(createdAtMs: 42, environment: ["HOME": dir])
        #expect(first.created)
        #expect(first.identity.createdAtMs == 42)
        #expect(IdentityFile.status(path: store.identityPath)?.mode == 0o600)
        let again = try store.loadOrCreateIdentity(createdAtMs: 99, environment: ["HOME": dir])
        #expect(!again.created)
        #expect(again.identity.deviceId == first.identity.deviceId)
    }

    @Test("a damaged identity is an error, never replaced")
    func damagedIsKept() throws {
        let dir = try KeyFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = IdentityStore(directory: dir + "/store")
        try store.preparePrivateDirectories()
        try KeyFileTests.write("{", to: store.identityPath)
        #expect(throws: IdentityError.self) { try store.loadOrCreateIdentity(createdAtMs: 1, environment: ["HOME": dir]) }
        #expect(try String(contentsOfFile: store.identityPath, encoding: .utf8) == "{")
    }

    @Test("locate() is locate(environment:) over this process's values of the variables a store reads")
    func locateFromProcess() throws {
        let environment = IdentityStore.processEnvironment()
        for key in IdentityStore.environmentKeys {
            #expect(environment[key] == getenv(key).map { String(cString: $0) }, "\(key)")
        }
        #expect(Set(environment.keys).isSubset(of: IdentityStore.environmentKeys))
        #expect(try IdentityStore.locate() == IdentityStore.locate(environment: environment))
    }

    @Test("an identity crosses into other tasks (Sendable) and signs there as it does here")
    func identityIsSendable() async throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let here = try identity.sign("payload").rawBytes
        let elsewhere = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<4 { group.addTask { try identity.sign("payload").rawBytes } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(elsewhere == Array(repeating: here, count: 4), "Ed25519 signatures are deterministic")
    }
}
