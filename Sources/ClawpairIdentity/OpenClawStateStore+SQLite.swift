// The libsqlite3 calls of `OpenClawStateStore`: the only file that touches C for it. Nothing is
// ever written in OpenClaw's state directory (issue #25.11):
//
// - no `-wal` beside the database: it is opened read-only through a URI with `immutable=1`
//   (SQLite then takes no locks and creates nothing);
// - a `-wal` beside it (a running gateway in WAL mode): the database and its `-wal` are copied
//   into a private temporary directory (0700, files 0600, removed afterwards) and the copy is
//   read, so a writer's committed frames are seen and the `-shm` that SQLite's WAL reader needs
//   is created there, not beside OpenClaw's store.
//
// Both files are opened with O_NOFOLLOW and checked as key files are (issue #25.12): not a
// symbolic link, a regular file, no group/other permission bits. Every query is bounded (issue
// #25.5): a progress handler interrupts it after ``StateStoreLimits/maxSteps`` virtual-machine
// steps or ``StateStoreLimits/maxDuration``; the two tables read must be tables (a view, e.g. an
// endless recursive one, is refused before it is queried); `trusted_schema` is off, so schema
// objects cannot call functions with side effects.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
internal import CSQLite

/// How much work reading a state store may take.
struct StateStoreLimits {
    /// Virtual-machine steps per query (counted in blocks of ``stepBlock``): an honest read of
    /// the two tables takes a few thousand.
    var maxSteps: Int64 = 20_000_000
    /// Wall time per query.
    var maxDuration: Duration = .seconds(5)
    /// The largest store (and `-wal`) copied for a WAL-mode read.
    var maxCopyBytes: Int64 = 256 * 1024 * 1024
    /// How many steps run between two progress-handler calls.
    static let stepBlock: Int32 = 1000
}

extension OpenClawStateStore {
    /// The longest PEM or deviceId accepted from a row.
    static let maxKeyTextBytes = 4096
    /// The longest role or token accepted from a row.
    static let maxTokenTextBytes = 4096

    static func readSQLite(path: String, defaultCreatedAtMs: Int64,
                           limits: StateStoreLimits = StateStoreLimits()) throws(IdentityError) -> OpenClawStateStore {
        let file = try CheckedFile(path: path)
        defer { file.close() }
        guard file.size >= Int64(fileHeader.count), isDatabase(prefix: try file.prefix(fileHeader.count)) else {
            throw .stateStore(path: path, reason: "not an SQLite database (OpenClaw's state store is state/openclaw.sqlite)")
        }
        var walInfo = stat()
        let walPath = path + "-wal"
        let hasWAL = lstat(walPath, &walInfo) == 0
        let database: SQLiteReader
        var copy: PrivateCopy?
        defer { copy?.remove() }
        if hasWAL {
            let wal = try CheckedFile(path: walPath)
            defer { wal.close() }
            let made = try PrivateCopy(database: file, wal: wal, reportedPath: path, limit: limits.maxCopyBytes)
            copy = made
            database = try SQLiteReader(path: path, uri: uri(path: made.databasePath, options: ""), writable: true, limits: limits)
        } else {
            database = try SQLiteReader(path: path, uri: uri(path: path, options: "?immutable=1"), writable: false, limits: limits)
        }
        let identity = try database.primaryIdentity(defaultCreatedAtMs: defaultCreatedAtMs)
        let tokens = try database.tokens(deviceId: identity.identity.deviceId)
        return OpenClawStateStore(identity: identity, tokens: tokens, openedImmutable: !hasWAL)
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

    /// `path` as an SQLite URI: every byte outside `[A-Za-z0-9/._~-]` percent-encoded.
    static func uri(path: String, immutable: Bool) -> String {
        uri(path: path, options: immutable ? "?immutable=1" : "?mode=ro")
    }

    /// `path` as an SQLite URI with `options` (`?…`) appended.
    static func uri(path: String, options: String) -> String {
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
        out += Array(options.utf8)
        return String(decoding: out, as: UTF8.self)
    }
}

/// A store file opened with O_NOFOLLOW and checked as a key file: a regular file, no
/// group/other permission bits.
private struct CheckedFile {
    let path: String
    let fd: Int32
    let size: Int64
    let mode: UInt32

    init(path: String) throws(IdentityError) {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: throw .noIdentity(path: path)
            case ELOOP: throw .symlink(path: path)
            default: throw .system(SystemError(call: "open", errno: errno, path: path))
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError(call: "fstat", errno: errno, path: path)
            Glibc.close(fd)
            throw .system(error)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw .notARegularFile(path: path)
        }
        guard info.st_mode & 0o077 == 0 else {
            Glibc.close(fd)
            throw .unsafePermissions(path: path, mode: UInt32(info.st_mode))
        }
        self.path = path
        self.fd = fd
        self.size = Int64(info.st_size)
        self.mode = UInt32(info.st_mode)
    }

    /// The first `count` bytes (fewer at the end of the file).
    func prefix(_ count: Int) throws(IdentityError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n >= 0 else { throw .system(SystemError(call: "pread", errno: errno, path: path)) }
        return Array(bytes.prefix(n))
    }

    func close() { Glibc.close(fd) }
}

/// The database and its `-wal`, copied into a private temporary directory for a read that
/// creates nothing beside OpenClaw's store.
private struct PrivateCopy {
    let directory: String
    let databasePath: String

