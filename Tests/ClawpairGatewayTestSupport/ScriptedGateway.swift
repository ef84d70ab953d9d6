import ClawpairCore
import ClawpairTestSupport
@testable import ClawpairGateway

// Test doubles for GatewaySession's connector seam, shared by the gateway's and the node's tests
// (a test-support target: built with the tests only, so it may use `@testable`).

extension GatewaySession {
    /// A call queued on the session, as a scripted link takes it.
    public typealias QueuedCall = (method: String, params: JSONValue?, completion: @Sendable (Result<JSONValue, GatewayError>) -> Void)

    /// For a scripted link's `serve`: hands each batch of queued calls to `handle` until it
    /// returns false or the session stops, sleeping in between until the session wakes the link
    /// (a call queued, a reconnect asked for, the stop). False when ``hangBound`` passed first.
    @discardableResult
    public func serveQueuedCalls(_ handle: ([QueuedCall]) -> Bool) -> Bool {
        let wakes = Watched(0)
        onWake { wakes.update { $0 += 1 } }
        let stopped = stopSignal.onStop { wakes.update { $0 += 1 } }
        defer { stopSignal.removeHandler(stopped) }
        while !stopSignal.isStopped {
            let seen = wakes.value
            guard handle(takeQueuedCalls()) else { return true }
            guard wakes.wait(until: { $0 != seen }) else { return false }
        }
        return true
    }
}

/// A scripted gateway whose first attempt hangs, as dialling a vanished address does, until the
/// session abandons it (``GatewaySession/reconnectNow()``, the stop) or the test lets its
/// connect timeout fire (``timeoutFires``). Later attempts get hello-ok and last until the
/// session stops. What happened goes to ``log``, in order: `attempt <urls>`, `abandoned <url>`,
/// `timeout fired <url>`; the test may add lines of its own.
public final class HangingConnector: GatewaySessionConnector {
    /// What happened, in order.
    public let log: Watched<[String]>
    /// Raised by the test: the hanging attempt's connect timeout fires.
    public let timeoutFires = StopSignal()

    /// A connector logging to `log`.
    public init(log: Watched<[String]> = Watched([])) {
        self.log = log
    }

    /// A connection after hello-ok that lasts until the session stops.
    final class Link: GatewaySessionLink {
        let url: String
        let hello = HelloOK(.object([("type", "hello-ok"), ("protocol", 4)]))!
        init(url: String) { self.url = url }

        func serve(_ session: GatewaySession, onEvent: (GatewaySessionEvent) -> Void) -> GatewayError {
            session.stopSignal.wait(bound: hangBound)
            return .cancelled
        }

        func close(code: UInt16, reason: String) {}
    }

    public func connect(urls: [String], pin: String?, request: ConnectRequest,
                        session: GatewaySession) -> Result<any GatewaySessionLink, GatewayError> {
        let first = log.update { log -> Bool in
            defer { log.append("attempt \(urls.joined(separator: " "))") }
            return !log.contains { $0.hasPrefix("attempt") }
        }
        guard first else { return .success(Link(url: urls.first ?? "")) }
        // Dialling a vanished address: nothing answers until the connect timeout.
        let abandoned = session.attemptSignal ?? StopSignal()
        abandoned.joined(with: timeoutFires).wait(bound: hangBound)
        if abandoned.isStopped {
            log.update { $0.append("abandoned \(urls[0])") }
            return .failure(.cancelled)
        }
        log.update { $0.append("timeout fired \(urls[0])") }
        return .failure(.timedOut(what: "the connection to \(urls[0])", after: .seconds(10)))
    }

    /// Waits until the hanging first attempt ended, abandoned or by its timeout (after the test
    /// raised ``timeoutFires``); false after ``hangBound``.
    @discardableResult
    public func waitForTheHangingAttemptToEnd() -> Bool {
        log.wait { $0.contains { $0.hasPrefix("abandoned") || $0.hasPrefix("timeout fired") } }
    }

    /// Waits until a line starting with `prefix` is logged; false after ``hangBound``.
    public func waitFor(_ prefix: String, bound: Duration = hangBound) -> Bool {
        log.wait(bound: bound) { $0.contains { $0.hasPrefix(prefix) } }
    }
}
