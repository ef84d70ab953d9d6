import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair node status`: what the running node last wrote, whether its process still runs.
@Suite("clawpair node status")
struct NodeStatusCLITests {
    static func withHome(_ body: (String) throws -> Void) throws {
        let home = NSTemporaryDirectory() + "clawpair-nodestatus-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: home + "/node", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: home) }
        try body(home)
    }

    static func write(_ home: String, pid: Int32, state: String) throws {
        let json = #"{"pid":\#(pid),"state":"\#(state)","gatewayId":"gw-01","gatewayName":"lab","url":"ws://10.0.0.1:18789","sinceMs":1700000000000,"lastError":null}"#
        try json.write(toFile: home + "/node/status.json", atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: home + "/node/status.json")
    }

    @Test("no node ever ran: exit 3, a JSON error with code not-running")
    func neverRan() throws {
        try Self.withHome { home in
            let result = try ClawpairBinary.run(["node", "status", "--json"], environment: ["CLAWPAIR_HOME": home, "HOME": home])
            #expect(result.status == 3, "\(result)")
            #expect(result.stdout.hasPrefix("{\n  \"ok\": false,\n  \"error\": {\n    \"code\": \"not-running\""), "\(result)")
        }
    }

    @Test("a running node's state, gateway, URL and since; a dead one's last state")
    func runningAndDead() throws {
        try Self.withHome { home in
            try Self.write(home, pid: getpid(), state: "connected")
            let running = try ClawpairBinary.run(["node", "status"], environment: ["CLAWPAIR_HOME": home, "HOME": home],
                                                 nowMs: 1_700_000_060_000)
            #expect(running.status == 0, "\(running)")
            #expect(running.stdout.hasPrefix("Node running (pid \(getpid())): connected to lab via ws://10.0.0.1:18789 since"),
                    "\(running)")
            // A pid that cannot exist.
            try Self.write(home, pid: 2_147_483_000, state: "disconnected")
            let dead = try ClawpairBinary.run(["node", "status", "--json"], environment: ["CLAWPAIR_HOME": home, "HOME": home])
            #expect(dead.status == 3, "\(dead)")
            #expect(dead.stdout.contains("\"state\": \"disconnected\""), "\(dead)")
        }
    }
}
