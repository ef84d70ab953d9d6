import ClawpairCore
import ClawpairProbe
import ClawpairSetupCode
import Testing

/// `ProbeCandidateList`: candidates in order, setup codes numbered as they come, the notices a
/// caller prints; and how a run's time is split between discovery and the race.
@Suite struct ProbeCandidateListTests {
    static let now: Int64 = 1_800_000_000_000

    static func code(expiresAtMs: Int64) throws -> String {
        try SetupCode.make(urls: ["wss://gw.example.com", "ws://192.168.1.20:18789"], bootstrapToken: "bootstrap-abc",
                           expiresAtMs: expiresAtMs, defaultScheme: .wss).code
    }

    @Test func routesInCandidateOrderAndCodesNumbered() throws {
        var list = ProbeCandidateList()
        #expect(try list.add("ws://10.0.0.1", visible: true, nowMs: Self.now).isEmpty)
        #expect(try list.add(Self.code(expiresAtMs: Self.now + 60_000), visible: false, nowMs: Self.now).isEmpty)
        #expect(try list.add("gw.local:9000", visible: true, nowMs: Self.now).isEmpty)
        #expect(try list.add(Self.code(expiresAtMs: Self.now + 60_000), visible: false, nowMs: Self.now).isEmpty)
        #expect(list.setupCodes == 2)
        #expect(list.routes.map(\.url) == ["ws://10.0.0.1:18789", "wss://gw.example.com:443", "ws://192.168.1.20:18789",
                                           "ws://gw.local:9000", "wss://gw.example.com:443", "ws://192.168.1.20:18789"])
        #expect(list.routes.map(\.source) == [.url, .setupCode(code: 0, route: 0), .setupCode(code: 0, route: 1), .hostPort,
                                              .setupCode(code: 1, route: 0), .setupCode(code: 1, route: 1)])
        #expect(list.routes[4].input == "setup code #2 route 1")
    }

    @Test func noticesForAVisibleOrExpiredCode() throws {
        var list = ProbeCandidateList()
        #expect(try list.add(Self.code(expiresAtMs: Self.now + 60_000), visible: true, nowMs: Self.now) == [.credentialsVisible])
        #expect(try list.add(Self.code(expiresAtMs: Self.now - 1), visible: false, nowMs: Self.now) == [.expired(code: 2)])
        #expect(try list.add(Self.code(expiresAtMs: Self.now - 1), visible: true, nowMs: Self.now)
                    == [.credentialsVisible, .expired(code: 3)])
        // A URL on the command line carries no secret.
        #expect(try list.add("wss://gw.example.com", visible: true, nowMs: Self.now).isEmpty)
        #expect(list.setupCodes == 3)
    }

    @Test func aBadCandidateAddsNothing() throws {
        var list = ProbeCandidateList()
        _ = try list.add("ws://10.0.0.1", visible: true, nowMs: Self.now)
        #expect(throws: ProbeCandidateError.self) { try list.add("not a candidate!", visible: true, nowMs: Self.now) }
        #expect(list.routes.count == 1 && list.setupCodes == 0)
    }

    @Test func discoveryTakesHalfTheRunAtMostTwoSeconds() {
        #expect(ProbeConfiguration(timeout: .milliseconds(5000)).discoveryBudget == .seconds(2))
        #expect(ProbeConfiguration(timeout: .milliseconds(3000)).discoveryBudget == .milliseconds(1500))
        #expect(ProbeConfiguration(timeout: .milliseconds(1001)).discoveryBudget == .milliseconds(500), "whole milliseconds")
        #expect(ProbeConfiguration(timeout: .milliseconds(1)).discoveryBudget == .zero)
    }

    @Test func theRaceGetsWhatIsLeft() {
        let configuration = ProbeConfiguration(stagger: .milliseconds(100), timeout: .milliseconds(5000), mode: .all)
        let rest = configuration.remaining(after: .milliseconds(1200))
        #expect(rest.timeout == .milliseconds(3800) && rest.stagger == .milliseconds(100) && rest.mode == .all)
        #expect(configuration.remaining(after: .seconds(9)).timeout == .milliseconds(1), "never less than 1 ms")
    }
}
