// What a pairing watch tells its user about each event, and the auto-approval decisions it
// takes (`clawpair devices watch`): a value-type state machine fed the events of
// ``PairingWatch/run(until:poll:handle:)``, so a program that follows pairing requests gets the
// same transcript, rules and JSON lines without copying them. It remembers which rule approved
// which request, so the `acted` event names the rule.

import ClawpairCore

/// A line of a pairing watch's transcript: for people on standard output, or a note (progress
/// and decisions) for standard error.
public enum PairingWatchLine: Sendable, Equatable {
    case output(String)
    case note(String)

    /// The line's text.
    public var text: String {
        switch self {
        case .output(let text), .note(let text): return text
        }
    }

    /// Whether it is a note (standard error).
    public var isNote: Bool {
        if case .note = self { return true }
        return false
    }
}

/// One event's output: the JSON line, the transcript in order, and the actions to take.
public struct PairingWatchOutput: Sendable, Equatable {
    /// The event as one JSON object (``PairingWatchEvent/json(rule:)``), when the log writes JSON
    /// lines; nil otherwise.
    public var json: JSONValue?
    /// What to tell people, in order; with JSON lines only the notes.
    public var lines: [PairingWatchLine] = []
    /// What the watch should do: the approvals the rules decided.
    public var actions: [PairingWatchAction] = []
}

/// The transcript and rule decisions of a pairing watch, event by event.
public struct PairingWatchLog: Sendable {
    /// The auto-approval rules; none approves nothing.
    public let rules: PairingAutoApproval
    /// Whether each event is one JSON line instead of human lines.
    public let jsonLines: Bool
    /// The rule that approved each request (by request id), for the `acted` event.
    public private(set) var approvedBy: [String: String] = [:]
    /// The newest request and what each key does, when an operator types keys (a terminal);
    /// then every change of the newest request is noted (``PairingWatchKeys/statusLine``).
    public private(set) var keys: PairingWatchKeys?
    /// The requests whose line was printed, so that a reconnect's listing prints only new ones.
    private var shown = Set<String>()

    /// `interactive`: keys act on the newest request (``pressed(_:)``).
    public init(rules: PairingAutoApproval, jsonLines: Bool, interactive: Bool = false) {
        self.rules = rules
        self.jsonLines = jsonLines
        keys = interactive ? PairingWatchKeys() : nil
    }

    /// What the keys typed since the last look ask (``PairingWatchKeys/press(_:)``): the
    /// actions, whether to quit, and notes: a key wanted a request while none is pending, an
    /// approval beyond a node's baseline waits for `y` (naming the scopes), or was cancelled.
    public mutating func pressed(_ typed: [UInt8]) -> (output: PairingWatchOutput, quit: Bool) {
        guard keys != nil else { return (PairingWatchOutput(), false) }
        let asked = keys!.press(typed)
        var lines: [PairingWatchLine] = asked.nothingPending ? [.note("no request pending")] : []
        if let cancelled = asked.cancelled { lines.append(.note("not approved: \(TerminalText.sanitize(cancelled, maxScalars: 64))")) }
        if let question = asked.confirmation { lines.append(.note(question)) }
        return (PairingWatchOutput(lines: lines, actions: asked.actions), asked.quit)
    }

    /// What to print about `event` and what to do; `now` (epoch ms) ages the requests.
    public mutating func handle(_ event: PairingWatchEvent, now: Int64) -> PairingWatchOutput {
        var output = PairingWatchOutput()
        let newestChanged = keys?.observe(event) ?? false
        if jsonLines { output.json = event.json(rule: event.action.flatMap { approvedBy[$0.requestId] }) }
        switch event {
        case .connected(let pending, let reconnect):
            if !jsonLines {
                output.lines.append(.note(reconnect ? "Reconnected; \(pending.count) pending."
                                          : "Watching for pairing requests; \(pending.count) pending. Ctrl-C stops."))
                // After a reconnect, only the requests not shown yet: the others are on the screen already.
                output.lines += pending.reversed().filter { !shown.contains($0.requestId) }
                    .map { .output($0.eventLine(supersedes: nil, now: now)) }
            }
            shown.formUnion(pending.map(\.requestId))
            for request in pending.reversed() { decide(request, &output) }
        case .requested(let request, let supersedes):
            human(request.eventLine(supersedes: supersedes, now: now), &output.lines)
            shown.insert(request.requestId)
            decide(request, &output)
        case .resolved(let resolution):
            human("resolved \(TerminalText.sanitize(resolution.requestId, maxScalars: 64)): \(FieldText.field(resolution.decision))",
                  &output.lines)
        case .setupCompleted(let completion, let uncertain):
            human("setup code used by \(FieldText.field(completion.deviceName)) (\(FieldText.shortId(completion.deviceId))), "
                  + "access \(FieldText.field(completion.access))" + (uncertain ? " (delivery uncertain)" : ""), &output.lines)
        case .other(let name, _):
            human("event \(TerminalText.sanitize(name, maxScalars: 64))", &output.lines)
        case .acted(let action, _):
            let id = TerminalText.sanitize(action.requestId, maxScalars: 64), rule = approvedBy[action.requestId]
            human("\(action.pastTense) \(id)" + (rule.map { " (\($0))" } ?? ""), &output.lines)
            output.lines.append(.note("\(action.pastTense) \(id) " + (rule.map { "by rule: \($0)" } ?? "by key")))
        case .actionFailed(let action, let error):
            output.lines.append(.note("could not mark \(TerminalText.sanitize(action.requestId, maxScalars: 64)) "
                                      + "\(action.pastTense): \(error.message)"))
        case .disconnected(let error, let retry):
            output.lines.append(.note("connection lost: \(error.message); reconnecting in "
                                      + DurationText.describe(milliseconds: PairingWatchEvent.milliseconds(retry))))
        }
        if newestChanged, let keys { output.lines.append(.note(keys.statusLine)) }
        return output
    }

    /// The rules' decision on `request`: an approval when every rule holds, else a note why not.
    private mutating func decide(_ request: PendingRequest, _ output: inout PairingWatchOutput) {
        guard !rules.isEmpty else { return }
        let (approve, reason) = rules.check(request)
        guard approve else {
            return output.lines.append(.note("not approving \(TerminalText.sanitize(request.requestId, maxScalars: 64)): \(reason)"))
        }
        approvedBy[request.requestId] = reason
        output.actions.append(.approve(requestId: request.requestId))
    }

    /// `line` for people, unless the log writes JSON lines.
    private func human(_ line: String, _ lines: inout [PairingWatchLine]) {
        if !jsonLines { lines.append(.output(line)) }
    }
}

extension PairingAutoApproval {
    /// The rules from text: `role` as given, each network in CIDR form (``IPNetwork``); the
    /// first text that is not a network is thrown.
    public init(role: String?, cidrs texts: [String]) throws(InvalidNetwork) {
        var networks: [IPNetwork] = []
        for text in texts {
            guard let network = IPNetwork(text) else { throw InvalidNetwork(text: text) }
            networks.append(network)
        }
        self.init(role: role, networks: networks)
    }

    /// A network rule that is not an address or CIDR.
    public struct InvalidNetwork: ClawpairError, Equatable {
        /// The text as given.
        public var text: String
        /// `invalid network: TEXT` (sanitized).
        public var message: String { "invalid network: \(TerminalText.sanitize(text, maxScalars: 64))" }
    }
}
