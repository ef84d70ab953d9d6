#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import ClawpairIdentity

// The paired-gateways registry, kept as the iOS app keeps its gateways: one record per gateway
// with a stable id, its URLs, the TLS pin, the device tokens issued to this machine by role, and
// when it was last seen. One file per gateway, so switching gateways never mixes their state:
//
//   <clawpair home>/gateways/          0700
//     <id>.json                        0600, one PairedGateway
//     active                           0600, the id `gateways use` selected (one line)
//     .lock                            0600, empty: flock(2) of every read-modify-write
//
// Every change is a transaction (`update`): an exclusive flock on `.lock`, the records read
// again, the caller's change applied to that snapshot, and only the files that differ written
// (each atomically: temporary file, fsync, rename, directory fsync) with SIGINT/SIGTERM held
// back until all are in place. Two clawpair processes therefore never undo each other: a
// `forget` is not brought back by a concurrent command writing the copy it read earlier, and
// two pairings never lose each other's tokens. Reads take no lock: every file is replaced by a
// rename, so a reader sees a whole old or a whole new file.
//
// Records are read with the key-file rules (ClawpairIdentity's `PrivateFile`): no symbolic
// links, regular files only, no group/other permission bits. A record that breaks them is
// refused and reported, never used. At most `maxRecords` (4096) records are read; more are reported
// (`tooManyRecords`) and the registry then refuses changes. `forget` deletes the record and with
// it the tokens and the pin.

/// A device token as the registry stores it: the same fields the gateway issued.
public typealias StoredDeviceToken = IssuedDeviceToken

/// One paired gateway.
public struct PairedGateway: Sendable, Equatable {
    /// Stable id, made once when the gateway is first stored (`gw-` and 16 hex digits).
    public var id: String
    /// The name the user refers to it by (unique in the registry).
    public var name: String
    /// Its URLs, the one that last worked first.
    public var urls: [String]
    /// The SHA-256 pin of its TLS certificate (64 lowercase hex), when it uses TLS.
    public var tlsFingerprint: String?
    /// The deviceId the tokens were issued to.
    public var deviceId: String
    /// Device tokens by role.
    public var tokens: [StoredDeviceToken]
    /// When this machine paired with the gateway, in ms since the epoch.
    public var pairedAtMs: Int64
    /// When it was last seen, in ms since the epoch.
    public var lastSeenAtMs: Int64?
    /// The display name this device paired with (reconnects send the same, so the gateway sees
    /// no metadata change).
    public var deviceName: String?

    /// A registry entry; `id` is new unless given.
    public init(id: String = PairedGateway.makeID(), name: String, urls: [String], tlsFingerprint: String? = nil, deviceId: String,
                tokens: [StoredDeviceToken] = [], pairedAtMs: Int64, lastSeenAtMs: Int64? = nil, deviceName: String? = nil) {
        self.id = id
        self.name = name
        self.urls = urls
        self.tlsFingerprint = tlsFingerprint
        self.deviceId = deviceId
        self.tokens = tokens
        self.pairedAtMs = pairedAtMs
        self.lastSeenAtMs = lastSeenAtMs
        self.deviceName = deviceName
    }

    /// A fresh id: `gw-` and 16 random hex digits.
    public static func makeID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = UInt64.random(in: 0...UInt64.max, using: &generator)
        let hex = String(value, radix: 16)
        return "gw-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The token for `role`, when one is stored for `deviceId`.
    public func token(for role: String, deviceId: String) -> StoredDeviceToken? {
        guard deviceId == self.deviceId else { return nil }
        return tokens.first { $0.role == role }
    }

    /// Stores `token`, replacing the one for its role.
    public mutating func store(_ token: StoredDeviceToken) {
        tokens.removeAll { $0.role == token.role }
        tokens.append(token)
        tokens.sort { $0.role < $1.role }
    }

    /// Whether `url` is one of its URLs (compared without a trailing slash, scheme and host
    /// lowercased).
    public func matches(url: String) -> Bool {
        let wanted = Self.canonical(url)
        return urls.contains { Self.canonical($0) == wanted }
    }

