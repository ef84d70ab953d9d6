// One connected session of a node: answers invokes, announces presence, reports host stats
// (`upstream-2026-10.md` §2.4, §2.7). It runs over an abstract ``NodeGatewayConnection`` and an
// injected clock, so every rule is tested without a network or root; the connect / reconnect /
// relocation loop around it is ``NodeRunner``.
//
// Handlers run as tasks on the node's own threads (NodeHandlerExecutor); the loop waits for events with a short, growing poll while any runs
// (1 ms doubling to 50 ms) so a fast handler's result goes out within a millisecond.

import ClawpairCore
import Synchronization

/// Why a request on a node's connection failed.
public enum NodeConnectionFailure: Error, Sendable {
    /// The gateway answered with an error (`code`, `message`); the connection is still up.
    case refused(code: String, message: String)
    /// The connection is gone (`reason` says how).
    case lost(reason: String)
}

/// An event the gateway sent a node.
public struct NodeGatewayEvent: Sendable, Equatable {
    /// The event name (`node.invoke.request`, …).
    public var name: String
    /// Its payload.
    public var payload: JSONValue?

    /// An event `name` with `payload`.
    public init(name: String, payload: JSONValue?) {
        self.name = name
        self.payload = payload
    }
}

/// What a node runtime needs from its (already connected) session to a gateway.
public protocol NodeGatewayConnection: AnyObject {
    /// The next event within `timeout`, or `nil` when none came; throws ``NodeConnectionFailure/lost(reason:)``
    /// once the connection is gone.
    func nextEvent(timeout: Duration) throws(NodeConnectionFailure) -> NodeGatewayEvent?
    /// Sends request `method` and returns the response payload.
    func request(_ method: String, params: JSONValue, timeout: Duration) throws(NodeConnectionFailure) -> JSONValue
}

/// Something the runtime did, for one log line each.
public enum NodeHostEvent: Sendable, Equatable {
    /// An invoke was answered (`code` is `nil` for success) after `elapsed` node-side.
    case answered(command: String?, invokeId: String, code: String?, elapsed: Duration)
    /// An invoke was dropped: its budget was already spent, or it was malformed beyond answering.
    case dropped(reason: String)
    /// An invoke was cancelled by the gateway.
    case cancelled(invokeId: String)
    /// `node.event` `name` was answered (`reason` when the gateway gave one; `nil` for `{ok:true}` only).
    case published(event: String, handled: Bool?, reason: String?)
    /// `node.event` `name` failed with the gateway's error code.
    case publishFailed(event: String, code: String)
}

/// What a node declares and how it behaves on one connection.
public struct NodeHostConfiguration: Sendable {
    /// The commands answered.
    public var commands: NodeCommandSet
    /// Bounds on invokes.
    public var limits: NodeInvokeLimits
    /// How often `node.host.stats` is sent after the first one (upstream: 60 s).
    public var statsInterval: Duration
    /// How long a request to the gateway (a result, an event) may take.
    public var requestTimeout: Duration
    /// The `node.presence.alive` payload members besides `trigger`/`sentAtMs` (displayName,
    /// version, platform, deviceFamily, modelIdentifier).
    public var presence: [(String, JSONValue)]
    /// Samples `node.host.stats`; `nil` sends none.
    public var hostStats: (@Sendable () -> JSONValue)?

    /// A configuration answering `commands`.
    public init(commands: NodeCommandSet, limits: NodeInvokeLimits = .default, statsInterval: Duration = .seconds(60),
                requestTimeout: Duration = .seconds(10), presence: [(String, JSONValue)] = [],
                hostStats: (@Sendable () -> JSONValue)? = nil) {
        self.commands = commands
        self.limits = limits
        self.statsInterval = statsInterval
        self.requestTimeout = requestTimeout
        self.presence = presence
        self.hostStats = hostStats
    }
}

