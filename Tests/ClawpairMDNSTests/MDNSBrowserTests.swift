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

    @Test("complete: everything resolved, 1 s after the browse began (avahi's all for now), before the second query")
    func completeAtAllForNow() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .milliseconds(70))
        _ = browser.tick(at: t0)
        #expect(browser.completesAt == nil, "nothing asked yet")
        #expect(browser.tick(at: t0 + .milliseconds(70)).queries.count == 1)
        _ = browser.receive(Self.announcement(), at: t0 + .milliseconds(100))
        #expect(browser.completesAt == t0 + MDNSTiming.allForNow, "one second after the browse began")
        #expect(!browser.isComplete(at: t0 + MDNSTiming.allForNow - .milliseconds(1)))
        #expect(browser.isComplete(at: t0 + MDNSTiming.allForNow))
        #expect(browser.nextDeadline == t0 + .milliseconds(1070), "the second query would come only after that")
        #expect(!browser.lossEvident)
    }

    @Test("complete: a change late in the first second holds the end for the quiet period")
    func lateChangeHoldsTheEnd() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        let late = t0 + .milliseconds(900)
        _ = browser.receive(Self.announcement(), at: late)
        #expect(browser.completesAt == late + MDNSTiming.quietPeriod)
    }

    @Test("complete: nothing found waits for the second query (every answer to the first may have been lost)")
    func nothingFoundWaitsForTheSecondQuery() {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        #expect(browser.completesAt == nil)
        #expect(!browser.isComplete(at: t0 + .seconds(1) - .milliseconds(1)))
        let t1 = t0 + .seconds(1)
        #expect(browser.tick(at: t1).queries.count == 1)
        #expect(browser.completesAt == t1 + MDNSTiming.quietPeriod)
    }

    static let peer = MDNSPeer(address: [10, 250, 1, 2])

    /// A browser whose first query went out at t0 and that heard `answer` from ``peer`` at `heard`.
    func heardBrowser(_ answer: DNSMessage = announcement(), at heard: Monotonic.Instant) -> MDNSBrowser {
        var browser = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        _ = browser.receive([(answer, Self.peer)], at: heard)
        return browser
    }
    static let attic = try! DNSName(labels: ["Attic", "_openclaw-gw", "_tcp", "local"])
    static func attic(srv: Bool = true) -> DNSMessage {
        response([DNSResourceRecord(name: type, ttl: 4500, data: .ptr(attic))] + (srv ? [
            DNSResourceRecord(name: attic, ttl: 120, data: .srv(SRVData(port: 18789, target: host))),
            DNSResourceRecord(name: attic, ttl: 120, data: .txt([Array("role=gateway".utf8)])),
        ] : []))
    }

    @Test("§5.5: a responder heard from is asked again directly, with the QU bit and its PTRs as known answers")
    func responderIsReaskedDirectly() {
        let heard = t0 + .milliseconds(40)
        var browser = heardBrowser(at: heard)
        #expect(browser.nextDeadline == heard + MDNSTiming.reaskDelay)
        #expect(browser.directQueries(at: heard + MDNSTiming.reaskDelay - .milliseconds(1)).isEmpty)
        let due = heard + MDNSTiming.reaskDelay
        let reasks = browser.directQueries(at: due)
        #expect(reasks.count == 1)
        #expect(reasks.first?.peer == Self.peer)
        #expect(reasks.first?.query.questions == [DNSQuestion(name: Self.type, type: .ptr, unicastResponse: true)])
        #expect(reasks.first?.query.answers.map(\.data) == [.ptr(Self.instance)], "what it gave goes along as a known answer")
        #expect(browser.tick(at: due).queries.isEmpty, "and no multicast query before the second")
        // No reply: the reply may have been lost, so it is asked again after reaskSilence.
        #expect(browser.nextDeadline == due + MDNSTiming.reaskSilence)
        #expect(browser.directQueries(at: due + MDNSTiming.reaskSilence - .milliseconds(1)).isEmpty)
        #expect(browser.directQueries(at: due + MDNSTiming.reaskSilence).count == 1)
    }

    @Test("re-asks follow replies and silence alike, at most maxReasks per responder; a sender without a peer is never re-asked")
    func reasksAreBounded() {
        var now = t0 + .milliseconds(40)
        var browser = heardBrowser(at: now)
        var sent = 0
        for _ in 0..<(MDNSTiming.maxReasks + 2) {
            now = now + MDNSTiming.reaskDelay
            sent += browser.directQueries(at: now).count
            _ = browser.receive([(Self.announcement(), Self.peer)], at: now + .milliseconds(5))
            now = now + .milliseconds(5)
        }
        #expect(sent == MDNSTiming.maxReasks)
        // A silent responder, too, is asked at most maxReasks times.
        var silent = heardBrowser(at: t0 + .milliseconds(40))
        var asked = 0
        for step in 1...40 { asked += silent.directQueries(at: t0 + .milliseconds(40 + 100 * step)).count }
        #expect(asked == MDNSTiming.maxReasks)
        #expect(silent.directQueries(at: t0 + .seconds(60)).isEmpty)
        var anonymous = MDNSBrowser(serviceType: Self.type, firstQueryDelay: .zero)
        _ = anonymous.tick(at: t0)
        _ = anonymous.receive(Self.announcement(), at: t0 + .milliseconds(40))
        #expect(anonymous.directQueries(at: t0 + .seconds(1)).isEmpty)
    }

    @Test("a re-ask also asks for the SRV/TXT of the responder's instances that are unresolved")
    func reaskCarriesResolveQuestions() {
        var browser = heardBrowser(Self.attic(srv: false), at: t0 + .milliseconds(40))
        let reask = browser.directQueries(at: t0 + .milliseconds(40) + MDNSTiming.reaskDelay)
        #expect(reask.first?.query.questions.map(\.type) == [.ptr, .srv, .txt])
        #expect(browser.completesAt == nil, "an unresolved instance holds the answer open")
    }

    @Test("complete: a re-ask that brings an instance not seen before (a lost answer) waits for the second query")
    func lossWaitsForTheSecondQuery() {
        let heard = t0 + .milliseconds(40)
        var browser = heardBrowser(at: heard)
        #expect(browser.completesAt == t0 + MDNSTiming.allForNow)
        // The reply to a re-ask that its own PTR went along with: nothing new, no sign of loss.
        let due = heard + MDNSTiming.reaskDelay
        #expect(browser.directQueries(at: due).count == 1)
        _ = browser.receive([(Self.announcement(), Self.peer)], at: due + .milliseconds(5))
        #expect(!browser.lossEvident)
        // The next reply brings Attic, lost from the first answer.
        let next = due + .milliseconds(5) + MDNSTiming.reaskDelay
        #expect(browser.directQueries(at: next).count == 1)
        let recovered = next + .milliseconds(5)
        #expect(browser.receive([(Self.attic(), Self.peer)], at: recovered).events.first == .added(Self.attic))
        #expect(browser.lossEvident)
        #expect(browser.completesAt == nil, "loss: the second query may reach responders never heard from")
        let t1 = t0 + .seconds(1)
        #expect(browser.tick(at: t1).queries.contains { $0.questions.first?.type == .ptr })
        #expect(browser.completesAt == t1 + MDNSTiming.quietPeriod)
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
        // §5.2: the same question again after 1 s, then after 2 s.
        #expect(!browser.tick(at: t0 + .milliseconds(999)).queries.contains { $0.questions.first?.type == .srv })
        let retry = browser.tick(at: t0 + .seconds(1)).queries
        #expect(retry.contains { $0.questions.map(\.type) == [.srv, .txt] && !$0.questions[0].unicastResponse })
        #expect(!browser.tick(at: t0 + .milliseconds(2999)).queries.contains { $0.questions.first?.type == .srv })
        #expect(browser.tick(at: t0 + .seconds(3)).queries.contains { $0.questions.first?.type == .srv })
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

@Suite struct MDNSQuerierSummaryTests {
    @Test("-v's line says how the run ended, what it sent, and why it waited")
    func description() {
        #expect(MDNSQuerier.Summary(multicastQueries: 1, directQueries: 3, complete: true).description
                == "native: complete after queries: 1 multicast, 3 direct")
        #expect(MDNSQuerier.Summary(multicastQueries: 1).description == "native: stopped after queries: 1 multicast, 0 direct")
        // Issue #24 §3: "6 direct" for one dual-stack gateway: 5 is the most per address, and it answered from two.
        #expect(MDNSQuerier.Summary(multicastQueries: 2, directQueries: 6, directPeers: 2, complete: true).description
                == "native: complete after queries: 2 multicast, 6 direct to 2 addresses")
        #expect(MDNSQuerier.Summary(multicastQueries: 2, directQueries: 5, answersLost: true, complete: true).description
                == "native: complete after queries: 2 multicast, 5 direct (answers were lost on the way: waited for the second multicast query)")
    }
}