    static func canonical(_ url: String) -> String {
        var text = url.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The record as stored (tokens included).
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", 1), ("id", .string(id)), ("name", .string(name)),
            ("urls", .array(urls.map(JSONValue.string))),
            ("tlsFingerprint", tlsFingerprint.map(JSONValue.string) ?? .null),
            ("deviceId", .string(deviceId)),
        ]
        members.append(("tokens", .object(tokens.map { token in
            var entry: [(String, JSONValue)] = [("token", .string(token.token)), ("role", .string(token.role)),
                                                ("scopes", .array(token.scopes.map(JSONValue.string)))]
            if let issued = token.issuedAtMs { entry.append(("issuedAtMs", .int(issued))) }
            return (token.role, .object(entry))
        })))
        members.append(("pairedAtMs", .int(pairedAtMs)))
        members.append(("lastSeenAtMs", lastSeenAtMs.map(JSONValue.int) ?? .null))
        members.append(("deviceName", deviceName.map(JSONValue.string) ?? .null))
        return .object(members)
    }

    /// Parses a stored record.
    public init(json: JSONValue) throws(GatewayRegistryError) {
        guard json["version"]?.int64Value == 1 else { throw .damaged(path: "", reason: "unsupported version") }
        guard let id = json["id"]?.stringValue, Self.isValidID(id) else { throw .damaged(path: "", reason: "bad id") }
        guard let name = json["name"]?.stringValue, !name.isEmpty else { throw .damaged(path: "", reason: "no name") }
        guard let urls = json["urls"]?.arrayValue?.compactMap(\.stringValue), !urls.isEmpty else {
            throw .damaged(path: "", reason: "no urls")
        }
        guard let deviceId = json["deviceId"]?.stringValue else { throw .damaged(path: "", reason: "no deviceId") }
        var tokens: [StoredDeviceToken] = []
        for (role, entry) in json["tokens"]?.objectValue ?? [] {
            guard let token = entry["token"]?.stringValue, !token.isEmpty else { throw .damaged(path: "", reason: "token \(role) is empty") }
            tokens.append(StoredDeviceToken(token: token, role: role, scopes: (entry["scopes"]?.arrayValue ?? []).compactMap(\.stringValue),
                                            issuedAtMs: entry["issuedAtMs"]?.int64Value))
        }
        self.init(id: id, name: name, urls: urls, tlsFingerprint: json["tlsFingerprint"]?.stringValue, deviceId: deviceId,
                  tokens: tokens, pairedAtMs: json["pairedAtMs"]?.int64Value ?? 0, lastSeenAtMs: json["lastSeenAtMs"]?.int64Value,
                  deviceName: json["deviceName"]?.stringValue)
    }

    /// `gw-` and 1…32 lowercase hex digits or dashes (so an id is always a safe file name).
    public static func isValidID(_ id: String) -> Bool {
        guard id.hasPrefix("gw-"), id.utf8.count <= 40, id.utf8.count > 3 else { return false }
        return id.utf8.dropFirst(3).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2d }
    }
}

