// ConnectParams (`identity-and-handshake.md` §5): who this client is, which role and scopes it
// asks for, how it authenticates, and the device block signed over the challenge (§6).
//
// The toolkit's client ids: `cli`/`cli` for operator commands, `node-host`/`node` when it pairs as a
// node. Never a mobile id (`openclaw-ios`, `openclaw-android`): those trigger the gateway's mobile
// auto-approval rules (§10).

import ClawpairCore
import ClawpairIdentity
import ClawpairProbe

/// `ConnectParams.client`.
public struct GatewayClientInfo: Sendable, Equatable {
    /// The client id (`openclaw-cli`, `node-host`, …).
    public var id: String
    /// The client's display name, if any.
    public var displayName: String?
    /// The client's version.
    public var version: String
    /// The client's platform.
    public var platform: String
    /// The client's device family, if any.
    public var deviceFamily: String?
    /// The client's hardware model identifier, if any.
    public var modelIdentifier: String?
    /// The client mode (`cli`, `node`, …).
    public var mode: String
    /// An id for this running instance of the client, if any.
    public var instanceId: String?

    /// The client block with these fields.
    public init(id: String, displayName: String? = nil, version: String, platform: String, deviceFamily: String? = nil,
                modelIdentifier: String? = nil, mode: String, instanceId: String? = nil) {
        self.id = id
        self.displayName = displayName
        self.version = version
        self.platform = platform
        self.deviceFamily = deviceFamily
        self.modelIdentifier = modelIdentifier
        self.mode = mode
        self.instanceId = instanceId
    }

    /// `client.platform` of every connect this machine makes: `linux`, what upstream's Linux
    /// node host and GatewayClient send (`src/shared/gateway-client-platform.ts`
    /// `resolveGatewayClientPlatformIdentity`). Gateways pin it on the paired-device record
    /// (`src/gateway/server/ws-connection/connect-device-metadata.ts` `resolvePinnedClientMetadata`
    /// compares it exactly, trimmed and lowercased), so it never carries a kernel release or
    /// anything else that changes under the user.
    public static let linuxPlatform = "linux"
    /// `client.deviceFamily` of every connect this machine makes: `Linux`, as upstream's.
    public static let linuxDeviceFamily = "Linux"

    /// The client of operator commands: id `cli`, mode `cli` (upstream's CLI pair in
    /// `packages/gateway-protocol/src/client-info.ts`; `openclaw-linux` is its native desktop UI,
    /// admitted as a trusted UI, which clawpair is not).
    public static func operatorCLI(version: String, platform: String = linuxPlatform, displayName: String? = nil) -> GatewayClientInfo {
        GatewayClientInfo(id: "cli", displayName: displayName, version: version, platform: platform, deviceFamily: linuxDeviceFamily, mode: "cli")
    }

    /// A node host: id `node-host`, mode `node`, as upstream's headless node host.
    public static func nodeHost(version: String, platform: String = linuxPlatform, displayName: String? = nil) -> GatewayClientInfo {
        GatewayClientInfo(id: "node-host", displayName: displayName, version: version, platform: platform, deviceFamily: linuxDeviceFamily, mode: "node")
    }

    var json: JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(id))]
        if let displayName { members.append(("displayName", .string(displayName))) }
        members.append(("version", .string(version)))
        members.append(("platform", .string(platform)))
        if let deviceFamily { members.append(("deviceFamily", .string(deviceFamily))) }
        if let modelIdentifier { members.append(("modelIdentifier", .string(modelIdentifier))) }
        members.append(("mode", .string(mode)))
        if let instanceId { members.append(("instanceId", .string(instanceId))) }
        return .object(members)
    }
}

/// The role a connection asks for.
public enum GatewayRole: String, Sendable, Equatable, CaseIterable {
    case `operator`
    case node
}

/// Everything a `connect` request says besides the signed device block.
public struct ConnectRequest: Sendable, Equatable {
    /// Protocol range: the toolkit speaks 3 through 4.
    public static let minProtocol: Int64 = 3
    /// The newest protocol version spoken.
    public static let maxProtocol: Int64 = 4
    /// The protocols a hello-ok may choose (``minProtocol`` through ``maxProtocol``).
    public static var protocolRange: ClosedRange<Int64> { minProtocol...maxProtocol }

    /// Scopes operator commands ask for: enough to list, approve and reject pairing requests and
    /// to mint setup codes (`device.pair.setupCode` needs admin).
    public static let operatorScopes = ["operator.admin", "operator.approvals", "operator.pairing"]

    /// Scopes an operator asks for when it redeems a bootstrap token on a gateway of unknown
    /// generation (`identity-and-handshake.md` §5.1). `operator.pairing` is not among them, and
    /// asking for it would fail the connect: upstream's bootstrap handoff never carries it
    /// (`BOOTSTRAP_HANDOFF_OPERATOR_SCOPES` in openclaw's `src/shared/device-bootstrap-profile.ts`;
    /// `setup-codes.md` §7).
    public static let bootstrapOperatorScopes = ["operator.approvals", "operator.read", "operator.talk.secrets", "operator.write"]

