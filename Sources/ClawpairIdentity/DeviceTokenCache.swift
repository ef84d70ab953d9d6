import ClawpairCore

// The device token cache, `identity/device-auth.json` (identity-and-handshake.md §2), TS and Swift:
//   {"version":1,"deviceId":…,"tokens":{"<role>":{"token","role","scopes":[…],"updatedAtMs"}}}
// Tokens are bearer credentials: the file is 0600 and read with the same checks as key files.

/// Device tokens a gateway issued to one device, keyed by role.
public struct DeviceTokenCache: Sendable, Equatable {
    /// One role's token.
    public struct Entry: Sendable, Equatable {
        /// The device token (a secret).
        public var token: String
        /// The role it was issued for.
        public var role: String
        /// The scopes the gateway granted with it.
        public var scopes: [String]
        /// When it was stored, ms since the epoch.
        public var updatedAtMs: Int64

        /// Creates an entry.
        public init(token: String, role: String, scopes: [String], updatedAtMs: Int64) {
            self.token = token
            self.role = role
            self.scopes = scopes
            self.updatedAtMs = updatedAtMs
        }
    }

    /// The largest token cache read.
    public static let maxBytes = 256 * 1024

    /// The device the tokens belong to.
    public var deviceId: String
    /// The entries, in file order, one per role.
    public var entries: [Entry]

    /// Creates a cache.
    public init(deviceId: String, entries: [Entry] = []) {
        self.deviceId = deviceId
        self.entries = entries
    }

    /// The entry for `role`.
    public func entry(for role: String) -> Entry? {
        entries.first { $0.role == role }
    }

    /// Adds or replaces the entry for `entry.role`.
    public mutating func store(_ entry: Entry) {
        if let i = entries.firstIndex(where: { $0.role == entry.role }) {
            entries[i] = entry
        } else {
            entries.append(entry)
        }
    }

    /// Decodes `device-auth.json` bytes.
    public static func decode(_ bytes: [UInt8]) throws(IdentityFormatError) -> DeviceTokenCache {
        guard bytes.count <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes, limits: JSONLimits(maxInputBytes: maxBytes, maxDepth: 8))
        } catch {
            throw .invalidJSON(offset: error.offset, reason: String(error.description.split(separator: ":", maxSplits: 1).last ?? "")
                .trimmingLeadingSpace)
        }
        guard root.objectValue != nil else { throw .invalidJSON(offset: 0, reason: "expected a JSON object") }
        guard let version = root["version"] else { throw .missingField("version") }
        guard let number = version.int64Value else { throw .wrongType(field: "version", expected: "a number") }
        guard number == 1 else { throw .unsupportedVersion(number) }
        guard let deviceIdValue = root["deviceId"] else { throw .missingField("deviceId") }
        guard let deviceId = deviceIdValue.stringValue else { throw .wrongType(field: "deviceId", expected: "a string") }
        guard let tokensValue = root["tokens"] else { throw .missingField("tokens") }
        guard let tokens = tokensValue.objectValue else { throw .wrongType(field: "tokens", expected: "an object") }
        var cache = DeviceTokenCache(deviceId: deviceId)
        for (key, value) in tokens {
            let field = "tokens.\(key)"
            guard value.objectValue != nil else { throw .wrongType(field: field, expected: "an object") }
            guard let token = value["token"]?.stringValue else { throw .wrongType(field: "\(field).token", expected: "a string") }
            let role = value["role"]?.stringValue ?? key
            var scopes: [String] = []
            if let list = value["scopes"] {
                guard let array = list.arrayValue else { throw .wrongType(field: "\(field).scopes", expected: "an array") }
                for scope in array {
                    guard let text = scope.stringValue else {
                        throw .wrongType(field: "\(field).scopes", expected: "an array of strings")
                    }
                    scopes.append(text)
                }
            }
            var updated: Int64 = 0
            if let stamp = value["updatedAtMs"] {
                guard let ms = stamp.int64Value, ms >= 0 else { throw .invalidTimestamp(field: "\(field).updatedAtMs") }
                updated = ms
            }
            cache.store(Entry(token: token, role: role, scopes: scopes, updatedAtMs: updated))
        }
        return cache
    }

    /// The file text: 2-space JSON and a final LF, as OpenClaw writes it.
    public func encoded() -> [UInt8] {
        let tokens: [(String, JSONValue)] = entries.map { entry in
            (entry.role, .object([("token", .string(entry.token)), ("role", .string(entry.role)),
                                  ("scopes", .array(entry.scopes.map(JSONValue.string))),
                                  ("updatedAtMs", .int(entry.updatedAtMs))]))
        }
        let root: JSONValue = .object([("version", 1), ("deviceId", .string(deviceId)), ("tokens", .object(tokens))])
        return Array((root.pretty(indent: 2) + "\n").utf8)
    }

    /// Reads `path` with the key-file checks (no symlink, regular file, mode 0600 or stricter).
    /// A missing file is ``IdentityError/noIdentity(path:)``.
    public static func load(path: String) throws(IdentityError) -> DeviceTokenCache {
        let (secure, _) = try SecretFile.read(path: path, limit: maxBytes)
        var bytes = secure.copyBytes()
        defer { SecretWipe.wipe(&bytes) }
        do throws(IdentityFormatError) {
            return try decode(bytes)
        } catch {
            throw .malformed(path: path, error)
        }
    }

    /// Writes the cache to `path` (mode 0600, atomically); an existing file is replaced only
    /// when `replacing` is true.
    public func write(to path: String, replacing: Bool) throws(IdentityError) {
        var bytes = encoded()
        defer { SecretWipe.wipe(&bytes) }
        do {
            try AtomicFile.write(bytes, to: path, mode: 0o600, replacing: replacing)
        } catch {
            if case let .exists(existing) = error { throw .alreadyExists(path: existing) }
            throw .file(error)
        }
    }
}

extension String {
    var trimmingLeadingSpace: String { String(drop { $0 == " " }) }
}
