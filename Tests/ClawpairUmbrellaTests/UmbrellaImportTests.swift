import Clawpair
import Testing

/// `import Clawpair` alone names what a program needs, and "discover, then connect" is not an
/// ambiguous-type error: the discovery side's endpoint and the gateway side's are two names.
@Suite struct UmbrellaImportTests {
    @Test("a beacon's endpoint and a gateway endpoint are distinct types, both nameable through the umbrella")
    func discoverThenConnect() throws {
        let beacon = GatewayBeacon(instanceName: "Studio", host: "studio.local.", port: 18789,
                                   txt: TXTRecord(pairs: [("gatewayTls", "1")]))
        let found: BeaconEndpoint = try #require(beacon.endpoint)
        let target = GatewayEndpoint(host: found.host, port: found.port, tls: found.tls)
        #expect(target.url == found.url && found.url == "wss://studio.local:18789")
        let route = ProbeCandidates.discovered(instance: beacon.instanceName, host: found.host, port: found.port,
                                                     tls: found.tls, addresses: [])
        #expect(route.pin == nil && GatewayEndpoint(route: route).pin == nil, "an advertised fingerprint never becomes a pin")
    }

    @Test("the umbrella reaches every library: a type from each")
    func everyLibrary() {
        let names = [
            String(describing: GatewayBrowser.self), String(describing: GatewayClientConfiguration.self),
            String(describing: DeviceIdentity.self), String(describing: IdentityStore.self),
            String(describing: DecodedSetup.self), String(describing: QRError.self), String(describing: DNSName.self),
            String(describing: AvahiError.self), String(describing: MDNSError.self), String(describing: WideAreaError.self),
            String(describing: JSONValue.self), String(describing: WebSocketCloseStatus.self),
            String(describing: TLSPinPolicy.self), String(describing: ProbeRoute.self), String(describing: BeaconAdvertisement.self),
            String(describing: ConfiguredGatewayAuth.self),
        ]
        #expect(Set(names).count == names.count)
    }
}
