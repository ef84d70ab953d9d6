import ClawpairCore
import ClawpairDNS
import ClawpairMDNS
import Testing

/// The browse state machine, driven by hand-made packets and an injected clock (no sockets,
/// no sleeping).
@Suite struct MDNSBrowserTests {
    static let type = try! DNSName("_openclaw-gw._tcp.local.")
    static let instance = try! DNSName(labels: ["Studio (OpenClaw)", "_openclaw-gw", "_tcp", "local"])
    static let host = try! DNSName("studio.local.")
    let t0 = Monotonic.now

    static func response(_ records: [DNSResourceRecord]) -> DNSMessage {
        var header = DNSHeader()
        header.isResponse = true
        header.isAuthoritative = true
        return DNSMessage(header: header, answers: records)
    }

    static func announcement(ttl: UInt32 = 120, port: UInt16 = 18789) -> DNSMessage {
        response([
            DNSResourceRecord(name: type, ttl: ttl == 0 ? 0 : 4500, data: .ptr(instance)),
            DNSResourceRecord(name: instance, cacheFlush: true, ttl: ttl, data: .srv(SRVData(port: port, target: host))),
            DNSResourceRecord(name: instance, cacheFlush: true, ttl: ttl, data: .txt([Array("role=gateway".utf8)])),
            DNSResourceRecord(name: host, cacheFlush: true, ttl: ttl, data: .a(IPv4Address(0x0AFA_0102))),
        ])
    }