/// Registry failures. Messages name the file; what to do about them is the caller's
/// business.
public enum GatewayRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No gateway has this name or id (`known`: the names that exist).
    case unknownGateway(String, known: [String])
    /// A record cannot be read.
    case damaged(path: String, reason: String)
    /// A record or the selection file is accessible to other users (permission bits `mode`).
    case insecureFile(path: String, mode: UInt32)
    /// A record or the selection file is a symbolic link.
    case symlink(path: String)
    /// Another gateway already has this name.
    case nameTaken(String)
    /// The directory holds more than `limit` records: the rest are not read, and the registry
    /// refuses changes until some are forgotten.
    case tooManyRecords(directory: String, limit: Int)
    /// The record of the gateway called `name` would be `bytes` long, more than the `limit`
    /// a record may have to be read back (``GatewayRegistry/maxRecordBytes``): refused before
    /// anything was written.
    case recordTooLarge(name: String, bytes: Int, limit: Int)
    /// Another process held the registry's lock at `path` (pid `holder`, when known) for
    /// longer than the change's ``GatewayRegistry/lockTimeout``: nothing was changed.
    case lockTimeout(path: String, holder: Int32?, waited: Duration)
    /// A file operation failed.
    case io(String)

    /// What failed, in one sentence.
    public var message: String {
        switch self {
        case .unknownGateway(let name, _): return "no paired gateway is called '\(TerminalText.sanitize(name, maxScalars: 80))'"
        case .damaged(let path, let reason): return "the gateway record \(path) is damaged: \(reason)"
        case .insecureFile(let path, let mode):
            return "\(path) is accessible to other users (mode \(String(mode & 0o7777, radix: 8))); refusing to use a gateway record others can read"
        case .symlink(let path): return "\(path) is a symbolic link; gateway records must be regular files"
        case .nameTaken(let name): return "a paired gateway is already called '\(TerminalText.sanitize(name, maxScalars: 80))'"
        case .tooManyRecords(let directory, let limit): return "\(directory) holds more than \(limit) gateway records; only \(limit) are read"
        case .recordTooLarge(let name, let bytes, let limit):
            return "the record of '\(TerminalText.sanitize(name, maxScalars: 80))' would be \(bytes) bytes, more than the \(limit) a record "
                + "may have; nothing was written"
        case .lockTimeout(let path, let holder, let waited):
            return "gave up after \(DurationText.describe(milliseconds: GatewayPairing.milliseconds(waited))) waiting for the registry lock "
                + "\(path), held by \(holder.map { "process \($0)" } ?? "another process"); nothing was changed"
        case .io(let detail): return detail
        }
    }

    /// A readable form, for messages and logs.
    public var description: String { message }
}

/// The registry directory: read it with `list`/`gateway(named:)`/`active()`, change it with
/// `update` (a locked read-modify-write) or the one-change helpers built on it.
public struct GatewayRegistry: Sendable, Equatable {
    /// How long a change waits for another process's lock before it gives up
    /// (``GatewayRegistryError/lockTimeout(path:holder:waited:)``); nil waits as long as it takes.
    public var lockTimeout: Duration? = nil
    /// Hears, once, that a change has waited ``lockNoticeAfter`` for the lock another process
    /// holds: what it waits for, and that process's pid when the kernel tells.
    public var onLockWait: (@Sendable (_ path: String, _ holder: Int32?) -> Void)? = nil
    /// How long a change waits for the lock before ``onLockWait`` hears of it (1 s).
    public static let lockNoticeAfter: Duration = .seconds(1)

    /// The same directory, limits and lock timeout (the lock-wait listener is not compared).
    public static func == (lhs: GatewayRegistry, rhs: GatewayRegistry) -> Bool {
        lhs.directory == rhs.directory && lhs.maxRecords == rhs.maxRecords && lhs.lockTimeout == rhs.lockTimeout
    }

    /// The largest record read (a record with every role's token is about 2 KiB; each read goes
    /// through a guarded buffer this large).
    public static let maxRecordBytes = 64 * 1024
    /// The default of ``maxRecords``.
    public static let defaultMaxRecords = 4096

    /// `<home>/gateways`.
    public let directory: String
    /// At most this many records are read; more are reported as
    /// ``GatewayRegistryError/tooManyRecords(directory:limit:)``, and changes are refused.
    public let maxRecords: Int

    /// The registry under the clawpair home directory (see `IdentityStore`).
    public init(home: String, maxRecords: Int = GatewayRegistry.defaultMaxRecords) {
        self.init(directory: home + "/gateways", maxRecords: maxRecords)
    }

    /// A registry in `directory` itself.
    public init(directory: String, maxRecords: Int = GatewayRegistry.defaultMaxRecords) {
        self.directory = directory
        self.maxRecords = max(1, maxRecords)
    }

    private func path(of id: String) -> String { "\(directory)/\(id).json" }
    private var activePath: String { "\(directory)/active" }
    /// `<directory>/.lock`, the file every transaction holds an exclusive flock on.
    public var lockPath: String { "\(directory)/.lock" }

    // MARK: Reading

