// The libsqlite3 calls of `OpenClawStateStore`: the only file that touches C for it. The
// database is opened read-only through a URI, `immutable=1` when no `-wal` file is beside it
// (then SQLite takes no locks and creates nothing), `mode=ro` otherwise (a running gateway's
// committed WAL frames are still read). Nothing is ever written.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
internal import CSQLite

extension OpenClawStateStore {
    /// The longest PEM or deviceId accepted from a row.
    static let maxKeyTextBytes = 4096
    /// The longest role or token accepted from a row.
    static let maxTokenTextBytes = 4096

    static func readSQLite(path: String, defaultCreatedAtMs: Int64) throws(IdentityError) -> OpenClawStateStore {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw .noIdentity(path: path) }
            throw .system(SystemError(call: "stat", errno: errno, path: path))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
        try checkHeader(path: path)
        var walInfo = stat()
        let immutable = stat(path + "-wal", &walInfo) != 0
        let database = try SQLiteReader(path: path, immutable: immutable)
        let identity = try database.primaryIdentity(defaultCreatedAtMs: defaultCreatedAtMs)
        let tokens = try database.tokens(deviceId: identity.identity.deviceId)
        return OpenClawStateStore(identity: identity, tokens: tokens, openedImmutable: immutable)
    }

    /// Whether `path` is a regular file that starts with the SQLite header (a FIFO or device is
    /// never opened).
    public static func isDatabaseFile(path: String) -> Bool {
        guard FileIO.isRegularFile(path: path) else { return false }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: fileHeader.count)
        let n = header.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return n == fileHeader.count && isDatabase(prefix: header)
    }

    /// Refuses a file that does not start with the SQLite header, before SQLite sees it.
    private static func checkHeader(path: String) throws(IdentityError) {
        guard isDatabaseFile(path: path) else {
            throw .stateStore(path: path, reason: "not an SQLite database (OpenClaw's state store is state/openclaw.sqlite)")
        }
    }

    /// `path` as an SQLite URI: every byte outside `[A-Za-z0-9/._~-]` percent-encoded.
    static func uri(path: String, immutable: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array("file:".utf8)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "-"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        out += Array((immutable ? "?immutable=1" : "?mode=ro").utf8)
        return String(decoding: out, as: UTF8.self)
    }
}

/// One read-only SQLite connection, closed on deinit. Confined to the reading call.
private final class SQLiteReader {
    let path: String
    let db: OpaquePointer