/// Serves one connected session: invokes, presence, host stats.
public final class NodeHostRuntime: Sendable {
    /// How a session ended.
    public enum End: Sendable, Equatable {
        /// The stop signal was raised.
        case stopped
        /// The connection was lost (`reason`).
        case lost(reason: String)
    }

    /// The configuration.
    public let configuration: NodeHostConfiguration
    private let clock: any MonotonicClock
    private let wallClockMs: @Sendable () -> Int64
    private let onEvent: @Sendable (NodeHostEvent) -> Void

    /// A runtime with `configuration`, reading time from `clock` (`wallClockMs` for the
    /// `sentAtMs` of presence), reporting through `onEvent`.
    public init(configuration: NodeHostConfiguration, clock: any MonotonicClock = SystemMonotonicClock(),
                wallClockMs: @escaping @Sendable () -> Int64 = { WallClock.nowMs() },
                onEvent: @escaping @Sendable (NodeHostEvent) -> Void = { _ in }) {
        self.configuration = configuration
        self.clock = clock
        self.wallClockMs = wallClockMs
        self.onEvent = onEvent
    }

    /// Serves `connection` until it is lost or `stopped()` is true (asked at least every 250 ms).
    /// Sends `node.presence.alive` (trigger `connect`) and the first `node.host.stats` at once.
    public func serve(_ connection: some NodeGatewayConnection, stopped: @Sendable () -> Bool) -> End {
        var session = Session(runtime: self, connection: connection)
        return session.run(stopped: stopped)
    }

    private struct Completion: Sendable {
        var taskId: String
        var outcome: NodeInvokeOutcome
    }

    /// Handlers' results, handed from their tasks to the session's thread.
    private final class CompletionQueue: Sendable {
        private let items = Mutex<[Completion]>([])
        func append(_ completion: Completion) { items.withLock { $0.append(completion) } }
        func take() -> [Completion] {
            items.withLock { queue in
                defer { queue.removeAll() }
                return queue
            }
        }
    }

    private struct Session<Connection: NodeGatewayConnection> {
        let runtime: NodeHostRuntime
        let connection: Connection
        var pipeline: NodeInvokePipeline
        var tasks: [String: (task: Task<Void, Never>, command: String, started: Monotonic.Instant)] = [:]
        let completions = CompletionQueue()
        var lost: String?

        init(runtime: NodeHostRuntime, connection: Connection) {
            self.runtime = runtime
            self.connection = connection
            pipeline = NodeInvokePipeline(commands: Set(runtime.configuration.commands.names),
                                          limits: runtime.configuration.limits)
        }

        var clock: any MonotonicClock { runtime.clock }

        mutating func run(stopped: @Sendable () -> Bool) -> End {
            defer { abortAll() }
            var presence = runtime.configuration.presence
            presence.insert(("trigger", "connect"), at: 0)
            presence.insert(("sentAtMs", .int(runtime.wallClockMs())), at: 1)
            publish("node.presence.alive", .object(presence))
            var nextStats: Monotonic.Instant?
            if let sample = runtime.configuration.hostStats {
                publish("node.host.stats", sample())
                nextStats = clock.now + runtime.configuration.statsInterval
            }
            var idlePoll = Duration.milliseconds(1)
            while lost == nil {
                if stopped() { return .stopped }
                drainCompletions()
                perform(pipeline.expire(now: clock.now))
                if let due = nextStats, clock.now >= due, let sample = runtime.configuration.hostStats {
                    publish("node.host.stats", sample())
                    nextStats = clock.now + runtime.configuration.statsInterval
                }
                if lost != nil { break }
                var wait = Duration.milliseconds(250)
                if !tasks.isEmpty {
                    wait = idlePoll
                    idlePoll = min(idlePoll * 2, .milliseconds(50))
                } else {
                    idlePoll = .milliseconds(1)
                }
                let now = clock.now
                for deadline in [nextStats, pipeline.nextDeadline].compactMap({ $0 }) {
                    wait = min(wait, max(.zero, deadline - now))
                }
                let event: NodeGatewayEvent?
                do {
                    event = try connection.nextEvent(timeout: wait)
                } catch {
                    switch error {
                    case .lost(let reason): lost = reason
                    case .refused(let code, let message): lost = "\(code): \(message)"
                    }
                    break
                }
                guard let event else { continue }
                switch event.name {
                case "node.invoke.request":
                    let actions = pipeline.receive(event.payload, now: clock.now)
                    if actions.isEmpty, pipeline.runningCount == tasks.count {
                        runtime.onEvent(.dropped(reason: "budget spent, duplicate or unanswerable request"))
                    }
                    perform(actions)
                    idlePoll = .milliseconds(1)
                case "node.invoke.cancel":
                    if let id = event.payload?["invokeId"]?.stringValue { runtime.onEvent(.cancelled(invokeId: String(id.prefix(256)))) }
                    perform(pipeline.cancel(event.payload))
                default:
                    continue
                }
            }
            return .lost(reason: lost ?? "closed")
        }

