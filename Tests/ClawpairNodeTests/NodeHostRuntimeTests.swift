import ClawpairCore
import ClawpairTestSupport
import Glibc
import Synchronization
import Testing
@testable import ClawpairNode

/// One session of the runtime over a scripted connection and a manual clock: presence and host
/// stats on connect and every interval, invokes answered through the pipeline, a custom handler
/// registered beside the built-ins, `{ok:true}`-only answers tolerated, and a lost connection.
@Suite struct NodeHostRuntimeTests {
    /// A connection fed from a script of events; waiting moves the manual clock.
    class ScriptedConnection: NodeGatewayConnection, @unchecked Sendable {
        let clock: ManualClock
        var script: [NodeGatewayEvent]
        var requests: [(method: String, params: JSONValue)] = []
        var eventAnswer: JSONValue = ["ok": true]
        var endAfterIdle: Duration
        var idle = Duration.zero

        init(clock: ManualClock, script: [NodeGatewayEvent], endAfterIdle: Duration = .seconds(1)) {
            self.clock = clock
            self.script = script
            self.endAfterIdle = endAfterIdle
        }

        /// Ends the session once this holds (default: after `endAfterIdle` of waiting with no handler running).
        var done: ((ScriptedConnection) -> Bool)?
        /// The test's handlers that end by themselves count their ends here (``awaitHandlers(_:count:)``).
        var handlersEnded = Watched(0)
        var endingHandlers = 0
        var looks = 0

        /// With `done`: the next waits are for `count` handlers to end (each bumps `ended`) before
        /// the clock moves, so a handler the machine is slow to schedule is not overtaken by its budget.
        func awaitHandlers(_ ended: Watched<Int>, count: Int) {
            handlersEnded = ended
            endingHandlers = count
        }

        func nextEvent(timeout: Duration) throws(NodeConnectionFailure) -> NodeGatewayEvent? {
            if !script.isEmpty { idle = .zero; return script.removeFirst() }
            if let done {
                if done(self) { throw .lost(reason: "script over") }
                let expected = endingHandlers
                guard expected > 0 else {
                    // No handler ends by itself: only the clock (a budget) ends what runs.
                    clock.advance(by: timeout)
                    return nil
                }
                // A handler runs on another thread: wait for its end, then keep the clock still while
                // its completion reaches the runtime, which looks again at once (a hang bound only).
                guard handlersEnded.wait(until: { $0 >= expected }) else { throw .lost(reason: "gave up waiting") }
                looks += 1
                if looks > 10_000_000 { throw .lost(reason: "gave up waiting") }
                return nil
            }
            idle += timeout
            if idle > endAfterIdle { throw .lost(reason: "script over") }
            clock.advance(by: timeout)
            return nil
        }

        func request(_ method: String, params: JSONValue, timeout: Duration) throws(NodeConnectionFailure) -> JSONValue {
            requests.append((method, params))
            if method == "node.event" { return eventAnswer }
            return ["ok": true]
        }

        func results() -> [JSONValue] { requests.filter { $0.method == "node.invoke.result" }.map(\.params) }
        func events() -> [String] {
            requests.filter { $0.method == "node.event" }.compactMap { $0.params["event"]?.stringValue }
        }
    }

    /// Serves on a thread of its own, as `node run` does on its main thread: handlers run as tasks
    /// on the cooperative pool, which a test's own thread must not block.
    func serve(_ runtime: NodeHostRuntime, _ connection: ScriptedConnection,
               stopped: @escaping @Sendable () -> Bool = { false }) async -> NodeHostRuntime.End {
        let box = UncheckedBox(connection)
        return await withCheckedContinuation { continuation in
            BackgroundThread.detached { continuation.resume(returning: runtime.serve(box.value, stopped: stopped)) }
        }
    }

    struct UncheckedBox<T>: @unchecked Sendable { let value: T; init(_ value: T) { self.value = value } }

    func invoke(_ id: String, _ command: String, params: JSONValue? = nil) -> NodeGatewayEvent {
        var members: [(String, JSONValue)] = [("id", .string(id)), ("nodeId", "node-1"), ("command", .string(command))]
        if let params { members.append(("paramsJSON", .string(params.compact()))) }
        return NodeGatewayEvent(name: "node.invoke.request", payload: .object(members))
    }

    func configuration(_ commands: [NodeCommand], statsInterval: Duration = .seconds(60)) -> NodeHostConfiguration {
        NodeHostConfiguration(commands: NodeCommandSet(commands), statsInterval: statsInterval,
                              presence: [("displayName", "box"), ("platform", "linux")],
                              hostStats: { ["cpuCount": 2, "memoryTotalBytes": 10, "memoryFreeBytes": 5] })
    }

