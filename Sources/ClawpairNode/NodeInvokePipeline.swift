// The invoke pipeline as a value-type state machine: frames and completions in, actions out
// (start a handler, send a result, abort a handler). No I/O, no clock of its own: the runtime
// passes `now` from its injected clock, so every timing rule is tested by moving a ManualClock.
//
// Rules (`upstream-2026-10.md` §2.4):
// - `timeoutMs` is the budget left when the gateway sent the frame; the node drops a request
//   whose budget is 0 and aborts a handler when its budget runs out (answering `TIMEOUT`).
// - `node.invoke.cancel` aborts the handler; nothing is sent for it.
// - A request carrying an idempotency key that is running or finished is never run again: it
//   joins the running invoke, or its remembered result is replayed (bounded, oldest out first).
// - Unknown commands get `UNAVAILABLE "command not supported"`, malformed or oversized params
//   `INVALID_REQUEST`, and the session goes on.

import ClawpairCore

/// The invoke pipeline of a node: frames and completions in, actions out (see above).
public struct NodeInvokePipeline: Sendable {
    /// What the runtime must do.
    public enum Action: Sendable, Equatable {
        /// Run the handler of `invocation` under the task id `taskId`.
        case start(taskId: String, invocation: NodeInvocationStart)
        /// Send this `node.invoke.result`.
        case send(NodeInvokeResult)
        /// Cancel the handler running under `taskId`; its completion will be ignored.
        case abort(taskId: String)
    }

    /// A handler to start: its command, parsed params, idempotency key and deadline.
    public struct NodeInvocationStart: Sendable, Equatable {
        /// The command name.
        public var command: String
        /// The parsed parameters, or `nil`.
        public var params: JSONValue?
        /// The idempotency key, if any.
        public var idempotencyKey: String?
        /// When the invoke's budget runs out.
        public var deadline: Monotonic.Instant

        /// A start of `command`.
        public init(command: String, params: JSONValue?, idempotencyKey: String?, deadline: Monotonic.Instant) {
            self.command = command
            self.params = params
            self.idempotencyKey = idempotencyKey
            self.deadline = deadline
        }
    }

    private struct Running {
        var key: String?
        var deadline: Monotonic.Instant
        /// Invokes waiting for this handler's result: the first request and its retries.
        var replyTo: [(id: String, nodeId: String)]
    }

    private struct Remembered {
        var key: String
        var outcome: NodeInvokeOutcome
        var expires: Monotonic.Instant
    }

    /// The bounds applied.
    public let limits: NodeInvokeLimits
    /// The commands answered; others get `UNAVAILABLE "command not supported"`.
    public let commands: Set<String>
    private var running: [String: Running] = [:]
    private var remembered: [Remembered] = []

    /// A pipeline answering `commands` within `limits`.
    public init(commands: Set<String>, limits: NodeInvokeLimits = .default) {
        self.commands = commands
        self.limits = limits
    }

    /// How many handlers run.
    public var runningCount: Int { running.count }

    /// The earliest deadline of a running handler.
    public var nextDeadline: Monotonic.Instant? { running.values.map(\.deadline).min() }