        mutating func drainCompletions() {
            let done = completions.take()
            for completion in done {
                perform(pipeline.finish(taskId: completion.taskId, outcome: completion.outcome, now: clock.now))
            }
        }

        mutating func perform(_ actions: [NodeInvokePipeline.Action]) {
            for action in actions {
                switch action {
                case .start(let taskId, let start):
                    guard let command = runtime.configuration.commands[start.command] else { continue }
                    let invocation = NodeInvocation(command: start.command, params: start.params,
                                                    idempotencyKey: start.idempotencyKey, deadline: start.deadline)
                    let completions = self.completions
                    let task = Task(executorPreference: NodeHandlerExecutor.shared) {
                        let outcome: NodeInvokeOutcome
                        do {
                            outcome = .success(try await command.handler(invocation))
                        } catch let error as NodeInvokeError {
                            outcome = .failure(error)
                        } catch {
                            let message = (error as? any ClawpairError)?.message ?? String(describing: error)
                            outcome = .failure(.unavailable(String(message.prefix(1024))))
                        }
                        completions.append(Completion(taskId: taskId, outcome: outcome))
                    }
                    tasks[taskId] = (task, start.command, clock.now)
                case .abort(let taskId):
                    tasks.removeValue(forKey: taskId)?.task.cancel()
                case .send(let result):
                    let started = tasks.removeValue(forKey: result.id)
                    send(result, command: started?.command, elapsed: started.map { clock.now - $0.started } ?? .zero)
                }
            }
        }

        mutating func send(_ result: NodeInvokeResult, command: String?, elapsed: Duration) {
            guard lost == nil else { return }
            do {
                _ = try connection.request("node.invoke.result", params: result.params,
                                           timeout: runtime.configuration.requestTimeout)
            } catch {
                if case .lost(let reason) = error { lost = reason }
            }
            var code: String?
            if case .failure(let error) = result.outcome { code = error.code }
            runtime.onEvent(.answered(command: command, invokeId: result.id, code: code, elapsed: elapsed))
        }

        mutating func publish(_ name: String, _ payload: JSONValue) {
            guard lost == nil else { return }
            let params: JSONValue = .object([("event", .string(name)), ("payloadJSON", .string(payload.compact()))])
            do {
                let answer = try connection.request("node.event", params: params, timeout: runtime.configuration.requestTimeout)
                runtime.onEvent(.published(event: name, handled: answer["handled"]?.boolValue,
                                           reason: answer["reason"]?.stringValue.map { String($0.prefix(64)) }))
            } catch {
                switch error {
                case .lost(let reason): lost = reason
                case .refused(let code, _): runtime.onEvent(.publishFailed(event: name, code: String(code.prefix(64))))
                }
            }
        }

        mutating func abortAll() {
            for action in pipeline.abortAll() {
                if case .abort(let taskId) = action { tasks.removeValue(forKey: taskId)?.task.cancel() }
            }
            for (_, entry) in tasks { entry.task.cancel() }
            tasks.removeAll()
        }
    }
}