    init(database: CheckedFile, wal: CheckedFile, reportedPath: String, limit: Int64) throws(IdentityError) {
        guard database.size <= limit, wal.size <= limit else {
            throw .stateStore(path: reportedPath, reason: "the store or its -wal is larger than \(limit / (1024 * 1024)) MiB")
        }
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/clawpair-store-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw .system(SystemError(call: "mkdtemp", errno: errno, path: base)) }
        directory = String(cString: template)
        databasePath = directory + "/openclaw.sqlite"
        do {
            try Self.copy(database, to: databasePath)
            try Self.copy(wal, to: databasePath + "-wal")
        } catch {
            remove()
            throw error
        }
    }

    private static func copy(_ source: CheckedFile, to path: String) throws(IdentityError) {
        let out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard out >= 0 else { throw .system(SystemError(call: "open", errno: errno, path: path)) }
        defer { Glibc.close(out) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: Int64 = 0
        while offset < source.size {
            let n = buffer.withUnsafeMutableBytes { pread(source.fd, $0.baseAddress, $0.count, off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .system(SystemError(call: "pread", errno: errno, path: source.path)) }
            if n == 0 { break }
            var written = 0
            while written < n {
                let w = buffer.withUnsafeBytes { write(out, $0.baseAddress! + written, n - written) }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { throw .system(SystemError(call: "write", errno: errno, path: path)) }
                written += w
            }
            offset += Int64(n)
        }
        SecretWipe.wipe(&buffer)
    }

    /// Removes the copy (database, `-wal`, `-shm`, journal) and its directory.
    func remove() {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(databasePath + suffix) }
        rmdir(directory)
    }
}

/// One read-only SQLite connection, closed on deinit. Confined to the reading call.
private final class SQLiteReader {
    let path: String
    let db: OpaquePointer

    let budget: QueryBudget

    init(path: String, uri: String, writable: Bool, limits: StateStoreLimits) throws(IdentityError) {
        self.path = path
        budget = QueryBudget(limits: limits)
        var handle: OpaquePointer?
        let flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(uri, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite could not open it (code \(status))"
            sqlite3_close_v2(handle)
            throw .stateStore(path: path, reason: reason)
        }
        db = handle
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Int32(OpenClawStateStore.maxValueBytes))
        sqlite3_busy_timeout(db, 2000)
        sqlite3_progress_handler(db, StateStoreLimits.stepBlock, { context in
            guard let context else { return 1 }
            return Unmanaged<QueryBudget>.fromOpaque(context).takeUnretainedValue().step() ? 0 : 1
        }, Unmanaged.passUnretained(budget).toOpaque())
        // Schema objects may not call functions with side effects; nothing may be written.
        sqlite3_exec(db, "PRAGMA trusted_schema=OFF; PRAGMA query_only=ON;", nil, nil, nil)
    }

    deinit { sqlite3_close_v2(db) }

    func failure(_ what: String) -> IdentityError {
        .stateStore(path: path, reason: "\(what): \(String(cString: sqlite3_errmsg(db)))")
    }

    /// The type of the schema object called `name` (`table`, `view`, …); nil when there is none.
    func schemaType(_ name: String) throws(IdentityError) -> String? {
        var type: String?
        _ = try query("SELECT type, sql FROM sqlite_schema WHERE name = '\(name)' LIMIT 2", what: "sqlite_schema",
                      checked: true) { (statement) throws(IdentityError) in
            let found = try string(statement, 0, "sqlite_schema.type", max: 64)
            let sql = sqlite3_column_type(statement, 1) == SQLITE_TEXT
                ? String(cString: sqlite3_column_text(statement, 1)).uppercased() : ""
            type = found == "table" && sql.hasPrefix("CREATE VIRTUAL") ? "virtual table" : found
        }
        return type
    }

    /// Refuses `name` unless it is an ordinary table (or absent): a view could run forever.
    func requireTable(_ name: String) throws(IdentityError) {
        if let type = try schemaType(name), type != "table" {
            throw .stateStore(path: path, reason: "not OpenClaw's state store schema (\(name) is a \(type), not a table)")
        }
    }

    /// Runs `sql`, calling `row` for each result row; nil when a table in it does not exist.
    /// The query is bounded by the reader's ``QueryBudget`` (an interrupted one fails).
    func query(_ sql: String, what: String, checked: Bool = false,
               row: (OpaquePointer) throws(IdentityError) -> Void) throws(IdentityError) -> Bool? {
        if !checked { try requireTable(what) }
        budget.start()
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
            if step == SQLITE_INTERRUPT || budget.exhausted {
                throw .stateStore(path: path, reason: "reading \(what) did not finish within its limits (\(budget.limits.maxSteps) "
                                  + "steps, \(DurationText.describe(milliseconds: Int64(budget.limits.maxDuration.milliseconds))))")
            }
            guard step == SQLITE_ROW else { throw failure(what) }
            guard budget.row() else {
                throw .stateStore(path: path, reason: "\(what) returned more rows than the query asks for")
            }
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

/// The work one query may do: steps counted by the progress handler, a deadline, a row cap.
/// Reset by ``start()`` before each query. Confined to the reading thread.
private final class QueryBudget {
    let limits: StateStoreLimits
    private var blocks: Int64 = 0
    private var rows = 0
    private var deadline = Monotonic.now
    private(set) var exhausted = false
    /// The most rows one query returns (its own LIMIT is smaller; a row beyond means a lie).
    static let maxRows = 1024

    init(limits: StateStoreLimits) {
        self.limits = limits
    }

    func start() {
        blocks = 0
        rows = 0
        exhausted = false
        deadline = Monotonic.now + limits.maxDuration
    }

    /// Called every ``StateStoreLimits/stepBlock`` steps: whether the query may go on.
    func step() -> Bool {
        blocks += 1
        if blocks * Int64(StateStoreLimits.stepBlock) > limits.maxSteps || Monotonic.now >= deadline { exhausted = true }
        return !exhausted
    }

    func row() -> Bool {
        rows += 1
        return rows <= Self.maxRows
    }
}
