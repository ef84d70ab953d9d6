import Foundation

// An authoritative DNS server for wide-area (unicast) DNS-SD tests: Knot DNS (packages knot,
// knot-dnsutils, installed by scripts/install-deps) in one lab namespace, serving one zone file
// from the lab directory. Nothing listens outside the lab.

/// A running knotd started by ``NetworkLab/startKnot(on:addresses:domain:zone:port:)``.
public struct KnotServer: Sendable {
    /// knotd itself.
    public let process: ChildProcess
    /// Its configuration file (for `knotc -c`).
    public let config: String
    /// The zone file it serves; rewrite it and run `knotc zone-reload` to change the zone.
    public let zonePath: String
    /// The host whose namespace it runs in.
    public let server: LabHost
    /// The zone's origin, with a trailing dot.
    public let domain: String

    /// Stops knotd (`knotc stop`, then SIGTERM if it lingers).
    public func stop() async throws {
        _ = try? await server.run(["knotc", "-c", config, "stop"])
        _ = await process.terminate(grace: .seconds(5))
    }
}

extension NetworkLab {
    /// Whether knotd is installed.
    public static var hasKnot: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/knotd") }

    /// Writes `zone` (the zone file text for `domain`) and a config into the lab and starts
    /// knotd on `addresses` (UDP and TCP, `port`) of `host`; returns once the zone is loaded.
    public func startKnot(on host: LabHost, addresses: [String], domain: String, zone: String,
                          port: Int = 53) async throws -> KnotServer {
        let origin = domain.hasSuffix(".") ? domain : domain + "."
        let base = "knot-\(host.label)"
        let directory = try makeDirectory(base)
        let zonePath = try writeFile("\(base)/\(origin)db", contents: zone)
        let listen = addresses.map { "\($0)@\(port)" }.joined(separator: ", ")
        let config = try writeFile("\(base)/knot.conf", contents: """
            server:
                rundir: "\(directory)"
                pidfile: "\(directory)/knot.pid"
                listen: [ \(listen) ]
            control:
                listen: "\(directory)/knot.sock"
            database:
                storage: "\(directory)"
            log:
              - target: stderr
                any: info
            zone:
              - domain: \(origin)
                storage: "\(directory)"
                file: "\(zonePath)"
                zonefile-sync: -1

            """)
        try await host.run(["knotc", "-c", config, "conf-check"]).requireSuccess()
        let process = try host.spawn(["knotd", "-c", config])
        let loaded = try await process.waitForLine(on: .stderr, timeout: .seconds(20), describing: "the zone loaded or failed") {
            $0.contains("loaded, serial") || $0.contains("error:")
        }
        guard loaded.contains("loaded, serial") else {
            throw HarnessError("knotd did not load the zone \(origin): \(loaded)\n\(process.stderr)")
        }
        return KnotServer(process: process, config: config, zonePath: zonePath, server: host, domain: origin)
    }
}
