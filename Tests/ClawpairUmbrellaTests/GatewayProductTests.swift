import ClawpairGateway
import Testing

/// `import ClawpairGateway` alone (nothing else in this file) names the types its API takes and
/// returns: the identity, setup codes, probe routes, JSON.
@Suite struct GatewayProductTests {
    @Test("a connection's inputs are nameable from ClawpairGateway alone")
    func namesWhatGatewayTakes() throws {
        let identity: DeviceIdentity = try DeviceIdentity.generate(createdAtMs: 1)
        let store: IdentityStore = IdentityStore(directory: "/nonexistent")
        let route = ProbeRoute(host: "gw.example", port: 443, tls: true, input: "gw.example", source: .hostPort, pin: String(repeating: "a", count: 64))
        let endpoint = GatewayEndpoint(route: route)
        let setup: Result<DecodedSetup, SetupCodeError> = Result { () throws(SetupCodeError) in try SetupCode.parse("not a code") }
        #expect(endpoint.pin == route.pin && !identity.deviceId.isEmpty && store.identityPath.hasSuffix("/device.json"))
        #expect((try? setup.get()) == nil)
        let value: JSONValue = .string("x")
        #expect(value.stringValue == "x")
    }
}
