import ClawpairBrowse
import Testing

/// `import ClawpairBrowse` alone (nothing else in this file) names the types its API returns and
/// throws: the beacon and its endpoint (ClawpairDiscovery), the backends' errors, JSON.
@Suite struct BrowseProductTests {
    @Test("a browse's results and typed errors are nameable from ClawpairBrowse alone")
    func namesWhatBrowseReturns() {
        let beacon: GatewayBeacon = GatewayBeacon(instanceName: "Studio", host: "studio.local", port: 18789, txt: TXTRecord())
        let endpoint: BeaconEndpoint? = beacon.endpoint
        let json: JSONValue = beacon.json
        #expect(endpoint?.url == "ws://studio.local:18789" && json["instanceName"]?.stringValue == "Studio")
        let failures: [BrowseError] = [.avahi(AvahiError.daemonNotRunning), .native(MDNSError.noInterfaces)]
        #expect(failures.map(\.code) == [AvahiError.daemonNotRunning.code, MDNSError.noInterfaces.code])
        let sorted: (Error) -> BrowseError = { BrowseError($0) }
        if case .avahi(.daemonNotRunning) = sorted(AvahiError.daemonNotRunning) {} else { Issue.record("AvahiError is not sorted into .avahi") }
    }
}