    /// The registry as it is now, without a lock (every file is replaced by a rename, so each
    /// one read is whole).
    public func snapshot() -> RegistrySnapshot {
        guard let dir = opendir(directory) else {
            if errno == ENOENT { return RegistrySnapshot() }
            return RegistrySnapshot(problems: [.io(SystemError(call: "opendir", errno: errno, path: directory).message)])
        }
        var names: [String] = []
        var problems: [GatewayRegistryError] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".json"), !name.hasPrefix(".") else { continue }
            if names.count == maxRecords {
                problems.append(.tooManyRecords(directory: directory, limit: maxRecords))
                break
            }
            names.append(name)
        }
        closedir(dir)
        var gateways: [PairedGateway] = []
        for name in names.sorted() {
            do {
                if let record = try read("\(directory)/\(name)") { gateways.append(record) }
            } catch {
                problems.append(error)
            }
        }
        var activeID: String?
        var unreadableActive: GatewayRegistryError?
        do {
            if let bytes = try readPrivate(activePath, limit: 128) {
                let id = String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines
                if gateways.contains(where: { $0.id == id }) {
                    activeID = id
                } else if PairedGateway.isValidID(id), let problem = problems.first(where: { $0.recordID == id }) {
                    unreadableActive = problem
                }
            }
        } catch {
            problems.append(error)
        }
        var snapshot = RegistrySnapshot(gateways: gateways, activeID: activeID, problems: problems)
        snapshot.unreadableActive = unreadableActive
        return snapshot
    }

    /// Every readable record, sorted by name; records that cannot be used (damaged, insecure,
    /// beyond the limit) are reported in `damaged`.
    public func list() -> (gateways: [PairedGateway], damaged: [GatewayRegistryError]) {
        let snapshot = snapshot()
        return (snapshot.gateways, snapshot.problems)
    }

    /// The gateway called `name` (or with this id); see ``RegistrySnapshot/gateway(named:)``.
    public func gateway(named name: String) throws(GatewayRegistryError) -> PairedGateway {
        try snapshot().gateway(named: name)
    }

    /// The gateway one of whose URLs is `url`.
    public func gateway(url: String) -> PairedGateway? {
        snapshot().gateway(url: url)
    }

    /// The gateway `use` selected, when it still exists.
    public func active() -> PairedGateway? {
        snapshot().active
    }

    /// The record at `file`; nil when it vanished after the directory was listed.
    private func read(_ file: String) throws(GatewayRegistryError) -> PairedGateway? {
        guard let bytes = try readPrivate(file, limit: Self.maxRecordBytes) else { return nil }
        do {
            let record = try PairedGateway(json: try JSONValue.parse(bytes))
            guard file.hasSuffix("/\(record.id).json") else { throw GatewayRegistryError.damaged(path: file, reason: "its id is not its file name") }
            return record
        } catch let error as GatewayRegistryError {
            if case .damaged(_, let reason) = error { throw .damaged(path: file, reason: reason) }
            throw error
        } catch {
            throw .damaged(path: file, reason: "\(error)")
        }
    }

    /// A file's bytes under the key-file rules; nil when it does not exist.
    private func readPrivate(_ file: String, limit: Int) throws(GatewayRegistryError) -> [UInt8]? {
        do {
            return try PrivateFile.read(path: file, limit: limit)
        } catch {
            switch error {
            case .noIdentity: return nil
            case .symlink: throw .symlink(path: file)
            case .unsafePermissions(_, let mode): throw .insecureFile(path: file, mode: mode)
            case .notARegularFile: throw .damaged(path: file, reason: "not a regular file")
            case .malformed: throw .damaged(path: file, reason: "larger than \(limit) bytes")
            default: throw .io(error.message)
            }
        }
    }

    // MARK: Changing

    /// Runs `change` on the registry as it is now and writes what it changed, as one
    /// transaction: an exclusive flock on ``lockPath`` is held from the re-read to the last
    /// write, so no other clawpair process changes the registry in between. Only records that
    /// differ are written (atomically, 0600) or deleted; SIGINT and SIGTERM are held back while
    /// they are, so the records and the selection are written together or not at all. Nothing
    /// is written when `change` throws. Throws ``GatewayRegistryError/tooManyRecords(directory:limit:)``
    /// when not every record could be read, and ``GatewayRegistryError/nameTaken(_:)`` when
    /// the result gives two gateways one name.
    @discardableResult
    public func update<T>(_ change: (inout RegistrySnapshot) throws(GatewayRegistryError) -> T) throws(GatewayRegistryError) -> T {
        let lock = try RegistryLock(path: lockPath, directory: directory, timeout: lockTimeout, notice: onLockWait)
        defer { lock.release() }
        // Under the lock every temporary of a writer that died is stale, whatever record it was
        // for (a pairing killed while writing a new record would leave its tokens forever).
        AtomicFile.removeStaleTemporaries(directory: directory, name: nil)
        let before = snapshot()
        if let limit = before.problems.first(where: { if case .tooManyRecords = $0 { return true } else { return false } }) {
            throw limit
        }
        var after = before
        let result = try change(&after)
        try commit(before, after)
        return result
    }

    /// Changes the record with this id, if it still exists (a concurrent `forget` wins), and
    /// returns it as written; nil when it is gone.
    @discardableResult
    public func update(id: String, _ change: (inout PairedGateway) -> Void) throws(GatewayRegistryError) -> PairedGateway? {
        try update { (snapshot: inout RegistrySnapshot) throws(GatewayRegistryError) -> PairedGateway? in
            guard let index = snapshot.gateways.firstIndex(where: { $0.id == id }) else { return nil }
            change(&snapshot.gateways[index])
            return snapshot.gateways[index]
        }
    }

    /// Selects `gateway` for commands that name none (it must still exist).
    public func setActive(_ gateway: PairedGateway) throws(GatewayRegistryError) {
        try update { (snapshot: inout RegistrySnapshot) throws(GatewayRegistryError) in try snapshot.setActive(id: gateway.id) }
    }

    /// Writes `gateway` (atomically, 0600), replacing the record with its id or adding it,
    /// refusing a name another gateway has. It replaces the whole record: to change a record
    /// read earlier, use ``update(id:_:)``, which does not bring back a forgotten one.
    public func save(_ gateway: PairedGateway) throws(GatewayRegistryError) {
        try update { (snapshot: inout RegistrySnapshot) throws(GatewayRegistryError) in try snapshot.save(gateway) }
    }

    /// Deletes the record (tokens and pin with it), and the selection when it pointed there.
    public func forget(_ gateway: PairedGateway) throws(GatewayRegistryError) {
        _ = try forget(id: gateway.id)
    }

    /// Deletes the record file with this id, under the lock, whether it can be read or not
    /// (damaged, insecure, a symbolic link: the link itself goes; beyond ``maxRecords``: this is
    /// how a registry gets back under it), and the selection when it pointed there. Returns the
    /// file's path, or nil when there is no such file.
    @discardableResult
    public func forget(id: String) throws(GatewayRegistryError) -> String? {
        guard PairedGateway.isValidID(id) else { return nil }
        let file = path(of: id)
        var info = stat()
        guard lstat(file, &info) == 0 else { return nil }
        let lock = try RegistryLock(path: lockPath, directory: directory, timeout: lockTimeout, notice: onLockWait)
        defer { lock.release() }
        let hold = SignalHold()
        defer { hold.release() }
        if let bytes = try? readPrivate(activePath, limit: 128),
           String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines == id {
            try remove(activePath)
        }
        try remove(file)
        return file
    }

    private func commit(_ before: RegistrySnapshot, _ after: RegistrySnapshot) throws(GatewayRegistryError) {
        var names = Set<String>()
        for gateway in after.gateways {
            guard PairedGateway.isValidID(gateway.id) else { throw .damaged(path: path(of: gateway.id), reason: "bad id") }
            guard names.insert(gateway.name).inserted else { throw .nameTaken(gateway.name) }
        }
        let old = Dictionary(before.gateways.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let changed = after.gateways.filter { old[$0.id] != $0 }
        let kept = Set(after.gateways.map(\.id))
        let removed = before.gateways.filter { !kept.contains($0.id) }
        let activeID = after.activeID.flatMap { id in kept.contains(id) ? id : nil }
        guard !changed.isEmpty || !removed.isEmpty || activeID != before.activeID else { return }

        // Every record is serialized and checked against the read limit before anything is
        // written: a record that could not be read back would vanish with its tokens.
        var encoded: [(id: String, bytes: [UInt8])] = []
        for gateway in changed {
            var bytes = Array(gateway.json.pretty().utf8)
            bytes.append(0x0a)
            guard bytes.count <= Self.maxRecordBytes else {
                throw .recordTooLarge(name: gateway.name, bytes: bytes.count, limit: Self.maxRecordBytes)
            }
            encoded.append((gateway.id, bytes))
        }
        let hold = SignalHold()
        defer { hold.release() }
        try prepare()
        for (id, bytes) in encoded {
            try write(bytes, to: path(of: id))
        }
        if activeID != before.activeID {
            if let activeID {
                try write(Array((activeID + "\n").utf8), to: activePath)
            } else {
                try remove(activePath)
            }
        }
        for gateway in removed { try remove(path(of: gateway.id)) }
    }

    private func prepare() throws(GatewayRegistryError) {
        do {
            try AtomicFile.ensurePrivateDirectory(directory)
        } catch {
            throw .io(error.message)
        }
    }

    private func write(_ bytes: [UInt8], to file: String) throws(GatewayRegistryError) {
        do {
            try AtomicFile.write(bytes, to: file, mode: 0o600, replacing: true)
        } catch {
            throw .io(error.message)
        }
    }

    private func remove(_ file: String) throws(GatewayRegistryError) {
        if unlink(file) != 0, errno != ENOENT {
            throw .io(SystemError(call: "unlink", errno: errno, path: file).message)
        }
    }
}

