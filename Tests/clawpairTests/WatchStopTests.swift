import ClawpairTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Watches end on Ctrl-C through their stop signal (not by dying of the signal): `clawpair
/// discover --watch` and Examples/ListGateways --watch, inside a lab (python-zeroconf in B, the
/// watcher in A on the native querier). The wait for the exit is only a hang bound.
@Suite("Watch stops on a signal", .serialized, .networkLab)
struct WatchStopTests {
    static let txt = ["role": "gateway", "gatewayTls": "1", "displayName": "Büro"]
    static let env: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/clawpair-test-bus",
                                         "HOME": "/nonexistent"]
    static let listGateways = URL(fileURLWithPath: ClawpairBinary.path).deletingLastPathComponent()
        .appendingPathComponent("ListGateways").path

    @Test("discover --watch ends with status 0 on SIGINT")
    func discoverWatch() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            try await lab.link(a, b)
            try await lab.startZeroconfAdvertiser(in: b, instance: "Buero Gateway", port: 18789, txt: Self.txt, server: "buero.local.")
            let watcher = try a.spawn([ClawpairBinary.path, "discover", "--backend", "native", "--watch", "--json"],
                                      environment: Self.env, label: "discover --watch")
            _ = try await watcher.waitForLine(containing: "\"event\":\"added\"", timeout: .seconds(10))
            watcher.signal(SIGINT)
            #expect(try await watcher.waitForExit(timeout: .seconds(10)) == .exited(0), "\(watcher.outputExcerpt)")
        }
    }

    @Test("Examples/ListGateways --watch ends on SIGINT through task cancellation")
    func listGatewaysWatch() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            try await lab.link(a, b)
            try await lab.startZeroconfAdvertiser(in: b, instance: "Buero Gateway", port: 18789, txt: Self.txt, server: "buero.local.")
            let watcher = try a.spawn([Self.listGateways, "--watch"], environment: Self.env, label: "ListGateways --watch")
            let added = try await watcher.waitForLine(containing: "+ Büro", timeout: .seconds(10))
            #expect(added.contains("wss://buero.local:18789"))
            watcher.signal(SIGINT)
            #expect(try await watcher.waitForExit(timeout: .seconds(10)) == .exited(0), "\(watcher.outputExcerpt)")
            #expect(watcher.stdout.hasSuffix("stopped\n"), "\(watcher.stdout)")
        }
    }
}
