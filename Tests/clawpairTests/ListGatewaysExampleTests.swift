import ClawpairTestSupport
import Foundation
import Testing

/// Examples/ListGateways, the library guide's example (docs/library.md), finds a gateway as `clawpair discover`
/// does: python-zeroconf advertises from lab host B, avahi-daemon runs in A (on the lab's own
/// D-Bus), the example runs in A. Nothing leaves the lab namespaces.
@Suite("Examples/ListGateways", .serialized, .networkLab)
struct ListGatewaysExampleTests {
    /// The example's executable, beside the clawpair the tests run.
    static let path = URL(fileURLWithPath: ClawpairBinary.path).deletingLastPathComponent()
        .appendingPathComponent("ListGateways").path

    @Test("lists the gateway with its URL and backend; --first prints it as soon as it is resolved")
    func listsGateway() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, _) = try await lab.startAvahiLink()
            try await lab.startZeroconfAdvertiser(in: b, instance: "Buero Gateway", port: 18789,
                                                  txt: ["role": "gateway", "gatewayTls": "1", "displayName": "Büro"],
                                                  server: "buero.local.")
            let env: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "HOME": "/nonexistent"]
            let first = try await a.run([Self.path, "--first"], environment: env, timeout: .seconds(20))
            #expect(first.status == .exited(0), "\(first.stdout)\(first.stderr)")
            #expect(first.stdout.hasPrefix("Büro  wss://buero.local:18789  via avahi  "), "\(first.stdout)")

            let list = try await a.run([Self.path], environment: env, timeout: .seconds(20))
            #expect(list.status == .exited(0), "\(list.stdout)\(list.stderr)")
            #expect(list.stdout.hasPrefix("searched local.: 1 gateway(s)\nBüro  wss://buero.local:18789  via avahi  "),
                    "\(list.stdout)")
        }
    }
}
