import ClawpairConfig
import ClawpairCore
import ClawpairIdentity
import ClawpairSetupCode
import ClawpairTestSupport
import Testing
@testable import ClawpairGateway

/// Printing a value that holds a token or a secret (directly, or inside options, records and
/// credentials) never shows it: `String(describing:)`, `String(reflecting:)`, interpolation and `dump`.
@Suite struct SecretDescriptionTests {
    static let secret = "s3cr3t-t0ken-value-XYZ"

    /// Every way of printing `value`.
    static func printed(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped]
    }

    static func expectRedacted(_ value: Any, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in printed(value) {
            #expect(!text.contains(secret), "\(name) printed its secret: \(text)", sourceLocation: sourceLocation)
            #expect(text.contains("redacted"), "\(name) does not say a secret was there: \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("ConnectAuth, and the session options that hold it, print every credential redacted")
    func connectAuthAndSessionOptions() {
        for auth in [ConnectAuth(token: Self.secret), ConnectAuth(deviceToken: Self.secret), ConnectAuth(bootstrapToken: Self.secret),
                     ConnectAuth(password: Self.secret)] {
            Self.expectRedacted(auth, "ConnectAuth")
            Self.expectRedacted(GatewaySessionOptions(role: .operator, credential: auth), "GatewaySessionOptions")
            Self.expectRedacted(OperatorCredential(auth: auth, source: .explicitToken), "OperatorCredential")
        }
        // The length is said, so an empty token can be told from a real one.
        #expect(String(describing: ConnectAuth(token: "abc")).contains("<redacted, 3 chars>"))
        #expect(!String(describing: ConnectAuth()).contains("redacted"))
    }

    @Test("tokens in records, hello-ok answers, rotations and the device token cache are redacted")
    func storedTokens() {
        let token = StoredDeviceToken(token: Self.secret, role: "node", scopes: [], issuedAtMs: 1)
        Self.expectRedacted(token, "StoredDeviceToken")
        Self.expectRedacted(PairedGateway(name: "lab", urls: ["ws://127.0.0.1:1"], deviceId: "d", tokens: [token], pairedAtMs: 0),
                            "PairedGateway")
        Self.expectRedacted(DeviceTokenCache.Entry(token: Self.secret, role: "operator", scopes: [], updatedAtMs: 0), "DeviceTokenCache.Entry")
        Self.expectRedacted(ConnectPayload(deviceId: "d", clientId: "c", clientMode: "m", role: "node", scopes: [], signedAtMs: 0,
                                           token: Self.secret, nonce: "n"), "ConnectPayload")
        Self.expectRedacted(OperatorSecret.token(Self.secret), "OperatorSecret.token")
        Self.expectRedacted(OperatorSecret.password(Self.secret), "OperatorSecret.password")
        Self.expectRedacted(ConfiguredGatewayAuth.token(Self.secret), "ConfiguredGatewayAuth")
    }

    @Test("setup code payloads and decoded codes print their bootstrap token, token and password redacted")
    func setupCodes() throws {
        let payload = SetupCodePayload(url: "ws://127.0.0.1:18789", bootstrapToken: Self.secret)
        Self.expectRedacted(payload, "SetupCodePayload")
        Self.expectRedacted(SetupCodePayload(url: "ws://127.0.0.1:18789", password: Self.secret), "SetupCodePayload.password")
        // Raw JSON input (form #1): the decoded value holds the token twice (field and payload).
        let decoded = try SetupCode.parse(#"{"url":"ws://127.0.0.1:18789","bootstrapToken":"\#(Self.secret)"}"#)
        #expect(decoded.bootstrapToken == Self.secret)
        Self.expectRedacted(decoded, "DecodedSetup")
    }

    @Test("a device identity's mirror has no secret key")
    func identity() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        var dumped = ""
        dump(identity, to: &dumped)
        #expect(!dumped.contains("secretKey"))
        #expect(dumped.contains(identity.deviceId))
    }
}
