// Keys for `devices watch` on a terminal (issue #15 §1): the operator approves or rejects the
// newest pending request with one key. The decision lives here, apart from the terminal
// (ClawpairCLIKit's KeyInput), so it is tested without one.

import ClawpairCore

/// What a key asks ``PairingWatch`` to do.
public enum PairingWatchKeyDecision: Sendable, Equatable {
    /// Approve or reject this request.
    case act(PairingWatchAction, PendingRequest)
    /// Stop watching.
    case quit
    /// The key acts on a request, but none is pending.
    case nothingPending
    /// Not a key the watch knows.
    case ignored
}

/// The pending requests as the watch's events tell them, and what each key does: `a` approves
/// the newest, `r` rejects it, `q` quits.
public struct PairingWatchKeys: Sendable, Equatable {
    /// Pending requests, newest first.
    public private(set) var pending: [PendingRequest] = []

    /// The line that tells the operator the keys.
    public static let help = "keys: a approve newest, r reject newest, q quit"

    /// No pending requests yet.
    public init() {}

    /// The request `a` and `r` act on.
    public var newest: PendingRequest? { pending.first }

    /// Follows `event`: a listing replaces the requests, a request is added (replacing the
    /// device's older one), a resolution or an action removes it. True when the event is one of
    /// these (then the status line may have changed).
    @discardableResult
    public mutating func observe(_ event: PairingWatchEvent) -> Bool {
        switch event {
        case .connected(let requests, _):
            pending = requests.sorted(by: PendingRequest.newerFirst)
        case .requested(let request, _):
            pending.removeAll { $0.deviceId == request.deviceId || $0.requestId == request.requestId }
            pending = (pending + [request]).sorted(by: PendingRequest.newerFirst)
        case .resolved(let resolution):
            pending.removeAll { $0.requestId == resolution.requestId }
        case .acted(let action, _):
            pending.removeAll { $0.requestId == action.requestId }
        case .setupCompleted, .other, .actionFailed, .disconnected:
            return false
        }
        return true
    }

    /// What `key` (one byte from the terminal) does now.
    public func decide(_ key: UInt8) -> PairingWatchKeyDecision {
        switch key {
        case UInt8(ascii: "q"), UInt8(ascii: "Q"):
            return .quit
        case UInt8(ascii: "a"), UInt8(ascii: "A"), UInt8(ascii: "r"), UInt8(ascii: "R"):
            guard let newest else { return .nothingPending }
            let approve = key == UInt8(ascii: "a") || key == UInt8(ascii: "A")
            return .act(approve ? .approve(requestId: newest.requestId) : .reject(requestId: newest.requestId), newest)
        default:
            return .ignored
        }
    }

    /// What keys typed since the last look ask, in order: the actions (several `a` presses act
    /// on the same newest request once), whether to quit, whether one asked for a request while
    /// none is pending.
    public func actions(for keys: [UInt8]) -> (actions: [PairingWatchAction], quit: Bool, nothingPending: Bool) {
        var actions: [PairingWatchAction] = [], quit = false, nothingPending = false
        for key in keys {
            switch decide(key) {
            case .quit: quit = true
            case .act(let action, _) where !actions.contains(where: { $0.requestId == action.requestId }): actions.append(action)
            case .act: break
            case .nothingPending: nothingPending = true
            case .ignored: break
            }
        }
        return (actions, quit, nothingPending)
    }

    /// `newest: <request id> (<name>); keys: a approve newest, …`, or the keys alone.
    public var statusLine: String {
        guard let newest else { return "no request pending; " + Self.help }
        let name = newest.displayName.map { " (" + TerminalText.sanitize($0, maxScalars: 32) + ")" } ?? ""
        return "newest: \(TerminalText.sanitize(newest.requestId, maxScalars: 64))\(name); " + Self.help
    }
}
