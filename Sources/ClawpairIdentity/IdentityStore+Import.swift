// Bringing an identity and its device tokens into the store from files (an OpenClaw
// device.json, a PEM key, a device-auth.json), and reading the stored tokens back for the
// identity they belong to: what `clawpair identity import` and `identity show` do with the store.

import ClawpairCore

extension IdentityStore {
    /// Stores the identity of `loaded` (TS form, 0600).
    ///
    /// Returns false, writing nothing, when the store already holds this key. Another stored
    /// identity, or any file at `identityPath`, is replaced only when `replacing` is true, else
    /// ``IdentityError/alreadyExists(path:)`` is thrown. The deviceId written is always the
    /// key's, whatever the source file said (see ``LoadedIdentity/deviceIdMatches``).
    @discardableResult
    public func importIdentity(_ loaded: LoadedIdentity, replacing: Bool,
                               environment: [String: String]) throws(IdentityError) -> Bool {
        let identity = loaded.identity
        if let existing = try? loadIdentity(), existing.identity.publicKey == identity.publicKey { return false }
        if !replacing, IdentityFile.status(path: identityPath) != nil { throw .alreadyExists(path: identityPath) }
        try saveIdentity(identity, replacing: replacing, environment: environment)
        return true
    }

    /// Stores `cache` (0600) as the device token cache of `deviceId` (the stored identity's when
    /// nil), after checking the cache belongs to that device; `source` names the cache in
    /// ``IdentityError/tokenCacheMismatch(path:cacheDeviceId:identityDeviceId:)``. An existing
    /// cache is replaced only when `replacing` is true.
    public func importTokenCache(_ cache: DeviceTokenCache, source: String, deviceId: String? = nil,
                                 replacing: Bool) throws(IdentityError) {
        let ownId: String
        if let deviceId { ownId = deviceId } else { ownId = try loadIdentity().identity.deviceId }
        guard cache.deviceId == ownId else {
            throw .tokenCacheMismatch(path: source, cacheDeviceId: cache.deviceId, identityDeviceId: ownId)
        }
        try preparePrivateDirectories()
        try cache.write(to: tokenCachePath, replacing: replacing)
    }

    /// The stored device tokens of `deviceId`, or why they cannot be read: a missing cache is
    /// no entries and no problem; a damaged one, or one of another device, is no entries and the
    /// reason.
    public func tokenEntries(for deviceId: String) -> (entries: [DeviceTokenCache.Entry], problem: String?) {
        let cache: DeviceTokenCache
        do {
            cache = try DeviceTokenCache.load(path: tokenCachePath)
        } catch {
            if case .noIdentity = error { return ([], nil) }
            return ([], error.message)
        }
        guard cache.deviceId == deviceId else {
            return ([], IdentityError.tokenCacheMismatch(path: tokenCachePath, cacheDeviceId: cache.deviceId,
                                                         identityDeviceId: deviceId).message)
        }
        return (cache.entries, nil)
    }
}
