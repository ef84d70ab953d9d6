import ClawpairCore
import Testing
@testable import ClawpairNode

/// The invoke pipeline as a state machine: parsing, budgets, cancel, idempotent replay, bounds and
/// upstream's error codes, with time moved by hand.
@Suite struct NodeInvokePipelineTests {
    let t0 = Monotonic.Instant(nanoseconds: 5_000_000_000)

    func request(_ id: String, _ command: String = "device.status", params: JSONValue? = nil, paramsJSON: String? = nil,
                 timeoutMs: JSONValue? = nil, key: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(id)), ("nodeId", "n1"), ("command", .string(command))]
        if let params { members.append(("params", params)) }
        if let paramsJSON { members.append(("paramsJSON", .string(paramsJSON))) }
        if let timeoutMs { members.append(("timeoutMs", timeoutMs)) }
        if let key { members.append(("idempotencyKey", .string(key))) }
        return .object(members)
    }

    func pipeline(_ limits: NodeInvokeLimits = .default) -> NodeInvokePipeline {
        NodeInvokePipeline(commands: ["device.status", "system.which"], limits: limits)
    }

    func errorCode(_ actions: [NodeInvokePipeline.Action]) -> String? {
        guard actions.count == 1, case .send(let result) = actions[0], case .failure(let error) = result.outcome else { return nil }
        return error.code
    }

    @Test func startsAKnownCommandWithItsParsedParams() {
        var p = pipeline()
        let actions = p.receive(request("1", paramsJSON: #"{"a":1}"#, timeoutMs: 5000), now: t0)
        #expect(actions == [.start(taskId: "1", invocation: .init(command: "device.status", params: ["a": 1],
                                                                  idempotencyKey: nil, deadline: t0 + .seconds(5)))])
    }

    @Test func acceptsParamsGivenAsAnObject() {
        var p = pipeline()
        let actions = p.receive(request("1", "system.which", params: ["bins": ["ls"]]), now: t0)
        guard case .start(_, let start) = actions.first else { Issue.record("not started: \(actions)"); return }
        #expect(start.params == ["bins": ["ls"]])
    }

    @Test func unknownCommandIsUnavailableAsUpstreamSays() {
        var p = pipeline()
        let actions = p.receive(request("1", "system.run"), now: t0)
        #expect(actions == [.send(NodeInvokeResult(id: "1", nodeId: "n1", outcome: .failure(.commandNotSupported)))])
        #expect(NodeInvokeResult(id: "1", nodeId: "n1", outcome: .failure(.commandNotSupported)).params.compact()
            == #"{"id":"1","nodeId":"n1","ok":false,"error":{"code":"UNAVAILABLE","message":"command not supported"}}"#)
    }

    @Test func malformedAndOversizedParamsAreInvalidRequests() {
        var p = pipeline(NodeInvokeLimits(maxParamsBytes: 16))
        #expect(errorCode(p.receive(request("1", paramsJSON: "{nope"), now: t0)) == "INVALID_REQUEST")
        #expect(errorCode(p.receive(request("2", paramsJSON: String(repeating: "1", count: 17)), now: t0)) == "INVALID_REQUEST")
        #expect(errorCode(p.receive(request("3", params: ["long": "xxxxxxxxxxxxxxxx"]), now: t0)) == "INVALID_REQUEST")
        #expect(errorCode(p.receive(.object([("id", "4"), ("nodeId", "n1"), ("command", "device.status"),
                                              ("paramsJSON", 7)]), now: t0)) == "INVALID_REQUEST")
        #expect(errorCode(p.receive(request("5", timeoutMs: "soon"), now: t0)) == "INVALID_REQUEST")
        #expect(p.runningCount == 0)
    }

    @Test func payloadsNamingNoInvokeAreDropped() {
        var p = pipeline()
        #expect(p.receive(nil, now: t0).isEmpty)
        #expect(p.receive("text", now: t0).isEmpty)
        #expect(p.receive(.object([("nodeId", "n1"), ("command", "device.status")]), now: t0).isEmpty)
        #expect(p.receive(.object([("id", .string(String(repeating: "i", count: 300))), ("nodeId", "n1"),
                                   ("command", "x")]), now: t0).isEmpty)
        #expect(p.receive(.object([("id", "   "), ("nodeId", "n1"), ("command", "x")]), now: t0).isEmpty)
    }

    @Test func aSpentBudgetIsDroppedAndARunningOneTimesOut() {
        var p = pipeline()
        #expect(p.receive(request("1", timeoutMs: 0), now: t0).isEmpty)
        #expect(p.receive(request("2", timeoutMs: -5), now: t0).isEmpty)
        _ = p.receive(request("3", timeoutMs: 250), now: t0)
        #expect(p.nextDeadline == t0 + .milliseconds(250))
        #expect(p.expire(now: t0 + .milliseconds(249)).isEmpty)
        let actions = p.expire(now: t0 + .milliseconds(250))
        #expect(actions.first == .abort(taskId: "3"))
        #expect(errorCode(Array(actions.dropFirst())) == "TIMEOUT")
        // Its late completion is ignored.
        #expect(p.finish(taskId: "3", outcome: .success(nil), now: t0 + .seconds(1)).isEmpty)
    }

    @Test func hugeBudgetsAreClamped() {
        var p = pipeline(NodeInvokeLimits(maxTimeout: .seconds(30)))
        _ = p.receive(request("1", timeoutMs: .double(1e300)), now: t0)
        #expect(p.nextDeadline == t0 + .seconds(30))
        var q = pipeline(NodeInvokeLimits(maxTimeout: .seconds(30)))
        _ = q.receive(request("1"), now: t0)
        #expect(q.nextDeadline == t0 + .seconds(30))
    }

    @Test func cancelAbortsWithoutAnswer() {
        var p = pipeline()
        _ = p.receive(request("1"), now: t0)
        #expect(p.cancel(["invokeId": "other", "nodeId": "n1"]).isEmpty)
        #expect(p.cancel(["invokeId": "1", "nodeId": "n1"]) == [.abort(taskId: "1")])
        #expect(p.finish(taskId: "1", outcome: .success(["x": 1]), now: t0).isEmpty)
        #expect(p.cancel("garbage").isEmpty)
    }

    @Test func aRetriedInvokeIsNotRunTwice() {
        var p = pipeline()
        #expect(p.receive(request("1", key: "k"), now: t0).count == 1)
        // A retry while the first runs joins it.
        #expect(p.receive(request("2", key: "k"), now: t0).isEmpty)
        let done = p.finish(taskId: "1", outcome: .success(["v": 1]), now: t0)
        #expect(done == [.send(NodeInvokeResult(id: "1", nodeId: "n1", outcome: .success(["v": 1]))),
                         .send(NodeInvokeResult(id: "2", nodeId: "n1", outcome: .success(["v": 1])))])
        // A retry after it finished is answered from memory.
        #expect(p.receive(request("3", key: "k"), now: t0 + .seconds(5))
            == [.send(NodeInvokeResult(id: "3", nodeId: "n1", outcome: .success(["v": 1])))])
        // ... until the window passes.
        #expect(p.receive(request("4", key: "k"), now: t0 + .seconds(601)).count == 1)
        #expect(p.runningCount == 1)
    }

    @Test func theReplayMemoryIsBounded() {
        var p = pipeline(NodeInvokeLimits(idempotencyEntries: 2))
        for key in ["a", "b", "c"] {
            _ = p.receive(request(key, key: key), now: t0)
            _ = p.finish(taskId: key, outcome: .success(nil), now: t0)
        }
        guard case .start = p.receive(request("a2", key: "a"), now: t0).first else { Issue.record("a was not evicted"); return }
        guard case .send = p.receive(request("c2", key: "c"), now: t0).first else { Issue.record("c was evicted"); return }
    }

    @Test func cancellingTheFirstOfARetriedInvokeStillAnswersTheRetry() {
        var p = pipeline()
        _ = p.receive(request("1", key: "k"), now: t0)
        _ = p.receive(request("2", key: "k"), now: t0)
        #expect(p.cancel(["invokeId": "1", "nodeId": "n1"]).isEmpty)
        #expect(p.finish(taskId: "1", outcome: .success(nil), now: t0)
            == [.send(NodeInvokeResult(id: "2", nodeId: "n1", outcome: .success(nil)))])
    }

    @Test func concurrencyIsBounded() {
        var p = pipeline(NodeInvokeLimits(maxConcurrent: 2))
        _ = p.receive(request("1"), now: t0)
        _ = p.receive(request("2"), now: t0)
        #expect(errorCode(p.receive(request("3"), now: t0)) == "UNAVAILABLE")
    }

    @Test func anOversizedResultIsRefused() {
        var p = pipeline(NodeInvokeLimits(maxResultBytes: 8))
        _ = p.receive(request("1"), now: t0)
        #expect(errorCode(p.finish(taskId: "1", outcome: .success(["long": "value"]), now: t0)) == "UNAVAILABLE")
    }

    @Test func resultsCarryPayloadJSONAsAString() {
        let result = NodeInvokeResult(id: "i", nodeId: "n", outcome: .success(["a": [1, 2]]))
        #expect(result.params.compact() == #"{"id":"i","nodeId":"n","ok":true,"payloadJSON":"{\"a\":[1,2]}"}"#)
        #expect(NodeInvokeResult(id: "i", nodeId: "n", outcome: .success(nil)).params.compact() == #"{"id":"i","nodeId":"n","ok":true}"#)
    }
}
