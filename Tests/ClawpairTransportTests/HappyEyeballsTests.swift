import ClawpairCore
@testable import ClawpairTransport
import Glibc
import Testing

/// The RFC 8305 state machine, walked through time by passing instants: no sleeping, no sockets.
@Suite struct HappyEyeballsTests {
    typealias Action = HappyEyeballs.Action
    typealias ID = HappyEyeballs.AttemptID

    static let v6a = SocketAddress(ip: "fd00::1", port: 443)!
    static let v6b = SocketAddress(ip: "fd00::2", port: 443)!
    static let v6c = SocketAddress(ip: "fd00::3", port: 443)!
    static let v4a = SocketAddress(ip: "10.0.0.1", port: 443)!
    static let v4b = SocketAddress(ip: "10.0.0.2", port: 443)!
    static let refused = TransportError.connectFailed(address: v6a, errno: ECONNREFUSED)

    func ms(_ value: Int64) -> Monotonic.Instant { Monotonic.Instant(nanoseconds: value * 1_000_000) }

    @Test func aaaaFirstStartsAtOnceThenStaggersEvery250ms() {
        var he = HappyEyeballs(host: "gw")
        #expect(he.handle(.resolved(.ipv6, [Self.v6a, Self.v6b]), now: ms(10)) == [
            .startAttempt(ID(1), Self.v6a), .setTimer(ms(260)),
        ])
        // A arrives while the first attempt is pending: merged, alternating after the IPv6 just tried.
        #expect(he.handle(.resolved(.ipv4, [Self.v4a]), now: ms(20)).isEmpty)
        #expect(he.handle(.timerFired, now: ms(260)) == [.startAttempt(ID(2), Self.v4a), .setTimer(ms(510))])
        #expect(he.handle(.timerFired, now: ms(510)) == [.startAttempt(ID(3), Self.v6b)])
        // The second attempt wins; the others are cancelled.
        #expect(he.handle(.attemptSucceeded(ID(2)), now: ms(600)) == [
            .cancelAttempt(ID(1)), .cancelAttempt(ID(3)), .connected(ID(2), Self.v4a),
        ])
        #expect(he.isFinished)
        // A late winner is closed.
        #expect(he.handle(.attemptSucceeded(ID(1)), now: ms(700)) == [.cancelAttempt(ID(1))])
    }

    @Test func aFirstWaitsTheResolutionDelayForAAAA() {
        var he = HappyEyeballs(host: "gw")
        #expect(he.handle(.resolved(.ipv4, [Self.v4a, Self.v4b]), now: ms(0)) == [.setTimer(ms(50))])
        // AAAA within 50 ms: IPv6 leads, families interleave.
        #expect(he.handle(.resolved(.ipv6, [Self.v6a, Self.v6b]), now: ms(30)) == [
            .cancelTimer, .startAttempt(ID(1), Self.v6a), .setTimer(ms(280)),
        ])
        #expect(he.handle(.attemptFailed(ID(1), Self.refused), now: ms(31)) == [
            .cancelTimer, .startAttempt(ID(2), Self.v4a), .setTimer(ms(281)),
        ])
        #expect(he.handle(.timerFired, now: ms(281)) == [.startAttempt(ID(3), Self.v6b), .setTimer(ms(531))])
        #expect(he.handle(.timerFired, now: ms(531)) == [.startAttempt(ID(4), Self.v4b)])
    }

    @Test func aFirstAndAAAALateConnectsWithIPv4AfterTheDelay() {
        var he = HappyEyeballs(host: "gw")
        #expect(he.handle(.resolved(.ipv4, [Self.v4a, Self.v4b]), now: ms(0)) == [.setTimer(ms(50))])
        #expect(he.handle(.timerFired, now: ms(50)) == [.startAttempt(ID(1), Self.v4a), .setTimer(ms(300))])
        // AAAA arrives late: IPv6 goes next (the family not tried last), before the second A.
        #expect(he.handle(.resolved(.ipv6, [Self.v6a]), now: ms(100)).isEmpty)
        #expect(he.handle(.timerFired, now: ms(300)) == [.startAttempt(ID(2), Self.v6a), .setTimer(ms(550))])
        #expect(he.handle(.timerFired, now: ms(550)) == [.startAttempt(ID(3), Self.v4b)])
    }

    @Test func lateAnswerAfterTheTimerLapsedStartsAtOnce() {
        var he = HappyEyeballs(host: "gw")
        _ = he.handle(.resolved(.ipv4, [Self.v4a]), now: ms(0))
        _ = he.handle(.timerFired, now: ms(50))  // attempt 1, timer armed because AAAA is pending
        #expect(he.handle(.timerFired, now: ms(300)).isEmpty)  // nothing to start yet
        #expect(he.handle(.resolved(.ipv6, [Self.v6a, Self.v6b]), now: ms(400)) == [
            .startAttempt(ID(2), Self.v6a), .setTimer(ms(650)),
        ])
    }

    @Test func lateFamilyAfterEveryAttemptFailedStartsAtOnce() {
        var he = HappyEyeballs(host: "gw")
        #expect(he.handle(.resolved(.ipv6, [Self.v6a]), now: ms(0)) == [.startAttempt(ID(1), Self.v6a), .setTimer(ms(250))])
        #expect(he.handle(.attemptFailed(ID(1), Self.refused), now: ms(2)).isEmpty)  // A still pending
        #expect(he.handle(.resolved(.ipv4, [Self.v4a]), now: ms(10)) == [.cancelTimer, .startAttempt(ID(2), Self.v4a)])
    }

    @Test func aaaaFailureDuringTheDelayConnectsAtOnce() {
        var he = HappyEyeballs(host: "gw")
        _ = he.handle(.resolved(.ipv4, [Self.v4a]), now: ms(0))
        #expect(he.handle(.resolutionFailed(.ipv6, .noAddresses(host: "gw")), now: ms(5)) == [
            .cancelTimer, .startAttempt(ID(1), Self.v4a),
        ])
        #expect(he.handle(.attemptFailed(ID(1), Self.refused), now: ms(6)) == [.failed(Self.refused)])
    }

    @Test func emptyAAAAAnswerCountsAsFailure() {
        var he = HappyEyeballs(host: "gw")
        #expect(he.handle(.resolved(.ipv6, []), now: ms(0)).isEmpty)
        #expect(he.handle(.resolved(.ipv4, [Self.v4a]), now: ms(1)) == [.startAttempt(ID(1), Self.v4a)])
    }

    @Test func bothFamiliesFail() {
        var he = HappyEyeballs(host: "gw")
        let nxdomain = TransportError.resolutionFailed(host: "gw", message: "Name or service not known")
        #expect(he.handle(.resolutionFailed(.ipv4, nxdomain), now: ms(0)).isEmpty)
        #expect(he.handle(.resolutionFailed(.ipv6, .noAddresses(host: "gw")), now: ms(1)) == [.failed(nxdomain)])
        #expect(he.isFinished)
    }

    @Test func failuresStartTheNextAttemptImmediatelyAndTheLastOneReports() {
        var he = HappyEyeballs(host: "gw")
        _ = he.handle(.resolutionFailed(.ipv4, .noAddresses(host: "gw")), now: ms(0))
        #expect(he.handle(.resolved(.ipv6, [Self.v6a, Self.v6b, Self.v6c]), now: ms(0)) == [
            .startAttempt(ID(1), Self.v6a), .setTimer(ms(250)),
        ])
        #expect(he.handle(.attemptFailed(ID(1), Self.refused), now: ms(1)) == [
            .cancelTimer, .startAttempt(ID(2), Self.v6b), .setTimer(ms(251)),
        ])
        let unreachable = TransportError.connectFailed(address: Self.v6c, errno: EHOSTUNREACH)
        #expect(he.handle(.timerFired, now: ms(251)) == [.startAttempt(ID(3), Self.v6c)])
        #expect(he.handle(.attemptFailed(ID(2), Self.refused), now: ms(300)).isEmpty)
        #expect(he.handle(.attemptFailed(ID(3), unreachable), now: ms(400)) == [.failed(unreachable)])
    }

    @Test func cancelClosesEverything() {
        var he = HappyEyeballs(host: "gw")
        _ = he.handle(.resolved(.ipv6, [Self.v6a]), now: ms(0))
        _ = he.handle(.resolved(.ipv4, [Self.v4a]), now: ms(0))
        _ = he.handle(.timerFired, now: ms(250))
        #expect(he.handle(.cancel, now: ms(260)) == [.cancelAttempt(ID(1)), .cancelAttempt(ID(2)), .failed(.cancelled)])
        #expect(he.handle(.attemptFailed(ID(1), Self.refused), now: ms(261)).isEmpty)

        var waiting = HappyEyeballs(host: "gw")
        _ = waiting.handle(.resolved(.ipv4, [Self.v4a]), now: ms(0))
        #expect(waiting.handle(.cancel, now: ms(1)) == [.cancelTimer, .failed(.cancelled)])
    }

    @Test func staleInputsAreIgnored() {
        var he = HappyEyeballs(host: "gw")
        #expect(he.handle(.timerFired, now: ms(0)).isEmpty)
        #expect(he.handle(.attemptFailed(ID(9), Self.refused), now: ms(0)).isEmpty)
        #expect(he.handle(.attemptSucceeded(ID(9)), now: ms(0)) == [.cancelAttempt(ID(9))])
        _ = he.handle(.resolved(.ipv6, [Self.v6a]), now: ms(0))
        #expect(he.handle(.resolved(.ipv6, [Self.v6b]), now: ms(1)).isEmpty)  // a second AAAA answer
        #expect(he.handle(.attemptSucceeded(ID(7)), now: ms(2)) == [.cancelAttempt(ID(7))])
    }

    @Test func duplicatesAreDialedOnce() {
        var he = HappyEyeballs(host: "gw")
        _ = he.handle(.resolutionFailed(.ipv4, .noAddresses(host: "gw")), now: ms(0))
        #expect(he.handle(.resolved(.ipv6, [Self.v6a, Self.v6a]), now: ms(0)) == [.startAttempt(ID(1), Self.v6a)])
    }

    @Test(arguments: [1, 2])
    func interleaving(leading: Int) {
        let order = HappyEyeballs.interleave(first: [Self.v6a, Self.v6b, Self.v6c], second: [Self.v4a, Self.v4b], leading: leading)
        if leading == 1 {
            #expect(order == [Self.v6a, Self.v4a, Self.v6b, Self.v4b, Self.v6c])
        } else {
            #expect(order == [Self.v6a, Self.v6b, Self.v4a, Self.v6c, Self.v4b])
        }
    }

    @Test func configurationIsHonoured() {
        var he = HappyEyeballs(host: "gw", configuration: HappyEyeballsConfiguration(
            resolutionDelay: .milliseconds(20), connectionAttemptDelay: .milliseconds(100)))
        #expect(he.handle(.resolved(.ipv4, [Self.v4a, Self.v4b]), now: ms(0)) == [.setTimer(ms(20))])
        #expect(he.handle(.timerFired, now: ms(20)) == [.startAttempt(ID(1), Self.v4a), .setTimer(ms(120))])
    }
}

