// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
// clawpair: find OpenClaw gateways and pair devices with them, on Linux.
//
// Layering: dependencies point down. Each target below names every target it depends on
// ("uses"), and each one it uses is listed below it (PackageLayeringTests checks both against
// the target declarations). Each library product re-exports (`@_exported import`, in its Exports.swift) the
// libraries whose types its public API names, so a program imports only the products it added.
//   Clawpair             the umbrella product: `import Clawpair` re-exports every library below except ClawpairCLIKit
//                        uses ClawpairCore, ClawpairSetupCode, ClawpairIdentity, ClawpairQR, ClawpairDNS,
//                        ClawpairDiscovery, ClawpairAvahi, ClawpairMDNS, ClawpairWideArea, ClawpairBrowse, ClawpairConfig,
//                        ClawpairWebSocket, ClawpairTransport, ClawpairProbe, ClawpairGateway, ClawpairAdvertise,
//                        ClawpairNode
//   clawpair             the executable: argument parsing + output only
//                        uses ClawpairCore, ClawpairSetupCode, ClawpairCLIKit, ClawpairIdentity, ClawpairQR,
//                        ClawpairDNS, ClawpairDiscovery, ClawpairProbe, ClawpairAvahi, ClawpairMDNS,
//                        ClawpairWideArea, ClawpairConfig, ClawpairGateway, ClawpairBrowse, ClawpairAdvertise,
//                        ClawpairTransport, ClawpairNode, CProcessShims
//   ClawpairNode         a Linux machine as an OpenClaw node: the invoke pipeline (bounded, idempotent, budgets,
//                        cancel), built-in commands (device.info/status, system.notify/which), presence and host
//                        stats over an abstract connection; sd_notify, the journal and desktop notifications;
//                        relocation of a moved gateway by identity through
//                        discovery (also for gateways check)
//                        uses ClawpairCore, ClawpairSetupCode, ClawpairIdentity, ClawpairGateway, ClawpairBrowse,
//                        CSystemdShims
//   ClawpairBrowse       GatewayBrowser: mDNS (Avahi or native) and wide-area DNS-SD side by side, merged into
//                        one entry per gateway; scan, first answer, added/updated/removed events
//                        uses ClawpairCore, ClawpairDNS, ClawpairDiscovery, ClawpairAvahi, ClawpairMDNS,
//                        ClawpairConfig, ClawpairWideArea
//   ClawpairAdvertise    advertising a gateway: settings from OpenClaw's config, health-gated registration,
//                        name conflicts and alternative names, reload on SIGHUP, events as JSON
//                        uses ClawpairCore, ClawpairConfig, ClawpairDiscovery, ClawpairAvahi, ClawpairProbe
//   ClawpairGateway      gateway RPC client: frames, signed connect, devices/nodes RPCs, pairing, the
//                        paired-gateways registry (ClawpairProbe only to race routes)
//                        uses ClawpairCore, ClawpairDNS, ClawpairTransport, ClawpairWebSocket, ClawpairIdentity,
//                        ClawpairProbe, ClawpairSetupCode, ClawpairConfig
//   ClawpairProbe        race gateway routes: TCP → TLS (pinning) → WebSocket → connect.challenge; the report's JSON
//                        uses ClawpairCore, ClawpairTransport, ClawpairWebSocket, ClawpairSetupCode
//   ClawpairTransport    event loop and sockets (on ClawpairCore's clock and poll helper), Happy Eyeballs, TLS on
//                        OpenSSL; `.local` names through ClawpairMDNS's querier
//                        uses ClawpairCore, COpenSSLShims, ClawpairMDNS
//   ClawpairWebSocket    RFC 6455 handshake and frame codec (value-type state machines, no I/O)
//                        uses ClawpairCore
//   ClawpairQR           QR render (libqrencode → terminal, PNG, SVG) and scan (zbar, dlopen'ed; PNG/JPEG/PNM input)
//                        uses ClawpairCore, CQRencode, CPNG, CJPEG, CImageShims
//   ClawpairIdentity     Ed25519 device identities (libsodium), connect signatures and batches, key files, the store;
//                        OpenClaw's SQLite state store, read-only (libsqlite3)
//                        uses ClawpairCore, CSodium, CSQLite
//   ClawpairDiscovery    beacons: TXT rules, display names, endpoint selection, wide-area zones
//                        uses ClawpairCore, ClawpairDNS, ClawpairSetupCode
//   ClawpairAvahi        browse/resolve and publish (entry groups) through avahi-daemon with libavahi-client
//                        (CAvahiClientShims)
//                        uses ClawpairCore, CAvahiClientShims
//   ClawpairMDNS         built-in one-shot mDNS querier: record cache + browse state machine + sockets
//                        uses ClawpairCore, ClawpairDNS
//   ClawpairWideArea     unicast DNS-SD browse (resolv.conf, UDP with TCP fallback), the tailnet fallback
//                        uses ClawpairCore, ClawpairConfig, ClawpairDNS
//   ClawpairConfig       OpenClaw's openclaw.json: bounded JSON5 reader, config path, credentials
//                        uses ClawpairCore
//   ClawpairDNS          bounded DNS message codec (RFC 1035 + mDNS bits)
//                        uses ClawpairCore
//   ClawpairSetupCode    setup codes, URL normalization, gateway addresses (URL, host[:port], code),
//                        plaintext policy, access profiles
//                        uses ClawpairCore
//   ClawpairCLIKit       declarative CLI: tokenize → match → validate → run; help, man, completions, exit statuses;
//                        secret input, spinner, record tables, key input (job control through CProcessShims);
//                        the executable's, not a product
//                        uses ClawpairCore, CProcessShims
//   ClawpairCore         errors (message, hint), base64url, JSON, terminal sanitizing, redaction, files and line
//                        input; the one injectable monotonic clock and the one poll helper (every poll loop,
//                        libavahi-client's too)
//                        uses nothing
// C targets, below every library:
//   C<Lib>               system-library shims found through pkg-config (one per C library)
//   CLazyLibrary         dlopen on first use, into a table of typed function pointers (for the shims below)
//   COpenSSLShims        OpenSSL loaded with dlopen when TLS is first used; forwarders for its macros
//   CAvahiClientShims    libavahi-client (+ libavahi-common) loaded with dlopen on first use: linked,
//                        its libdbus/libsystemd/libgcrypt chain costs every command ~0.7 ms
//   CSystemdShims        libsystemd loaded with dlopen on first use (sd_notify, the journal, one sd-bus call to
//                        the desktop's notification service): only `clawpair node` needs it
//   CProcessShims        core dumps off for the process (RLIMIT_CORE 0, prctl PR_SET_DUMPABLE 0); the terminal
//                        put back on Ctrl-Z (SIGTSTP) and key mode again on SIGCONT
//   CImageShims          libjpeg reads and libpng row writes inside setjmp (fatal errors return, never exit);
//                        zbar loaded on first use
// Test helpers are no layers: ClawpairTestSupport (uses ClawpairCore, CTestShims) and ClawpairGatewayTestSupport
// (a test target, uses ClawpairGateway through @testable, and ClawpairTestSupport) serve the test targets only.
import PackageDescription

