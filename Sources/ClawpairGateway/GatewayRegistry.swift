#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

// The paired-gateways registry, kept as the iOS app keeps its gateways: one record per gateway
// with a stable id, its URLs, the TLS pin, the device tokens issued to this machine by role, and
// when it was last seen. One file per gateway, so switching gateways never mixes their state:
//
//   <clawpair home>/gateways/          0700
//     <id>.json                        0600, one PairedGateway
//     active                           0600, the id `gateways use` selected (one line)
//
// Every write is atomic (temporary file, fsync, rename, directory fsync). `forget` deletes the
// record and with it the tokens and the pin.

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
    public var pairedAtMs: Int64
    public var lastSeenAtMs: Int64?
    /// The display name this device paired with (reconnects send the same, so the gateway sees
    /// no metadata change).
    public var deviceName: String?

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

/// Registry failures.
public enum GatewayRegistryError: Error, Sendable, Equatable {
    /// No gateway has this name or id.
    case unknownGateway(String, known: [String])
    /// A record cannot be read.
    case damaged(path: String, reason: String)
    /// Another gateway already has this name.
    case nameTaken(String)
    /// A file operation failed.
    case io(String)
}

extension GatewayRegistryError: ClawpairError {
    public var exitStatus: ExitStatus {
        switch self {
        case .unknownGateway: return .notFound
        case .nameTaken: return .usage
        case .damaged, .io: return .failure
        }
    }
    public var message: String {
        switch self {
        case .unknownGateway(let name, _): return "no paired gateway is called '\(TerminalText.sanitize(name, maxScalars: 80))'"
        case .damaged(let path, let reason): return "the gateway record \(path) is damaged: \(reason)"
        case .nameTaken(let name): return "a paired gateway is already called '\(TerminalText.sanitize(name, maxScalars: 80))'"
        case .io(let detail): return detail
        }
    }
    public var hint: String? {
        switch self {
        case .unknownGateway(_, let known):
            return known.isEmpty ? "no gateway is paired yet: 'clawpair pair' pairs this machine with a setup code"
                : "paired gateways: \(known.joined(separator: ", ")) ('clawpair gateways list')"
        case .damaged: return "'clawpair gateways forget NAME' removes it; then pair again"
        case .nameTaken: return "choose another --name, or 'clawpair gateways forget' the old one"
        case .io: return nil
        }
    }
}

/// The registry directory.
public struct GatewayRegistry: Sendable, Equatable {
    /// The largest record read.
    public static let maxRecordBytes = 256 * 1024
    /// At most this many records are read.
    public static let maxRecords = 256

    /// `<home>/gateways`.
    public let directory: String

    /// The registry under the clawpair home directory (see `IdentityStore`).
    public init(home: String) {
        directory = home + "/gateways"
    }

    private func path(of id: String) -> String { "\(directory)/\(id).json" }
    private var activePath: String { "\(directory)/active" }

    /// Every readable record, sorted by name; damaged records are reported in `damaged`.
    public func list() -> (gateways: [PairedGateway], damaged: [GatewayRegistryError]) {
        guard let dir = opendir(directory) else { return ([], []) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir), names.count < Self.maxRecords {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".json"), !name.hasPrefix(".") { names.append(name) }
        }
        var gateways: [PairedGateway] = []
        var damaged: [GatewayRegistryError] = []
        for name in names.sorted() {
            let file = "\(directory)/\(name)"
            do {
                gateways.append(try read(file))
            } catch {
                damaged.append(error)
            }
        }
        return (gateways.sorted { ($0.name, $0.id) < ($1.name, $1.id) }, damaged)
    }

    private func read(_ file: String) throws(GatewayRegistryError) -> PairedGateway {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path: file, limit: Self.maxRecordBytes)
        } catch {
            throw .damaged(path: file, reason: error.message)
        }
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

    /// The gateway called `name` (or with this id).
    public func gateway(named name: String) throws(GatewayRegistryError) -> PairedGateway {
        let all = list().gateways
        if let match = all.first(where: { $0.name == name || $0.id == name }) { return match }
        throw .unknownGateway(name, known: all.map(\.name))
    }

    /// The gateway one of whose URLs is `url`.
    public func gateway(url: String) -> PairedGateway? {
        list().gateways.first { $0.matches(url: url) }
    }

    /// The gateway `use` selected, when it still exists.
    public func active() -> PairedGateway? {
        guard let bytes = try? FileIO.read(path: activePath, limit: 128) else { return nil }
        let id = String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines
        guard PairedGateway.isValidID(id) else { return nil }
        return try? read(path(of: id))
    }

    /// Selects `gateway` for commands that name none.
    public func setActive(_ gateway: PairedGateway) throws(GatewayRegistryError) {
        try prepare()
        try write(Array((gateway.id + "\n").utf8), to: activePath)
    }

    /// Writes `gateway` (atomically, 0600), refusing a name another gateway has.
    public func save(_ gateway: PairedGateway) throws(GatewayRegistryError) {
        if list().gateways.contains(where: { $0.name == gateway.name && $0.id != gateway.id }) { throw .nameTaken(gateway.name) }
        try prepare()
        var bytes = Array(gateway.json.pretty().utf8)
        bytes.append(0x0a)
        try write(bytes, to: path(of: gateway.id))
    }

    /// Deletes the record (tokens and pin with it), and the selection when it pointed there.
    public func forget(_ gateway: PairedGateway) throws(GatewayRegistryError) {
        if active()?.id == gateway.id, unlink(activePath) != 0, errno != ENOENT {
            throw .io(SystemError(call: "unlink", errno: errno, path: activePath).message)
        }
        if unlink(path(of: gateway.id)) != 0, errno != ENOENT {
            throw .io(SystemError(call: "unlink", errno: errno, path: path(of: gateway.id)).message)
        }
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
}

extension String {
    fileprivate var trimmingWhitespaceAndNewlines: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
