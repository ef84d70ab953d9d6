// `clawpair identity import` as one call: the identities and token caches read from files (or
// OpenClaw's state store) brought into the store together, with what happened as JSON and as
// sentences for people (clawpair-identity-import(1)).
import ClawpairCore

/// What one import brings into the store: the identities and device token caches read from files,
/// each with the name of where it came from. A state store holds one of each.
///
/// ```swift
/// var files = IdentityImportSet()
/// files.add(try ImportedFile.load(path: path, defaultCreatedAtMs: nowMs), source: path)
/// let report = try store.importFiles(files, replacing: false, environment: environment)
/// ```
/// Not `Sendable`, as ``LoadedIdentity`` (which owns the secret key) is not.
public struct IdentityImportSet {
    /// The identities read, in order, with their sources.
    public private(set) var identities: [(loaded: LoadedIdentity, source: String)] = []
    /// The token caches read, in order, with their sources.
    public private(set) var tokenCaches: [(cache: DeviceTokenCache, source: String)] = []

    /// An empty set.
    public init() {}

    /// Adds what `file` holds, read from `source` (a path, or a name such as `-`).
    public mutating func add(_ file: ImportedFile, source: String) {
        switch file {
        case let .identity(loaded): identities.append((loaded, source))
        case let .tokenCache(cache): tokenCaches.append((cache, source))
        case let .stateStore(store):
            identities.append((store.identity, source))
            tokenCaches.append((store.tokens, source))
        }
    }

    /// Whether the set is one device's: at most one identity and one token cache (what
    /// ``IdentityStore/importFiles(_:replacing:environment:warn:)`` takes).
    public var isOneDevice: Bool { identities.count <= 1 && tokenCaches.count <= 1 }
}

/// What ``IdentityStore/importFiles(_:replacing:environment:warn:)`` did.
public struct IdentityImportReport: Sendable {
    /// The identity imported.
    public struct Identity: Sendable {
        /// The store's identity file.
        public let path: String
        /// Where it came from.
        public let source: String
        /// The form of the source file.
        public let form: IdentityFileForm
        /// The key's deviceId (what was stored).
        public let deviceId: String
        /// The public key, base64url.
        public let publicKey: String
        /// Whether the source stated another deviceId, which was corrected.
        public let deviceIdCorrected: Bool
        /// Whether the store already held this key (nothing was written).
        public let unchanged: Bool
    }

    /// The token cache imported.
    public struct TokenCache: Sendable {
        /// The store's token cache file.
        public let path: String
        /// Where it came from.
        public let source: String
        /// The roles it holds tokens for, in order.
        public let roles: [String]
    }

    /// The identity imported, if the set had one.
    public let identity: Identity?
    /// The token cache imported, if the set had one.
    public let tokenCache: TokenCache?

    /// The JSON object of clawpair-identity-import(1): `identity` and `tokenCache`, each null
    /// when not imported.
    public var json: JSONValue {
        .object([
            ("identity", identity.map { identity in
                .object([
                    ("path", .string(identity.path)), ("source", .string(identity.source)),
                    ("form", .string(identity.form.rawValue)), ("deviceId", .string(identity.deviceId)),
                    ("publicKey", .string(identity.publicKey)), ("deviceIdCorrected", .bool(identity.deviceIdCorrected)),
                ])
            } ?? .null),
            ("tokenCache", tokenCache.map { cache in
                .object([("path", .string(cache.path)), ("source", .string(cache.source)),
                         ("roles", .array(cache.roles.map(JSONValue.string)))])
            } ?? .null),
        ])
    }

    /// One sentence per thing imported, for people (unsanitized: sources are names the user gave).
    public var lines: [String] {
        var lines: [String] = []
        if let identity {
            lines.append(identity.unchanged ? "\(identity.path) already holds this identity (\(identity.deviceId))"
                : "Imported identity \(identity.deviceId) from \(identity.source) (\(identity.form.displayName)) into \(identity.path)")
        }
        if let cache = tokenCache {
            let roles = cache.roles.isEmpty ? "no roles" : cache.roles.joined(separator: ", ")
            lines.append("Imported device tokens for \(roles) from \(cache.source) into \(cache.path)")
        }
        return lines
    }
}

extension IdentityStore {
    /// Imports the first identity and the first token cache of `files` (a caller refuses a set
    /// that is not ``IdentityImportSet/isOneDevice``): first checks the store is outside OpenClaw's state,
    /// then stores the identity (``importIdentity(_:replacing:environment:)``; `warn` is told when
    /// its source stated another deviceId), then the cache, checked against the imported identity,
    /// else the stored one (``importTokenCache(_:source:deviceId:replacing:)``).
    public func importFiles(_ files: IdentityImportSet, replacing: Bool, environment: [String: String],
                            warn: (String) -> Void = { _ in }) throws(IdentityError) -> IdentityImportReport {
        try checkOutsideOpenClaw(environment: environment)
        var identityReport: IdentityImportReport.Identity?
        if let (loaded, source) = files.identities.first {
            let identity = loaded.identity
            let unchanged = try !importIdentity(loaded, replacing: replacing, environment: environment)
            if !loaded.deviceIdMatches, let stored = loaded.storedDeviceId {
                warn("\(source) said deviceId \(stored); the key's deviceId is \(identity.deviceId), which was stored")
            }
            identityReport = .init(path: identityPath, source: source, form: loaded.form, deviceId: identity.deviceId,
                                   publicKey: identity.publicKey.base64URL, deviceIdCorrected: !loaded.deviceIdMatches,
                                   unchanged: unchanged)
        }
        var cacheReport: IdentityImportReport.TokenCache?
        if let (cache, source) = files.tokenCaches.first {
            try importTokenCache(cache, source: source, deviceId: identityReport?.deviceId, replacing: replacing)
            cacheReport = .init(path: tokenCachePath, source: source, roles: cache.entries.map(\.role))
        }
        return IdentityImportReport(identity: identityReport, tokenCache: cacheReport)
    }
}