    /// A `node.invoke.request` payload arrived at `now`.
    public mutating func receive(_ payload: JSONValue?, now: Monotonic.Instant) -> [Action] {
        let request: NodeInvokeRequest
        switch NodeInvokeRequest.parse(payload, limits: limits) {
        case .success(let parsed): request = parsed
        case .failure(.unanswerable): return []
        case .failure(.answered(let id, let nodeId, let error)):
            return [.send(NodeInvokeResult(id: id, nodeId: nodeId, outcome: .failure(error)))]
        }
        func answer(_ outcome: NodeInvokeOutcome) -> [Action] {
            [.send(NodeInvokeResult(id: request.id, nodeId: request.nodeId, outcome: outcome))]
        }
        if let key = request.idempotencyKey {
            forgetExpired(now: now)
            if let done = remembered.last(where: { $0.key == key }) { return answer(done.outcome) }
            if let taskId = running.first(where: { $0.value.key == key })?.key {
                running[taskId]?.replyTo.append((request.id, request.nodeId))
                return []
            }
        }
        // A request with the id of one still running is a duplicate frame: it joins it.
        if running[request.id] != nil {
            running[request.id]?.replyTo.append((request.id, request.nodeId))
            return []
        }
        if request.timeoutMs == 0 { return [] }
        guard commands.contains(request.command) else { return answer(.failure(.commandNotSupported)) }
        guard running.count < limits.maxConcurrent else {
            return answer(.failure(.unavailable("busy: \(limits.maxConcurrent) invokes are running")))
        }
        var params: JSONValue?
        if let text = request.paramsJSON {
            do {
                params = try JSONValue.parse(text, limits: JSONLimits(maxInputBytes: limits.maxParamsBytes))
            } catch {
                return answer(.failure(.invalidRequest("paramsJSON: \(error.description)")))
            }
        }
        let budget = request.timeoutMs.map { Duration.milliseconds($0) } ?? limits.maxTimeout
        let deadline = now + min(budget, limits.maxTimeout)
        running[request.id] = Running(key: request.idempotencyKey, deadline: deadline,
                                      replyTo: [(request.id, request.nodeId)])
        return [.start(taskId: request.id, invocation: NodeInvocationStart(
            command: request.command, params: params, idempotencyKey: request.idempotencyKey, deadline: deadline))]
    }

    /// A `node.invoke.cancel` payload arrived.
    public mutating func cancel(_ payload: JSONValue?) -> [Action] {
        guard let cancel = NodeInvokeCancel.parse(payload, limits: limits) else { return [] }
        guard let taskId = running.first(where: { $0.value.replyTo.contains { $0.id == cancel.invokeId } })?.key else {
            return []
        }
        running[taskId]?.replyTo.removeAll { $0.id == cancel.invokeId }
        if running[taskId]?.replyTo.isEmpty ?? false {
            running[taskId] = nil
            return [.abort(taskId: taskId)]
        }
        return []
    }

    /// The handler running under `taskId` finished with `outcome` at `now`.
    public mutating func finish(taskId: String, outcome: NodeInvokeOutcome, now: Monotonic.Instant) -> [Action] {
        guard let entry = running.removeValue(forKey: taskId) else { return [] }
        var outcome = outcome
        if case .success(let payload?) = outcome, payload.compact().utf8.count > limits.maxResultBytes {
            outcome = .failure(.unavailable("result larger than \(limits.maxResultBytes) bytes"))
        }
        if let key = entry.key, limits.idempotencyEntries > 0 {
            forgetExpired(now: now)
            if remembered.count >= limits.idempotencyEntries { remembered.removeFirst(remembered.count - limits.idempotencyEntries + 1) }
            remembered.append(Remembered(key: key, outcome: outcome, expires: now + limits.idempotencyWindow))
        }
        return entry.replyTo.map { .send(NodeInvokeResult(id: $0.id, nodeId: $0.nodeId, outcome: outcome)) }
    }

    /// Aborts every handler whose budget ran out by `now`, answering `TIMEOUT`.
    public mutating func expire(now: Monotonic.Instant) -> [Action] {
        var actions: [Action] = []
        for (taskId, entry) in running where entry.deadline <= now {
            running[taskId] = nil
            actions.append(.abort(taskId: taskId))
            for target in entry.replyTo {
                actions.append(.send(NodeInvokeResult(id: target.id, nodeId: target.nodeId,
                                                      outcome: .failure(.timeout("the invoke's budget ran out")))))
            }
        }
        return actions
    }

    /// Drops every running invoke (the connection ended: their results can no longer be sent).
    public mutating func abortAll() -> [Action] {
        let ids = running.keys.sorted()
        running.removeAll()
        return ids.map { .abort(taskId: $0) }
    }

    private mutating func forgetExpired(now: Monotonic.Instant) {
        remembered.removeAll { $0.expires <= now }
    }
}
