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
        // A confirmation waits only for a request still pending.
        if let asked = confirming, !pending.contains(where: { $0.requestId == asked.requestId }) { confirming = nil }
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

    /// The request an approval waits to be confirmed for (``press(_:)``), nil when none.
    public private(set) var confirming: PendingRequest?

    /// Whether approving `request` grants more than a node's baseline (a role other than
    /// `node`, or any scope, `operator.admin` above all): then `a` asks first, naming what it grants.
    public static func needsConfirmation(_ request: PendingRequest) -> Bool {
        let roles = request.roles ?? request.role.map { [$0] } ?? []
        return roles.isEmpty || roles.contains { $0 != "node" } || !(request.scopes ?? []).isEmpty
    }

    /// What approving `request` grants, in words: `role operator with scopes operator.admin, operator.read`.
    public static func grants(_ request: PendingRequest) -> String {
        let roles = request.roles ?? request.role.map { [$0] } ?? []
        let scopes = (request.scopes ?? []).map { TerminalText.sanitize($0, maxScalars: 64) }
        let role = roles.isEmpty ? "an unstated role" : "role " + roles.map { TerminalText.sanitize($0, maxScalars: 32) }.joined(separator: ", ")
        return role + (scopes.isEmpty ? " without scopes" : " with scopes " + scopes.joined(separator: ", "))
    }

    /// Takes keys typed since the last look, in order: the actions to take (several `a` presses
    /// act on the same newest request once), whether to quit, whether a key wanted a request
    /// while none is pending. Approving a request that ``needsConfirmation(_:)`` first asks
    /// (``PairingWatchKeyPress/confirmation``): `y` then approves it, any other key cancels.
    public mutating func press(_ keys: [UInt8]) -> PairingWatchKeyPress {
        var pressed = PairingWatchKeyPress()
        func add(_ action: PairingWatchAction) {
            if !pressed.actions.contains(where: { $0.requestId == action.requestId }) { pressed.actions.append(action) }
        }
        for key in keys {
            if let asked = confirming {
                confirming = nil
                if key == UInt8(ascii: "y") || key == UInt8(ascii: "Y") {
                    add(.approve(requestId: asked.requestId))
                    continue
                }
                pressed.cancelled = asked.requestId
                if key != UInt8(ascii: "q") && key != UInt8(ascii: "Q") { continue }
            }
            switch decide(key) {
            case .quit: pressed.quit = true
            case .act(.approve, let request) where Self.needsConfirmation(request)
                                                   && !pressed.actions.contains(where: { $0.requestId == request.requestId }):
                confirming = request
                let name = request.displayName.map { TerminalText.sanitize($0, maxScalars: 32) } ?? "an unnamed device"
                pressed.confirmation = "approve \(TerminalText.sanitize(request.requestId, maxScalars: 64)) (\(name)) as "
                    + "\(Self.grants(request))? press y to approve, any other key cancels"
            case .act(let action, _): add(action)
            case .nothingPending: pressed.nothingPending = true
            case .ignored: break
            }
        }
        if confirming == nil { pressed.confirmation = nil }
        return pressed
    }

    /// `newest: <request id> (<name>); keys: a approve newest, …`, or the keys alone.
    public var statusLine: String {
        guard let newest else { return "no request pending; " + Self.help }
        let name = newest.displayName.map { " (" + TerminalText.sanitize($0, maxScalars: 32) + ")" } ?? ""
        return "newest: \(TerminalText.sanitize(newest.requestId, maxScalars: 64))\(name); " + Self.help
    }
}

/// What keys typed since the last look ask (``PairingWatchKeys/press(_:)``).
public struct PairingWatchKeyPress: Sendable, Equatable {
    /// The approvals and rejections to make, in order.
    public var actions: [PairingWatchAction] = []
    /// `q` was pressed.
    public var quit = false
    /// A key wanted a request while none is pending.
    public var nothingPending = false
    /// The question an approval waits on (naming the request and what it grants), when one does.
    public var confirmation: String?
    /// The request whose approval a key other than `y` cancelled.
    public var cancelled: String?

    /// Nothing pressed.
    public init() {}
}