    /// Who connects (`ConnectParams.client`).
    public var client: GatewayClientInfo
    /// The role (`operator` or `node`).
    public var role: GatewayRole
    /// Sent trimmed and de-duplicated, and signed in exactly this order.
    public var scopes: [String]
    /// The capabilities declared.
    public var caps: [String]
    /// The commands to declare (a node's).
    public var commands: [String]
    /// Permissions to declare, in order: each name and whether it is granted.
    public var permissions: [(String, Bool)]
    /// The shared secret or device token to present.
    public var auth: ConnectAuth
    /// The locale to announce (e.g. `en-US`), if any.
    public var locale: String?
    /// The user agent to announce, if any.
    public var userAgent: String?
    /// Which signature payload to sign: v3 unless asked otherwise, the payload upstream calls
    /// preferred and its GatewayClient signs with the platform and family it sends
    /// (`docs/gateway/protocol/auth.md`, `packages/gateway-client/src/device-auth.ts`
    /// `buildDeviceAuthPayloadV3`); gateways verify v3, then v2. v4 is only for connects that
    /// assert a trusted broker profile, which clawpair's do not.
    public var payloadVersion: ConnectPayloadVersion
    /// The protocol versions offered (`minProtocol`…`maxProtocol`): every version spoken
    /// (``protocolRange``) unless a negotiation narrows it (``GatewayProtocolNegotiation``).
    public var protocolRange: ClosedRange<Int64> = ConnectRequest.protocolRange

    /// A request; `scopes` are trimmed and de-duplicated.
    public init(client: GatewayClientInfo, role: GatewayRole, scopes: [String], caps: [String] = [], commands: [String] = [],
                permissions: [(String, Bool)] = [], auth: ConnectAuth = ConnectAuth(), locale: String? = nil,
                userAgent: String? = nil, payloadVersion: ConnectPayloadVersion = .v3) {
        self.client = client
        self.role = role
        self.scopes = ConnectPayload.normalizeScopes(scopes)
        self.caps = caps
        self.commands = commands
        self.permissions = permissions
        self.auth = auth
        self.locale = locale
        self.userAgent = userAgent
        self.payloadVersion = payloadVersion
    }

    /// Equal when every member is.
    public static func == (lhs: ConnectRequest, rhs: ConnectRequest) -> Bool {
        lhs.client == rhs.client && lhs.role == rhs.role && lhs.scopes == rhs.scopes && lhs.caps == rhs.caps
            && lhs.commands == rhs.commands && lhs.permissions.map(\.0) == rhs.permissions.map(\.0)
            && lhs.permissions.map(\.1) == rhs.permissions.map(\.1) && lhs.auth == rhs.auth && lhs.locale == rhs.locale
            && lhs.userAgent == rhs.userAgent && lhs.payloadVersion == rhs.payloadVersion && lhs.protocolRange == rhs.protocolRange
    }

    /// The payload this request signs for `challenge`: `signedAt` is the challenge's `ts` when it
    /// has one (no clock skew), else `nowMs`.
    public func signaturePayload(deviceId: String, challenge: GatewayChallenge, nowMs: Int64) -> ConnectPayload {
        ConnectPayload(version: payloadVersion, deviceId: deviceId, clientId: client.id, clientMode: client.mode,
                       role: role.rawValue, scopes: scopes, signedAtMs: challenge.timestamp ?? nowMs,
                       token: auth.signedToken, nonce: challenge.nonce, platform: client.platform,
                       deviceFamily: client.deviceFamily)
    }

    /// ConnectParams with the device block signed by `identity` over `challenge`.
    public func params(identity: DeviceIdentity, challenge: GatewayChallenge, nowMs: Int64) throws(IdentityError) -> JSONValue {
        let signed = try identity.signConnect(signaturePayload(deviceId: identity.deviceId, challenge: challenge, nowMs: nowMs))
        return params(device: signed.deviceJSON)
    }

    /// ConnectParams around an already built device block (closed object: only known keys).
    public func params(device: JSONValue) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("minProtocol", .int(protocolRange.lowerBound)), ("maxProtocol", .int(protocolRange.upperBound)),
            ("client", client.json),
            ("role", .string(role.rawValue)), ("scopes", .array(scopes.map(JSONValue.string))),
        ]
        if role == .node {
            members.append(("caps", .array(caps.map(JSONValue.string))))
            members.append(("commands", .array(commands.map(JSONValue.string))))
            members.append(("permissions", .object(permissions.map { ($0.0, .bool($0.1)) })))
        } else if !caps.isEmpty {
            // Client caps of an operator (`packages/gateway-protocol/src/client-info.ts`: device-pairing-wait, …).
            members.append(("caps", .array(caps.map(JSONValue.string))))
        }
        if let auth = authJSON { members.append(("auth", auth)) }
        members.append(("device", device))
        if let locale { members.append(("locale", .string(locale))) }
        if let userAgent { members.append(("userAgent", .string(userAgent))) }
        return .object(members)
    }

    private var authJSON: JSONValue? {
        var members: [(String, JSONValue)] = []
        if let token = auth.token { members.append(("token", .string(token))) }
        if let deviceToken = auth.deviceToken { members.append(("deviceToken", .string(deviceToken))) }
        if let bootstrap = auth.bootstrapToken { members.append(("bootstrapToken", .string(bootstrap))) }
        if let password = auth.password { members.append(("password", .string(password))) }
        return members.isEmpty ? nil : .object(members)
    }
}