/// The registry's records at one moment, and the changes a transaction makes to them.
public struct RegistrySnapshot: Sendable, Equatable {
    /// The readable records, sorted by name then id.
    public var gateways: [PairedGateway]
    /// The id of the gateway selected as current, when that record exists.
    public var activeID: String?
    /// Files that could not be used: damaged, insecure, symbolic links, beyond the limit.
    public internal(set) var problems: [GatewayRegistryError]
    /// Why the selected gateway's record cannot be read, when the selection names a record
    /// that exists but is refused (damaged, too large, insecure): commands that would use the
    /// default gateway report this instead of silently using another one.
    public internal(set) var unreadableActive: GatewayRegistryError?

    /// A snapshot of these records (an empty registry by default).
    public init(gateways: [PairedGateway] = [], activeID: String? = nil, problems: [GatewayRegistryError] = []) {
        self.gateways = gateways.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        self.activeID = activeID
        self.problems = problems
    }

    /// The selected gateway.
    public var active: PairedGateway? { activeID.flatMap(gateway(id:)) }

    /// The record with this id.
    public func gateway(id: String) -> PairedGateway? { gateways.first { $0.id == id } }

    /// The gateway one of whose URLs is `url`. When several list it (a gateway that moved, and
    /// the one now at its old address), the one with `url` earliest among its routes, then the
    /// one seen last.
    public func gateway(url: String) -> PairedGateway? {
        let wanted = PairedGateway.canonical(url)
        var best: (record: PairedGateway, index: Int)?
        for record in gateways {
            guard let index = record.urls.firstIndex(where: { PairedGateway.canonical($0) == wanted }) else { continue }
            if let current = best {
                if index > current.index { continue }
                if index == current.index, (record.lastSeenAtMs ?? 0) <= (current.record.lastSeenAtMs ?? 0) { continue }
            }
            best = (record, index)
        }
        return best?.record
    }

