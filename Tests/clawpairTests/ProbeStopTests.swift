import ClawpairTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `clawpair probe` ends on Ctrl-C/SIGTERM through its stop signal, with the `cancelled` outcome,
/// as discover and pair do: a probe races a loopback port whose listener never accepts (the
/// kernel completes the handshake, nothing ever answers the upgrade), so without the stop it would
/// wait for its whole --timeout. The wait for the exit is only a hang bound, far below that timeout.
@Suite("probe stops on a signal")
struct ProbeStopTests {
    /// A loopback TCP listener that never accepts: connections queue in its backlog.
    final class SilentListener {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 8) == 0 else { close(fd); throw HarnessError("bind/listen: errno \(errno)") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        /// Whether a connection waits in the backlog (the listener is readable), looking for at
        /// most `milliseconds`.
        func hasPendingConnection(milliseconds: Int32) -> Bool {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, milliseconds) == 1 && entry.revents & Int16(POLLIN) != 0
        }

        deinit { close(fd) }
    }

    func probeStops(on signal: Int32) async throws {
        let listener = try SilentListener()
        let probe = try Subprocess.spawn([ClawpairBinary.path, "probe", "--json", "--timeout", "120s",
                                          "ws://127.0.0.1:\(listener.port)"],
                                         environment: ["NO_COLOR": "1"], label: "probe (never answered)")
        // The probe has connected: it is racing (past start-up, its stop signal armed). The wait
        // wakes when the listener turns readable, or when the probe ended first (a failure: its
        // exit writes to a pipe); a hang bound only.
        var exitPipe: [Int32] = [-1, -1]
        try #require(pipe(&exitPipe) == 0)
        let (exitRead, exitWrite) = (exitPipe[0], exitPipe[1])
        let exitWatch = Task {
            _ = try? await probe.waitForExit(timeout: hangBound)
            var byte: UInt8 = 1
            _ = write(exitWrite, &byte, 1)
        }
        let listening = listener.fd
        _ = await onThread { () -> Int32 in
            var descriptors = [pollfd(fd: listening, events: Int16(POLLIN), revents: 0), pollfd(fd: exitRead, events: Int16(POLLIN), revents: 0)]
            return poll(&descriptors, 2, 300_000)
        }
        #expect(listener.hasPendingConnection(milliseconds: 0), "the probe connected: \(probe.outputExcerpt)")
        probe.signal(signal)
        let ended = try await probe.waitForExit(timeout: .seconds(20))
        _ = await exitWatch.value  // it wrote or gave up; then its pipe closes
        close(exitRead)
        close(exitWrite)
        #expect(ended == .exited(1), "\(probe.outputExcerpt)")
        let object = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any]
        #expect(object?["ok"] as? Bool == false)
        #expect((object?["error"] as? [String: Any])?["code"] as? String == "cancelled", "\(probe.stdout)")
        #expect((object?["error"] as? [String: Any])?["message"] as? String == "stopped before it finished", "\(probe.stdout)")
    }

    @Test("SIGINT ends a probe of a route that never answers: status 1, error code cancelled")
    func interrupt() async throws {
        try await probeStops(on: SIGINT)
    }

    @Test("SIGTERM does the same")
    func terminate() async throws {
        try await probeStops(on: SIGTERM)
    }
}
