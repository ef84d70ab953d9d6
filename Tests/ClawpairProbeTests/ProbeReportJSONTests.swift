import ClawpairCore
import ClawpairProbe
import Testing

/// A probe report as the documented JSON object and as short texts (no dialing: the results
/// are built by hand).
@Suite("probe report JSON and texts")
struct ProbeReportJSONTests {
    static let fingerprint = String(repeating: "ab", count: 32)

    static func report(winner: Bool) -> ProbeReport {
        var passed = ProbeResult(route: ProbeRoute(host: "192.0.2.5", port: 18789, tls: false, input: "192.0.2.5",
                                                   source: .hostPort), index: 0)
        passed.phase = winner ? .done : .tcp
        if !winner { passed.failure = .refused("ECONNREFUSED") }
        passed.timings.started = .zero
        passed.timings.dns = .microseconds(40)
        passed.timings.tcp = .microseconds(1_150)
        passed.timings.total = .milliseconds(120)
        var untrusted = ProbeResult(route: ProbeRoute(host: "gw.example", port: 443, tls: true, input: "wss://gw.example",
                                                      source: .url), index: 1)
        untrusted.phase = .tls
        untrusted.failure = .tlsUntrusted(observed: fingerprint, reason: "self-signed")
        return ProbeReport(results: [passed, untrusted], winner: winner ? 0 : nil, elapsed: .microseconds(12_345), timedOut: false)
    }

    @Test("the documented fields: winner, settings, routes with outcome, source, timings and the caller's trust command")
    func json() throws {
        let configuration = ProbeConfiguration(stagger: .milliseconds(250), timeout: .milliseconds(5000))
        let value = Self.report(winner: true).json(configuration: configuration) { result in
            result.untrustedFingerprint.map { "accept \($0)" }
        }
        #expect(value["ok"] == .bool(true) && value["winner"] == .int(0))
        #expect(value["url"]?.stringValue == "ws://192.0.2.5:18789")
        #expect(value["mode"]?.stringValue == "first" && value["timeoutMs"] == .int(5000) && value["staggerMs"] == .int(250))
        #expect(value["elapsedMs"] == .double(12.3) && value["error"] == .null)
        let routes = try #require(value["routes"]?.arrayValue)
        #expect(routes.map { $0["outcome"]?.stringValue } == ["reachable", "tls-untrusted"])
        #expect(routes.map { $0["source"]?.stringValue } == ["host", "url"])
        #expect(routes[0]["timings"]?["tcpMs"] == .double(1.2) && routes[0]["timings"]?["tlsMs"] == .null)
        #expect(routes[0]["tls"] == .null && routes[0]["trustCommand"] == .null)
        #expect(routes[1]["trustCommand"]?.stringValue == "accept \(Self.fingerprint)")
        #expect(routes[1]["tls"]?["systemTrusted"] == .null, "no certificate recorded")
    }

    @Test("pin sources have the library's own names in JSON unless the caller words them")
    func pinSourceNames() throws {
        #expect(ProbeRoute.PinSource.allCases.map(\.name) == ["setup-code", "caller", "confirmed", "registry"])
        var pinned = ProbeResult(route: ProbeRoute(host: "gw.example", port: 443, tls: true, input: "wss://gw.example",
                                                   source: .url, pin: Self.fingerprint, pinSource: .caller), index: 0)
        pinned.phase = .done
        let report = ProbeReport(results: [pinned], winner: 0, elapsed: .milliseconds(1), timedOut: false)
        #expect(report.json(configuration: ProbeConfiguration())["routes"]?[0]?["tls"]?["pinSource"]?.stringValue == "caller")
        let worded = report.json(configuration: ProbeConfiguration(), pinSourceName: { _ in "mine" })
        #expect(worded["routes"]?[0]?["tls"]?["pinSource"]?.stringValue == "mine")
    }

    @Test("nothing passed: the error names a trust failure; texts for durations and timings")
    func failureAndTexts() {
        let report = Self.report(winner: false)
        let error = report.json(configuration: ProbeConfiguration())["error"]
        #expect(error?["code"]?.stringValue == "tls-trust")
        #expect(report.failureSummary == "no route is reachable with a trusted TLS certificate")
        #expect(report.results[0].outcome == "refused" && report.results[1].untrustedFingerprint == Self.fingerprint)
        #expect(report.results[0].timings.summary == "dns 0.0 ms  tcp 1.2 ms  total 120 ms")
        #expect(ProbeReport.text(nil) == "-" && ProbeReport.text(.microseconds(8_640)) == "8.6 ms")
        var cancelled = ProbeResult(route: report.results[0].route, index: 0)
        cancelled.phase = .tcp
        #expect(cancelled.outcome == "cancelled")
    }

    @Test("text: the winner's verdict and timings, quiet prints the URL only; parts go through paint")
    func winnerText() {
        let report = Self.report(winner: true)
        let lines = report.textLines(showAll: false, quiet: false, paint: { role, text in "<\(role)>\(text)" })
        #expect(lines == ["<good>reachable  <bold>ws://192.0.2.5:18789  (route 1 of 2, started +0.0 ms, from 192.0.2.5)",
                          "  dns 0.0 ms  tcp 1.2 ms  total 120 ms"])
        #expect(report.textLines(showAll: false, quiet: true) == ["ws://192.0.2.5:18789"])
        #expect(report.textLines(showAll: true, quiet: false).count == 2 + 1 + report.tableLines().count)
    }

    @Test("text: nothing passed, the verdict and the table; advice for the untrusted certificate")
    func failureText() {
        let report = Self.report(winner: false)
        let lines = report.textLines(showAll: false, quiet: false)
        #expect(lines.first == "unreachable  no route is reachable with a trusted TLS certificate (2 routes, 12.3 ms)")
        #expect(Array(lines.dropFirst()) == report.tableLines())
        #expect(report.tableLines()[0] == "  1  ws://192.0.2.5:18789  refused       tcp       started +0.0 ms   total 120 ms")
        #expect(report.tableLines()[1] == "       connection refused (ECONNREFUSED)")
        #expect(report.textLines(showAll: false, quiet: true).isEmpty)
        let advice = report.trustAdvice { "accept \($0.route.url)" }
        #expect(advice.first == "" && advice[1] == "The certificate of wss://gw.example:443 is not trusted (self-signed). Its SHA-256 fingerprint is")
        #expect(advice[2] == "  \(Self.fingerprint)" && advice.last == "  accept wss://gw.example:443")
        #expect(report.trustAdvice { _ in nil }.isEmpty)
    }
}
