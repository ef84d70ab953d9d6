// OpenClaw's SQLite state store, read-only: the device identity and device tokens current
// OpenClaw installs keep in `<state dir>/state/openclaw.sqlite` instead of `identity/device.json`
// and `identity/device-auth.json`.
//
// Upstream: the path is `resolveOpenClawStateSqlitePath` (`src/state/openclaw-state-db.paths.ts`:
// `resolveStateDir(env)` + `state/openclaw.sqlite`, the state dir being `$OPENCLAW_STATE_DIR` or
// `~/.openclaw`); the tables are in `src/state/openclaw-state-schema.sql`:
//
//   device_identities(identity_key TEXT PRIMARY KEY, device_id TEXT, public_key_pem TEXT,
//                     private_key_pem TEXT, created_at_ms INTEGER, updated_at_ms INTEGER) STRICT
//   device_auth_tokens(device_id TEXT, role TEXT, token TEXT, scopes_json TEXT,
//                      updated_at_ms INTEGER, PRIMARY KEY (device_id, role)) STRICT
//
// and the row read is `identity_key = 'primary'` (`PRIMARY_DEVICE_IDENTITY_KEY`,
// `src/infra/device-identity-store.ts`). The identity row goes through the same checks as a TS
// `device.json` (the key pair must match; a deviceId that is not the key's is reported).
//
// Bounds: the file must be a regular file (a FIFO is refused before it is opened); SQLite's
// value length limit is lowered to `maxValueBytes`; at most `maxTokenRows` token rows are read;
// PEM and token values are checked against their caps before they are copied.

import ClawpairCore

/// What OpenClaw's state store holds for this device.
public struct OpenClawStateStore {
    /// The identity (`device_identities`, key `primary`); its form is ``IdentityFileForm/openclaw`` (the TS `device.json` it replaces).
    public let identity: LoadedIdentity
    /// The device tokens of that identity's deviceId (`device_auth_tokens`), oldest first.
    public let tokens: DeviceTokenCache
    /// Whether the file was opened immutable (no `-wal` beside it, so nothing can be missed and
    /// SQLite touches nothing) rather than plain read-only (a writer's `-wal` is present).
    public let openedImmutable: Bool

    /// The SQLite file header (`SQLite format 3\0`): how a database is told from other files.
    public static let fileHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]
    /// The `identity_key` of the device identity (`PRIMARY_DEVICE_IDENTITY_KEY`).
    public static let primaryIdentityKey = "primary"
    /// The largest text value read (a PEM key is ~120 bytes, a scope list well under 4 KiB).
    public static let maxValueBytes = 64 * 1024
    /// The most token rows read for one device (one per role in practice).
    public static let maxTokenRows = 64

    /// OpenClaw's state store for `environment`: `$OPENCLAW_STATE_DIR/state/openclaw.sqlite`,
    /// else `$HOME/.openclaw/state/openclaw.sqlite`; nil when neither variable is set.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let state = environment["OPENCLAW_STATE_DIR"], !state.isEmpty { return state + "/state/openclaw.sqlite" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.openclaw/state/openclaw.sqlite"
    }

    /// Whether `bytes` start with the SQLite file header.
    public static func isDatabase(prefix bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: fileHeader)
    }

    /// Reads the store at `path` without writing to it or beside it. ENOENT is
    /// ``IdentityError/noIdentity(path:)``; a non-regular file ``IdentityError/notARegularFile(path:)``;
    /// anything that is not an OpenClaw state store with a primary identity
    /// ``IdentityError/stateStore(path:reason:)``.
    public static func read(path: String, defaultCreatedAtMs: Int64) throws(IdentityError) -> OpenClawStateStore {
        try readSQLite(path: path, defaultCreatedAtMs: defaultCreatedAtMs)
    }

    /// `text` as a JSON string literal (quotes, backslashes and control characters escaped), for
    /// assembling the TS `device.json` form of a row in guarded memory.
    static func appendJSONString(_ bytes: UnsafeRawBufferPointer, to out: SecureBytes) {
        var quote = UInt8(ascii: "\"")
        withUnsafeBytes(of: &quote) { out.append($0) }
        let hex = Array("0123456789abcdef".utf8)
        for byte in bytes {
            var escaped: [UInt8]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): escaped = [UInt8(ascii: "\\"), byte]
            case 0x0A: escaped = [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0..<0x20: escaped = Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: escaped = [byte]
            }
            escaped.withUnsafeBytes { out.append($0) }
            SecretWipe.wipe(&escaped)
        }
        withUnsafeBytes(of: &quote) { out.append($0) }
    }

    /// The most bytes `appendJSONString` writes for `count` input bytes.
    static func jsonStringCapacity(_ count: Int) -> Int { count * 6 + 2 }
}

@available(*, unavailable)
extension OpenClawStateStore: Sendable {}