    /// The gateway called `name` (or with this id). When none is and a record was refused as
    /// insecure or a symbolic link, or records beyond the limit were not read, that is thrown
    /// instead (it may hide the one meant).
    public func gateway(named name: String) throws(GatewayRegistryError) -> PairedGateway {
        if let match = gateways.first(where: { $0.name == name || $0.id == name }) { return match }
        for problem in problems {
            switch problem {
            case .insecureFile, .symlink, .tooManyRecords, .io: throw problem
            default: continue
            }
        }
        throw .unknownGateway(name, known: gateways.map(\.name))
    }

    /// Adds `gateway` or replaces the record with its id; refuses a name another gateway has.
    public mutating func save(_ gateway: PairedGateway) throws(GatewayRegistryError) {
        if gateways.contains(where: { $0.name == gateway.name && $0.id != gateway.id }) { throw .nameTaken(gateway.name) }
        gateways.removeAll { $0.id == gateway.id }
        gateways.append(gateway)
        gateways.sort { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// Removes the record with this id (and the selection, when it pointed there).
    public mutating func forget(id: String) {
        gateways.removeAll { $0.id == id }
        if activeID == id { activeID = nil }
    }

    /// Selects the record with this id.
    public mutating func setActive(id: String) throws(GatewayRegistryError) {
        guard let gateway = gateway(id: id) else { throw .unknownGateway(id, known: gateways.map(\.name)) }
        activeID = gateway.id
    }

    /// `base` if no gateway has that name, else `base-2`, `base-3`, … (a fresh id after 999).
    public func uniqueName(_ base: String) -> String {
        let taken = Set(gateways.map(\.name))
        if !taken.contains(base) { return base }
        for n in 2...999 where !taken.contains("\(base)-\(n)") { return "\(base)-\(n)" }
        return PairedGateway.makeID()
    }
}

/// An exclusive flock(2) on the registry's lock file, created 0600 with O_NOFOLLOW.
private struct RegistryLock {
    let fd: Int32

    init(path: String, directory: String, timeout: Duration?,
         notice: (@Sendable (String, Int32?) -> Void)?) throws(GatewayRegistryError) {
        do {
            try AtomicFile.ensurePrivateDirectory(directory)
        } catch {
            throw .io(error.message)
        }
        let fd: Int32
        do {
            fd = try Syscall.retrying("open", path: path) { open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600) }
        } catch {
            if error.errno == ELOOP { throw .symlink(path: path) }
            throw .io(error.message)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .damaged(path: path, reason: "not a regular file")
        }
        // Poll a non-blocking lock, so a wait can be reported and bounded (issue #25.15).
        let start = Monotonic.now
        var noticed = false
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            if failure == EINTR { continue }
            guard failure == EWOULDBLOCK else {
                close(fd)
                throw .io(SystemError(call: "flock", errno: failure, path: path).message)
            }
            let waited = Monotonic.now - start
            if !noticed, waited >= GatewayRegistry.lockNoticeAfter {
                noticed = true
                notice?(path, Self.holder(of: fd))
            }
            if let timeout, waited >= timeout {
                let holder = Self.holder(of: fd)
                close(fd)
                throw .lockTimeout(path: path, holder: holder, waited: waited)
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            nanosleep(&pause, nil)
        }
        self.fd = fd
    }

    /// The pid holding a flock on the file `fd` is open on, from /proc/locks (nil when unknown).
    static func holder(of fd: Int32) -> Int32? {
        var info = stat()
        guard fstat(fd, &info) == 0, let bytes = try? FileIO.read(path: "/proc/locks", limit: 1 << 20) else { return nil }
        let wanted = ":\(info.st_ino)"
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.contains("FLOCK") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let device = fields.first(where: { $0.hasSuffix(wanted) && $0.filter { $0 == ":" }.count == 2 }),
                  let index = fields.firstIndex(of: device), index > 0, let pid = Int32(fields[index - 1]) else { continue }
            return pid
        }
        return nil
    }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

/// SIGINT and SIGTERM held back on this thread until `release`, so a commit of several files
/// is not cut in half by Ctrl-C.
private struct SignalHold {
    var previous = sigset_t()

    init() {
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGINT)
        sigaddset(&block, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &block, &previous)
    }

    func release() {
        var previous = previous
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }
}

extension String {
    fileprivate var trimmingWhitespaceAndNewlines: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