/// A `.systemLibrary` target for one Debian `-dev` package, found through pkg-config.
func systemLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "clawpair",
    products: [
        .executable(name: "clawpair", targets: ["clawpair"]),
        .library(name: "Clawpair", targets: ["Clawpair"]),
        .library(name: "ClawpairCore", targets: ["ClawpairCore"]),
        .library(name: "ClawpairSetupCode", targets: ["ClawpairSetupCode"]),
        .library(name: "ClawpairIdentity", targets: ["ClawpairIdentity"]),
        .library(name: "ClawpairQR", targets: ["ClawpairQR"]),
        .library(name: "ClawpairDNS", targets: ["ClawpairDNS"]),
        .library(name: "ClawpairDiscovery", targets: ["ClawpairDiscovery"]),
        .library(name: "ClawpairAvahi", targets: ["ClawpairAvahi"]),
        .library(name: "ClawpairMDNS", targets: ["ClawpairMDNS"]),
        .library(name: "ClawpairWideArea", targets: ["ClawpairWideArea"]),
        .library(name: "ClawpairBrowse", targets: ["ClawpairBrowse"]),
        .library(name: "ClawpairConfig", targets: ["ClawpairConfig"]),
        .library(name: "ClawpairWebSocket", targets: ["ClawpairWebSocket"]),
        .library(name: "ClawpairTransport", targets: ["ClawpairTransport"]),
        .library(name: "ClawpairProbe", targets: ["ClawpairProbe"]),
        .library(name: "ClawpairGateway", targets: ["ClawpairGateway"]),
        .library(name: "ClawpairAdvertise", targets: ["ClawpairAdvertise"]),
        .library(name: "ClawpairNode", targets: ["ClawpairNode"]),
    ],
    targets: [
        // C libraries.
        systemLibrary("CAvahiClient", pkgConfig: "avahi-client", apt: ["libavahi-client-dev"]),
        systemLibrary("CQRencode", pkgConfig: "libqrencode", apt: ["libqrencode-dev"]),
        systemLibrary("CSodium", pkgConfig: "libsodium", apt: ["libsodium-dev"]),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: ["libsqlite3-dev"]),
        systemLibrary("COpenSSL", pkgConfig: "openssl", apt: ["libssl-dev"]),
        systemLibrary("CZBar", pkgConfig: "zbar", apt: ["libzbar-dev"]),
        systemLibrary("CPNG", pkgConfig: "libpng", apt: ["libpng-dev"]),
        systemLibrary("CJPEG", pkgConfig: "libjpeg", apt: ["libjpeg-dev"]),
        systemLibrary("CSystemd", pkgConfig: "libsystemd", apt: ["libsystemd-dev"]),
        .target(name: "CLazyLibrary", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "COpenSSLShims", dependencies: ["CLazyLibrary"]),
        .target(name: "CAvahiClientShims", dependencies: ["CLazyLibrary"]),
        .target(name: "CImageShims", dependencies: ["CJPEG", "CPNG", "CLazyLibrary"]),
        .target(name: "CProcessShims"),
        .target(name: "CSystemdShims", dependencies: ["CLazyLibrary"]),

        // Libraries (public API for Linux nodes).
        .target(name: "ClawpairCore"),
        .target(name: "ClawpairSetupCode", dependencies: ["ClawpairCore"]),
        .target(name: "ClawpairCLIKit", dependencies: ["ClawpairCore", "CProcessShims"]),
        .target(name: "ClawpairIdentity", dependencies: ["ClawpairCore", "CSodium", "CSQLite"]),
        .target(name: "ClawpairQR", dependencies: ["ClawpairCore", "CQRencode", "CPNG", "CJPEG", "CImageShims"]),
        .target(name: "ClawpairDNS", dependencies: ["ClawpairCore"]),
        .target(name: "ClawpairDiscovery", dependencies: ["ClawpairCore", "ClawpairDNS", "ClawpairSetupCode"]),
        .target(name: "ClawpairAvahi", dependencies: ["ClawpairCore", "CAvahiClientShims"]),
        .target(name: "ClawpairMDNS", dependencies: ["ClawpairCore", "ClawpairDNS"]),
        .target(name: "ClawpairConfig", dependencies: ["ClawpairCore"]),
        .target(name: "ClawpairWideArea", dependencies: ["ClawpairCore", "ClawpairConfig", "ClawpairDNS"]),
        .target(name: "ClawpairBrowse", dependencies: ["ClawpairCore", "ClawpairDNS", "ClawpairDiscovery", "ClawpairAvahi",
                                                       "ClawpairMDNS", "ClawpairConfig", "ClawpairWideArea"]),
        .target(name: "ClawpairWebSocket", dependencies: ["ClawpairCore"]),
        .target(name: "ClawpairTransport", dependencies: ["ClawpairCore", "COpenSSLShims", "ClawpairMDNS"]),
        .target(name: "ClawpairProbe", dependencies: ["ClawpairCore", "ClawpairTransport", "ClawpairWebSocket",
                                                      "ClawpairSetupCode"]),
        .target(name: "ClawpairGateway", dependencies: ["ClawpairCore", "ClawpairDNS", "ClawpairTransport", "ClawpairWebSocket",
                                                        "ClawpairIdentity", "ClawpairProbe", "ClawpairSetupCode", "ClawpairConfig"]),

        // Advertising a gateway: the OpenClaw config's beacon, health-gated registration with avahi-daemon.
        .target(name: "ClawpairAdvertise", dependencies: ["ClawpairCore", "ClawpairConfig", "ClawpairDiscovery", "ClawpairAvahi",
                                                          "ClawpairProbe"]),
        // The umbrella: `import Clawpair` for everything a program needs.
        .target(name: "Clawpair", dependencies: ["ClawpairCore", "ClawpairSetupCode", "ClawpairIdentity", "ClawpairQR", "ClawpairDNS",
                                                 "ClawpairDiscovery", "ClawpairAvahi", "ClawpairMDNS", "ClawpairWideArea",
                                                 "ClawpairBrowse", "ClawpairConfig", "ClawpairWebSocket", "ClawpairTransport",
                                                 "ClawpairProbe", "ClawpairGateway", "ClawpairAdvertise", "ClawpairNode"]),
        // A Linux machine as an OpenClaw node.
        .target(name: "ClawpairNode", dependencies: ["ClawpairCore", "ClawpairSetupCode", "ClawpairIdentity", "ClawpairGateway",
                                                     "ClawpairBrowse", "CSystemdShims"]),
        // The command-line tool: parses arguments, calls the libraries, formats output.
        // Release builds link the Swift runtime statically (`make build`: --static-swift-stdlib).
        .executableTarget(
            name: "clawpair",
            dependencies: ["ClawpairCore", "ClawpairSetupCode", "ClawpairCLIKit", "ClawpairIdentity", "ClawpairQR",
                           "ClawpairDNS", "ClawpairDiscovery", "ClawpairProbe", "ClawpairAvahi", "ClawpairMDNS",
                           "ClawpairWideArea", "ClawpairConfig", "ClawpairGateway", "ClawpairBrowse", "ClawpairAdvertise",
                           "ClawpairTransport", "ClawpairNode", "CProcessShims"]
        ),

        // Examples: small programs using the libraries (docs/library.md), built by a plain `swift build`.
        .executableTarget(name: "ListGateways", dependencies: ["ClawpairBrowse", "ClawpairCore"], path: "Examples/ListGateways"),
        .executableTarget(name: "NodeDaemon", dependencies: ["ClawpairBrowse", "ClawpairCore", "ClawpairGateway", "ClawpairIdentity",
                                                             "ClawpairSetupCode"],
                          path: "Examples/NodeDaemon"),
        .executableTarget(name: "LinuxNode", dependencies: ["ClawpairCore", "ClawpairGateway", "ClawpairIdentity", "ClawpairNode"],
                          path: "Examples/LinuxNode"),
        .executableTarget(name: "PairFromCode", dependencies: ["ClawpairCore", "ClawpairGateway", "ClawpairIdentity", "ClawpairSetupCode"],
                          path: "Examples/PairFromCode"),

        // Tests.
        // Two of these change one registry at once in GatewayRegistryRaceTests.
        .executableTarget(name: "registry-race", dependencies: ["ClawpairGateway"], path: "Tests/RegistryRace"),
        // bench/stop-to-return's measuring program (not a test: it prints figures).
        .executableTarget(name: "stop-to-return", dependencies: ["ClawpairBrowse", "ClawpairCore", "ClawpairGateway", "ClawpairIdentity",
                                                                 "ClawpairSetupCode"],
                          path: "bench/StopToReturn"),
        .target(name: "ClawpairTestSupport", dependencies: ["ClawpairCore", "CTestShims"], path: "Tests/ClawpairTestSupport"),
        .target(name: "CTestShims", path: "Tests/CTestShims"),
        // Test doubles on GatewaySession's internal connector seam, for the gateway's and the node's tests: a test
        // target (no tests of its own), so it is built with the tests only and may use `@testable import`.
        .testTarget(name: "ClawpairGatewayTestSupport", dependencies: ["ClawpairGateway", "ClawpairTestSupport"],
                    path: "Tests/ClawpairGatewayTestSupport"),
        .testTarget(name: "ClawpairCoreTests", dependencies: ["ClawpairCore", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairSetupCodeTests", dependencies: ["ClawpairSetupCode", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairCLIKitTests", dependencies: ["ClawpairCLIKit"]),
        .testTarget(name: "ClawpairIdentityTests", dependencies: ["ClawpairIdentity", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairQRTests", dependencies: ["ClawpairQR", "ClawpairSetupCode", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairDNSTests", dependencies: ["ClawpairDNS", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairDiscoveryTests", dependencies: ["ClawpairDiscovery", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairAvahiTests", dependencies: ["ClawpairAvahi", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairMDNSTests", dependencies: ["ClawpairMDNS", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairWideAreaTests", dependencies: ["ClawpairWideArea", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairBrowseTests", dependencies: ["ClawpairBrowse", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairConfigTests", dependencies: ["ClawpairConfig", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairWebSocketTests", dependencies: ["ClawpairWebSocket", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairTransportTests", dependencies: ["ClawpairTransport", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairProbeTests", dependencies: ["ClawpairProbe", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairGatewayTests", dependencies: ["ClawpairGateway", "ClawpairTestSupport", "ClawpairGatewayTestSupport"]),
        .testTarget(name: "ClawpairAdvertiseTests", dependencies: ["ClawpairAdvertise", "ClawpairTestSupport"]),
        .testTarget(name: "ClawpairNodeTests", dependencies: ["ClawpairNode", "ClawpairGateway", "ClawpairIdentity", "ClawpairTestSupport",
                                                             "ClawpairGatewayTestSupport"]),
        .testTarget(
            name: "CLibraryTests",
            dependencies: ["CAvahiClient", "CQRencode", "ClawpairQR", "CSodium", "COpenSSL", "COpenSSLShims", "CZBar", "CPNG", "CJPEG",
                           "CSystemd", "ClawpairTestSupport"]
        ),
        .testTarget(name: "clawpairTests", dependencies: ["ClawpairTestSupport"]),
        // The products as a program sees them: each file imports one product only; plus the public API's rules.
        .testTarget(name: "ClawpairUmbrellaTests", dependencies: ["Clawpair", "ClawpairTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