    init(path: String, immutable: Bool) throws(IdentityError) {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(OpenClawStateStore.uri(path: path, immutable: immutable), &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite could not open it (code \(status))"
            sqlite3_close_v2(handle)
            throw .stateStore(path: path, reason: reason)
        }
        db = handle
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Int32(OpenClawStateStore.maxValueBytes))
        sqlite3_busy_timeout(db, 2000)
    }

    deinit { sqlite3_close_v2(db) }

    func failure(_ what: String) -> IdentityError {
        .stateStore(path: path, reason: "\(what): \(String(cString: sqlite3_errmsg(db)))")
    }

    /// Runs `sql`, calling `row` for each result row; nil when a table in it does not exist.
    func query(_ sql: String, what: String, row: (OpaquePointer) throws(IdentityError) -> Void) throws(IdentityError) -> Bool? {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            let message = String(cString: sqlite3_errmsg(db))
            if status == SQLITE_NOTADB { throw .stateStore(path: path, reason: "not an SQLite database") }
            if message.hasPrefix("no such table") { return nil }
            throw .stateStore(path: path, reason: "not OpenClaw's state store schema (\(what): \(message))")
        }
        defer { sqlite3_finalize(statement) }
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return true }
            guard step == SQLITE_ROW else { throw failure(what) }
            try row(statement)
        }
    }

    func text(_ statement: OpaquePointer, _ column: Int32, _ name: String, max: Int) throws(IdentityError) -> UnsafeRawBufferPointer {
        guard sqlite3_column_type(statement, column) == SQLITE_TEXT else {
            throw .stateStore(path: path, reason: "\(name) is not text")
        }
        let pointer = sqlite3_column_text(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count <= max else { throw .stateStore(path: path, reason: "\(name) is \(count) bytes (at most \(max))") }
        return UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count)
    }

    func string(_ statement: OpaquePointer, _ column: Int32, _ name: String, max: Int) throws(IdentityError) -> String {
        let bytes = try text(statement, column, name, max: max)
        guard let value = String(validating: bytes, as: UTF8.self) else {
            throw .stateStore(path: path, reason: "\(name) is not UTF-8")
        }
        return value
    }

    func integer(_ statement: OpaquePointer, _ column: Int32, _ name: String) throws(IdentityError) -> Int64 {
        guard sqlite3_column_type(statement, column) == SQLITE_INTEGER else {
            throw .stateStore(path: path, reason: "\(name) is not an integer")
        }
        return sqlite3_column_int64(statement, column)
    }

    /// The `primary` identity row, decoded as the TS `device.json` it replaces.
    func primaryIdentity(defaultCreatedAtMs: Int64) throws(IdentityError) -> LoadedIdentity {
        var loaded: LoadedIdentity?
        let sql = "SELECT device_id, public_key_pem, private_key_pem, created_at_ms FROM device_identities "
            + "WHERE identity_key = '\(OpenClawStateStore.primaryIdentityKey)' LIMIT 1"
        let found = try query(sql, what: "device_identities") { (statement) throws(IdentityError) in
            let cap = OpenClawStateStore.maxKeyTextBytes
            let deviceId = try text(statement, 0, "device_identities.device_id", max: cap)
            let publicKey = try text(statement, 1, "device_identities.public_key_pem", max: cap)
            let privateKey = try text(statement, 2, "device_identities.private_key_pem", max: cap)
            let createdAt = try integer(statement, 3, "device_identities.created_at_ms")
            let secure = try SecureBytes(capacity: OpenClawStateStore.jsonStringCapacity(3 * cap) + 128)
            secure.append(#"{"version":1,"deviceId":"#)
            OpenClawStateStore.appendJSONString(deviceId, to: secure)
            secure.append(#","publicKeyPem":"#)
            OpenClawStateStore.appendJSONString(publicKey, to: secure)
            secure.append(#","privateKeyPem":"#)
            OpenClawStateStore.appendJSONString(privateKey, to: secure)
            secure.append(#","createdAtMs":\#(createdAt)}"#)
            do throws(IdentityError) {
                loaded = try IdentityFile.decode(secure, defaultCreatedAtMs: defaultCreatedAtMs)
            } catch {
                if case let .invalid(_, formatError) = error {
                    throw .stateStore(path: path, reason: "the primary device identity is invalid: \(formatError.message)")
                }
                throw error
            }
        }
        guard found != nil else {
            throw .stateStore(path: path, reason: "not OpenClaw's state store (it has no device_identities table)")
        }
        guard let loaded else {
            throw .stateStore(path: path, reason: "holds no device identity yet (OpenClaw creates one on its first connect)")
        }
        return loaded
    }

    /// The device tokens of `deviceId` (64 hex digits, checked by the identity decode).
    func tokens(deviceId: String) throws(IdentityError) -> DeviceTokenCache {
        precondition(deviceId.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        var entries: [DeviceTokenCache.Entry] = []
        let limit = OpenClawStateStore.maxTokenRows
        let sql = "SELECT role, token, scopes_json, updated_at_ms FROM device_auth_tokens WHERE device_id = '\(deviceId)' "
            + "ORDER BY updated_at_ms, role LIMIT \(limit + 1)"
        _ = try query(sql, what: "device_auth_tokens") { (statement) throws(IdentityError) in
            guard entries.count < limit else {
                throw .stateStore(path: path, reason: "more than \(limit) device tokens for this device")
            }
            let role = try string(statement, 0, "device_auth_tokens.role", max: OpenClawStateStore.maxTokenTextBytes)
            let token = try string(statement, 1, "device_auth_tokens.token", max: OpenClawStateStore.maxTokenTextBytes)
            let scopesJSON = try text(statement, 2, "device_auth_tokens.scopes_json", max: OpenClawStateStore.maxValueBytes)
            let updatedAt = try integer(statement, 3, "device_auth_tokens.updated_at_ms")
            guard case let .array(values)? = try? JSONValue.parse(Array(scopesJSON)) else {
                throw .stateStore(path: path, reason: "device_auth_tokens.scopes_json of role \(role) is not a JSON array")
            }
            var scopes: [String] = []
            for value in values {
                guard case let .string(scope) = value else {
                    throw .stateStore(path: path, reason: "device_auth_tokens.scopes_json of role \(role) holds a non-string")
                }
                scopes.append(scope)
            }
            entries.append(DeviceTokenCache.Entry(token: token, role: role, scopes: scopes, updatedAtMs: updatedAt))
        }
        return DeviceTokenCache(deviceId: deviceId, entries: entries)
    }
}