    @Test func firstQueryAsksForUnicastThenIntervalsDouble() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        let first = browser.tick(at: t0).queries
        #expect(first.count == 1)
        #expect(first[0].questions == [DNSQuestion(name: Self.type, type: .ptr, unicastResponse: true)])
        #expect(browser.tick(at: t0 + .milliseconds(999)).queries.isEmpty)
        let second = browser.tick(at: t0 + .seconds(1)).queries
        #expect(second.first?.questions.first?.unicastResponse == false)
        #expect(browser.nextDeadline == t0 + .seconds(3), "the next interval is 2 s")
    }

    @Test("§5.2: the first query waits its random 20–120 ms delay")
    func firstQueryIsDelayed() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .milliseconds(70))
        #expect(browser.tick(at: t0).queries.isEmpty)
        #expect(browser.nextDeadline == t0 + .milliseconds(70))
        #expect(browser.tick(at: t0 + .milliseconds(69)).queries.isEmpty)
        let first = browser.tick(at: t0 + .milliseconds(70)).queries
        #expect(first.first?.questions == [DNSQuestion(name: Self.type, type: .ptr, unicastResponse: true)])
        #expect(browser.nextDeadline == t0 + .milliseconds(1070), "then 1 s to the second")
        for _ in 0..<20 {
            let delay = MDNSBrowser(serviceType: Self.type).firstQueryDelay
            #expect(delay >= .milliseconds(20) && delay <= .milliseconds(120), "\(delay)")
        }
    }

    @Test("complete: two queries, everything resolved, then the quiet period")
    func completeAfterSecondQueryAndQuiet() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        _ = browser.receive(Self.announcement(), at: t0 + .milliseconds(30))
        #expect(browser.completesAt == nil, "one query is not enough: its answers may have been lost")
        #expect(!browser.isComplete(at: t0 + .milliseconds(900)))
        let t1 = t0 + .seconds(1)
        #expect(browser.tick(at: t1).queries.count == 1)
        #expect(browser.completesAt == t1 + MDNSTiming.quietPeriod)
        #expect(!browser.isComplete(at: t1 + MDNSTiming.quietPeriod - .milliseconds(1)))
        #expect(browser.isComplete(at: t1 + MDNSTiming.quietPeriod))
    }

    @Test("complete: a new instance after the second query (a lost answer) waits for the third query")
    func lateInstanceWaitsForTheNextQuery() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        _ = browser.receive(Self.announcement(), at: t0 + .milliseconds(30))
        let t1 = t0 + .seconds(1)
        _ = browser.tick(at: t1)
        let late = try! DNSName(labels: ["Attic", "_openclaw-gw", "_tcp", "local"])
        let events = browser.receive(Self.response([
            DNSResourceRecord(name: Self.type, ttl: 4500, data: .ptr(late)),
            DNSResourceRecord(name: late, ttl: 120, data: .srv(SRVData(port: 18789, target: Self.host))),
            DNSResourceRecord(name: late, ttl: 120, data: .txt([Array("role=gateway".utf8)])),
        ]), at: t1 + .milliseconds(100)).events
        #expect(events.first == .added(late))
        #expect(browser.completesAt == nil, "the second query found a gateway the first missed")
        let t3 = t1 + .seconds(2)
        #expect(!browser.isComplete(at: t3 - .milliseconds(1)))
        #expect(browser.tick(at: t3).queries.contains { $0.questions.first?.type == .ptr })
        #expect(browser.completesAt == t3 + MDNSTiming.quietPeriod)
    }

    @Test("complete: an instance still missing its SRV/TXT holds the answer open until they come")
    func unresolvedInstanceHoldsCompletion() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        _ = browser.receive(Self.response([DNSResourceRecord(name: Self.type, ttl: 4500, data: .ptr(Self.instance))]),
                            at: t0 + .milliseconds(30))
        let t1 = t0 + .seconds(1)
        _ = browser.tick(at: t1)
        #expect(browser.completesAt == nil)
        let answered = t1 + .milliseconds(600)
        _ = browser.receive(Self.announcement(), at: answered)
        #expect(browser.completesAt == answered + MDNSTiming.quietPeriod)
    }

    @Test func announcementResolvesAtOnce() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        let (queries, events) = browser.receive(Self.announcement(), at: t0 + .milliseconds(20))
        #expect(queries.isEmpty, "nothing is missing, so nothing is asked")
        let service = MDNSService(instance: Self.instance, hostTarget: Self.host, port: 18789,
                                  txt: [Array("role=gateway".utf8)], addresses: ["10.250.1.2"])
        #expect(events == [.added(Self.instance), .resolved(service)])
        // The same records again change nothing.
        #expect(browser.receive(Self.announcement(), at: t0 + .milliseconds(40)).events.isEmpty)
    }

    @Test func missingRecordsAreAskedForDirectly() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        let (queries, events) = browser.receive(
            Self.response([DNSResourceRecord(name: Self.type, ttl: 4500, data: .ptr(Self.instance))]), at: t0)
        #expect(events == [.added(Self.instance)])
        #expect(queries.count == 1)
        #expect(queries[0].questions.map(\.type) == [.srv, .txt])
        #expect(queries[0].questions.allSatisfy { $0.unicastResponse }, "the first direct query asks for unicast")
        let retry = browser.tick(at: t0 + .milliseconds(500)).queries
        #expect(retry.contains { $0.questions.map(\.type) == [.srv, .txt] && !$0.questions[0].unicastResponse })
    }

    @Test func knownAnswersSuppressRepeats() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        _ = browser.receive(Self.announcement(), at: t0)
        let next = browser.tick(at: t0 + .seconds(1)).queries
        #expect(next.first?.answers.map(\.data) == [.ptr(Self.instance)], "the PTR goes along as a known answer")
    }

    @Test func goodbyeRemovesAfterOneSecond() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        _ = browser.receive(Self.announcement(), at: t0)
        _ = browser.receive(Self.announcement(ttl: 0), at: t0 + .seconds(5))
        #expect(browser.tick(at: t0 + .milliseconds(5900)).events.isEmpty)
        #expect(browser.tick(at: t0 + .seconds(6)).events == [.removed(Self.instance)])
    }

    @Test func ignoresQueriesAndKeepsTheCacheBounded() {
        var browser = MDNSBrowser(serviceType: Self.type, cacheCapacity: 8, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        #expect(browser.receive(DNSMessage(questions: [DNSQuestion(name: Self.type, type: .ptr)]), at: t0).events.isEmpty)
        for index in 0..<50 {
            let name = try! DNSName(labels: ["gw \(index)", "_openclaw-gw", "_tcp", "local"])
            _ = browser.receive(Self.response([DNSResourceRecord(name: Self.type, ttl: UInt32(100 + index), data: .ptr(name))]),
                                at: t0)
        }
        #expect(browser.cache.count <= 8)
    }

    @Test("more instances than maxInstances: the first are tracked, the cut is reported once per growth")
    func instancesBeyondTheLimitAreReported() throws {
        var browser = MDNSBrowser(serviceType: Self.type, maxInstances: 3, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        func pointers(_ range: Range<Int>) throws -> DNSMessage {
            Self.response(try range.map { DNSResourceRecord(name: Self.type, ttl: 4500,
                                                            data: .ptr(try DNSName(labels: ["gw\($0)", "_openclaw-gw", "_tcp", "local"]))) })
        }
        let first = browser.receive(try pointers(0..<5), at: t0 + .milliseconds(30)).events
        #expect(first.filter { if case .added = $0 { true } else { false } }.count == 3)
        #expect(first.last == .truncated(seen: 5, limit: 3))
        #expect(browser.instancesSeen == 5)
        // The same five again: nothing new to report; two more: reported with the new count.
        #expect(browser.receive(try pointers(0..<5), at: t0 + .milliseconds(40)).events.isEmpty)
        #expect(browser.receive(try pointers(5..<7), at: t0 + .milliseconds(50)).events == [.truncated(seen: 7, limit: 3)])
    }
}

/// Real python-zeroconf answers, byte for byte, as regression inputs.
@Suite struct ZeroconfPacketTests {
    /// An IPv4-only python-zeroconf responder's answer to a PTR query: PTR, SRV, TXT, A, and an
    /// NSEC saying there is no AAAA, its next-domain name compressed (RFC 6762 §18.14).
    static let ipv4OnlyAnswer = "0000840000010001000000040c5f6f70656e636c61772d6777045f746370056c6f63616c00000c0001c00c000c000100001194001a1744656d6f204761746577617920284f70656e436c617729c00cc0350010000100001194000d0c726f6c653d676174657761790c64656d6f2d67617465776179c01e000100010000007800040afafa01c068002f000100001194000ac0680000000400000008c03500210001000000780008000000004965c068"

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    @Test func unpacksAndResolves() throws {
        let message = try DNSMessage.unpack(Self.bytes(Self.ipv4OnlyAnswer))
        var browser = MDNSBrowser(serviceType: try DNSName("_openclaw-gw._tcp.local."))
        _ = browser.tick(at: .now)
        let events = browser.receive(message, at: .now).events
        #expect(events.count == 2, "\(events)")
        guard case .resolved(let service)? = events.last else { Issue.record("not resolved: \(events)"); return }
        #expect(service.port == 18789)
        #expect(service.addresses == ["10.250.250.1"])
    }
}