@Suite struct TLSTrustTests {
    static let fp = String(repeating: "ab", count: 32)
    static let other = String(repeating: "cd", count: 32)

    @Test func table() {
        let trusted = TLSPeerCertificate(fingerprint: Self.fp, systemTrusted: true)
        let selfSigned = TLSPeerCertificate(fingerprint: Self.fp, systemTrusted: false, verificationError: "self-signed certificate")
        let none = TLSPeerCertificate(fingerprint: nil, systemTrusted: false)
        // Pin set.
        #expect(TLSTrust.evaluate(none, policy: TLSPinPolicy(pin: Self.fp)) == .failure(.certificateUnavailable))
        #expect(TLSTrust.evaluate(selfSigned, policy: TLSPinPolicy(pin: Self.fp)) == .success(.pinned))
        #expect(TLSTrust.evaluate(trusted, policy: TLSPinPolicy(pin: Self.other))
            == .failure(.pinMismatch(expected: Self.other, observed: Self.fp)))
        // TOFU.
        #expect(TLSTrust.evaluate(trusted, policy: TLSPinPolicy(allowTrustOnFirstUse: true)) == .success(.trustedOnFirstUse))
        #expect(TLSTrust.evaluate(selfSigned, policy: TLSPinPolicy(allowTrustOnFirstUse: true))
            == .failure(.untrustedCertificate(observed: Self.fp, reason: "self-signed certificate")))
        #expect(TLSTrust.evaluate(none, policy: TLSPinPolicy(allowTrustOnFirstUse: true)) == .failure(.certificateUnavailable))
        #expect(TLSTrust.evaluate(selfSigned, policy: TLSPinPolicy(allowTrustOnFirstUse: true, required: false)) == .success(.unverified))
        // No pin, no TOFU.
        #expect(TLSTrust.evaluate(trusted, policy: TLSPinPolicy()) == .success(.system))
        #expect(TLSTrust.evaluate(selfSigned, policy: TLSPinPolicy())
            == .failure(.untrustedCertificate(observed: Self.fp, reason: "self-signed certificate")))
        #expect(TLSTrust.evaluate(selfSigned, policy: TLSPinPolicy(required: false)) == .success(.unverified))
    }
}

@Suite struct SocketAddressTests {
    @Test func parsesAndPrints() {
        #expect(SocketAddress(ip: "10.250.0.2", port: 18789)?.description == "10.250.0.2:18789")
        #expect(SocketAddress(ip: "fd00:c1a0:0:0::2", port: 443)?.description == "[fd00:c1a0::2]:443")
        #expect(SocketAddress(ip: "fd00::1", port: 1)?.family == .ipv6)
        #expect(SocketAddress(ip: "gw.local", port: 1) == nil)
        #expect(SocketAddress(ip: "127.1", port: 1) == nil)
        #expect(SocketAddress(ip: "10.0.0.1", port: 70000) == nil)
        #expect(SocketAddress(ip: "fe80::1%lo", port: 1)?.scopeID == 1)
    }
}
