import ClawpairTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Examples/NodeDaemon against the stand-in gateway on loopback: paired as a node by `clawpair
/// pair` (so it neither browses nor reads a code), it holds a node session, logs the connect and
/// ends with status 0 on SIGTERM through task cancellation. The wait for the exit is only a hang
/// bound.
@Suite("Examples/NodeDaemon")
struct NodeDaemonExampleTests {
    static let path = URL(fileURLWithPath: ClawpairBinary.path).deletingLastPathComponent()
        .appendingPathComponent("NodeDaemon").path

    @Test("holds a node session and stops cleanly on SIGTERM")
    func holdsSessionAndStops() async throws {
        try await GatewayCommandTests.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: GatewayCommandTests.token)) { gateway in
                let minted = try home.run(["qr", "--setup-code-only", "--node", "--url", gateway.url, "--token-file", home.tokenFile])
                #expect(minted.status == 0, "\(minted)")
                let node = ["CLAWPAIR_HOME": home.directory + "/node-home", "HOME": home.directory]
                let paired = try home.run(["pair", "-", "--json"], environment: node, stdin: minted.stdout)
                #expect(paired.status == 0, "\(paired)")
                let daemon = try Subprocess.spawn([Self.path], environment: node, label: "NodeDaemon")
                _ = try await daemon.waitForLine(containing: "connected to \(gateway.url)", on: .stderr, timeout: .seconds(20))
                _ = try await gateway.waitForLog("connect-ok") { $0["role"] as? String == "node" && $0["auth"] as? String == "device-token" }
                daemon.signal(SIGTERM)
                #expect(try await daemon.waitForExit(timeout: .seconds(10)) == .exited(0), "\(daemon.outputExcerpt)")
                #expect(daemon.stderr.hasSuffix("stopped\n"), "\(daemon.stderr)")
            }
        }
    }
}
