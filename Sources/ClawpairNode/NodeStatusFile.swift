// What a running node last said about itself, for `node status` from another process:
// `<clawpair home>/node/status.json` (0600, atomic writes), rewritten on each state change.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// The state a running node publishes.
public struct NodeStatusRecord: Sendable, Equatable {
    /// The process id of the node.
    public var pid: Int32
    /// `connecting`, `connected`, `waiting-approval`, `disconnected`, `stopped`, `exited`.
    public var state: String
    /// The registry id of the gateway.
    public var gatewayId: String
    /// The gateway's name in the registry.
    public var gatewayName: String
    /// The URL of the current connection (when connected).
    public var url: String?
    /// When the current state began (wall clock, ms).
    public var sinceMs: Int64
    /// The last error, in one line.
    public var lastError: String?

    /// A record with these members.
    public init(pid: Int32, state: String, gatewayId: String, gatewayName: String, url: String? = nil, sinceMs: Int64,
                lastError: String? = nil) {
        self.pid = pid
        self.state = state
        self.gatewayId = gatewayId
        self.gatewayName = gatewayName
        self.url = url
        self.sinceMs = sinceMs
        self.lastError = lastError
    }

    /// The record as JSON.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("pid", .int(Int64(pid))), ("state", .string(state)),
                                              ("gatewayId", .string(gatewayId)), ("gatewayName", .string(gatewayName))]
        members.append(("url", url.map { .string($0) } ?? .null))
        members.append(("sinceMs", .int(sinceMs)))
        members.append(("lastError", lastError.map { .string($0) } ?? .null))
        return .object(members)
    }

    /// Reads a record written by ``json``; `nil` when a member is missing or of the wrong type.
    public init?(json: JSONValue) {
        guard let pid = json["pid"]?.int64Value, let pid32 = Int32(exactly: pid), let state = json["state"]?.stringValue,
              let gatewayId = json["gatewayId"]?.stringValue, let gatewayName = json["gatewayName"]?.stringValue,
              let since = json["sinceMs"]?.int64Value else { return nil }
        self.init(pid: pid32, state: state, gatewayId: gatewayId, gatewayName: gatewayName, url: json["url"]?.stringValue,
                  sinceMs: since, lastError: json["lastError"]?.stringValue)
    }

    /// Whether the process that wrote it still runs (kill(pid, 0); EPERM counts as running).
    public var processIsRunning: Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }
}

/// `<home>/node/status.json`.
public struct NodeStatusFile: Sendable {
    /// The largest status file read.
    public static let maxBytes = 16 * 1024
    /// The file's path.
    public let path: String

    /// The status file of the clawpair home `home`.
    public init(home: String) {
        path = home + "/node/status.json"
    }

    /// Writes `record` (0600, atomically); failures are returned, not thrown: status is best effort.
    @discardableResult
    public func write(_ record: NodeStatusRecord) -> Bool {
        let directory = String(path.dropLast("/status.json".count))
        do {
            try AtomicFile.ensurePrivateDirectory(directory)
            try AtomicFile.write(Array((record.json.compact() + "\n").utf8), to: path, replacing: true)
            return true
        } catch {
            return false
        }
    }

    /// The last record written, or `nil` when there is none (or it is damaged).
    public func read() -> NodeStatusRecord? {
        guard let bytes = try? FileIO.read(path: path, limit: Self.maxBytes, followSymlinks: false),
              let json = try? JSONValue.parse(bytes) else { return nil }
        return NodeStatusRecord(json: json)
    }
}