    @Test func presenceAndStatsOnConnectThenEveryInterval() {
        let clock = ManualClock()
        let connection = ScriptedConnection(clock: clock, script: [], endAfterIdle: .seconds(130))
        let runtime = NodeHostRuntime(configuration: configuration([]), clock: clock, wallClockMs: { 1_700_000_000_000 })
        let end = runtime.serve(connection, stopped: { false })
        #expect(end == .lost(reason: "script over"))
        #expect(connection.events() == ["node.presence.alive", "node.host.stats", "node.host.stats", "node.host.stats"])
        let presence = connection.requests[0].params
        #expect(presence["payloadJSON"] == .string(#"{"trigger":"connect","sentAtMs":1700000000000,"displayName":"box","platform":"linux"}"#))
    }

    @Test func aCustomHandlerAnswersBesideTheBuiltIns() async throws {
        let clock = ManualClock()
        let ended = Watched(0)
        let echo = NodeCommand("myapp.echo") { invocation in
            defer { ended.update { $0 += 1 } }
            return ["echo": invocation.params ?? nil]
        }
        let connection = ScriptedConnection(clock: clock, script: [
            invoke("1", "myapp.echo", params: ["x": 1]),
            invoke("2", "system.run", params: ["command": ["sh"]]),
            NodeGatewayEvent(name: "node.invoke.request", payload: .object([("id", "3"), ("nodeId", "node-1"),
                                                                             ("command", "myapp.echo"), ("paramsJSON", "{bad")])),
        ], endAfterIdle: .seconds(5))
        connection.done = { $0.results().count >= 3 }
        connection.awaitHandlers(ended, count: 1)
        let answered = Mutex<[NodeHostEvent]>([])
        let runtime = NodeHostRuntime(configuration: configuration([echo]), clock: clock,
                                      onEvent: { event in answered.withLock { $0.append(event) } })
        _ = await serve(runtime, connection)
        let results = connection.results()
        #expect(results.count == 3)
        let byId = Dictionary(uniqueKeysWithValues: results.map { ($0["id"]?.stringValue ?? "", $0) })
        #expect(byId["1"]?["payloadJSON"] == .string(#"{"echo":{"x":1}}"#))
        #expect(byId["2"]?["error"]?["code"] == "UNAVAILABLE")
        #expect(byId["3"]?["error"]?["code"] == "INVALID_REQUEST")
        #expect(answered.withLock { $0 }.contains { if case .answered(command: "myapp.echo", invokeId: "1", code: nil, _) = $0 { true } else { false } })
    }

    @Test func aHandlerThatOutlivesItsBudgetIsAbortedAndAnsweredTimeout() async {
        let clock = ManualClock()
        let slow = NodeCommand("slow") { _ in
            await waitForCancellation()
            return nil
        }
        var request = invoke("1", "slow")
        if case .object(var members) = request.payload { members.append(("timeoutMs", 100)); request.payload = .object(members) }
        let connection = ScriptedConnection(clock: clock, script: [request], endAfterIdle: .seconds(2))
        connection.done = { $0.results().count >= 1 }
        _ = await serve(NodeHostRuntime(configuration: configuration([slow]), clock: clock), connection)
        #expect(connection.results().map { $0["error"]?["code"] } == ["TIMEOUT"])
    }

    @Test func theGatewaysRefusalOfAnEventDoesNotEndTheSession() async {
        final class Refusing: ScriptedConnection, @unchecked Sendable {
            override func request(_ method: String, params: JSONValue, timeout: Duration) throws(NodeConnectionFailure) -> JSONValue {
                requests.append((method, params))
                if method == "node.event" { throw .refused(code: "INVALID_REQUEST", message: "unknown method: node.event") }
                return ["ok": true]
            }
        }
        let clock = ManualClock()
        let connection = Refusing(clock: clock, script: [invoke("1", "myapp.echo")])
        connection.done = { $0.results().count >= 1 }
        let ended = Watched(0)
        connection.awaitHandlers(ended, count: 1)
        let echo = NodeCommand("myapp.echo") { _ in
            ended.update { $0 += 1 }
            return nil
        }
        _ = await serve(NodeHostRuntime(configuration: configuration([echo]), clock: clock), connection)
        #expect(connection.results().count == 1)
    }

    @Test func theStopSignalEndsTheSession() {
        let clock = ManualClock()
        let connection = ScriptedConnection(clock: clock, script: [], endAfterIdle: .seconds(3600))
        let calls = Mutex(0)
        let end = NodeHostRuntime(configuration: configuration([]), clock: clock)
            .serve(connection, stopped: { calls.withLock { $0 += 1; return $0 > 3 } })
        #expect(end == .stopped)
    }
}
