import CAvahiClient
import ClawpairTestSupport
import Testing

/// Avahi's client library, linked (the product loads the same library with dlopen, through
/// CAvahiClientShims): what ClawpairAvahi relies on, checked against the library itself.
@Suite("libavahi-client with avahi-daemon", .serialized, .networkLab)
struct AvahiClientTests {
    @Test("avahi_client_new reaches the lab's avahi-daemon: running, with its host name")
    func connects() async throws {
        try await withNetworkLab { lab in
            let (_, _, bus, avahi) = try await lab.startAvahiLink()
            try await bus.withSystemBusEnvironment {
                let loop = try #require(avahi_simple_poll_new())
                defer { avahi_simple_poll_free(loop) }
                var error: Int32 = 0
                let client = try #require(avahi_client_new(avahi_simple_poll_get(loop), AvahiClientFlags(0), nil, nil, &error),
                                          "avahi_client_new: \(String(cString: avahi_strerror(error)))")
                defer { avahi_client_free(client) }
                #expect(avahi_client_get_state(client) == AVAHI_CLIENT_S_RUNNING)
                #expect(avahi_client_get_host_name_fqdn(client).map { String(cString: $0) } == avahi.hostName)
            }
        }
    }

    /// ClawpairAvahi maps this code to AvahiError.daemonNotRunning, on which discover falls back
    /// to its own querier: the library reports a missing bus and a bus without the daemon alike.
    @Test("no bus, or a bus without avahi-daemon: AVAHI_ERR_NO_DAEMON")
    func noDaemon() async throws {
        func connect() -> Int32 {
            guard let loop = avahi_simple_poll_new() else { return Int32.min }
            defer { avahi_simple_poll_free(loop) }
            var error: Int32 = 0
            if let client = avahi_client_new(avahi_simple_poll_get(loop), AvahiClientFlags(0), nil, nil, &error) {
                avahi_client_free(client)
            }
            return error
        }
        let missing = "/tmp/clawpair-no-such-bus-\(UInt64.random(in: 0 ... .max)).sock"
        let withoutBus = try await ProcessEnvironment.withSystemBus(socketPath: missing) { connect() }
        #expect(withoutBus == Int32(AVAHI_ERR_NO_DAEMON))
        try await withNetworkLab { lab in
            let bus = try await lab.startDBus(in: try await lab.addHost("A"))
            let withoutDaemon = try await bus.withSystemBusEnvironment { connect() }
            #expect(withoutDaemon == Int32(AVAHI_ERR_NO_DAEMON))
        }
    }
}
