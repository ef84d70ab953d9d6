// hello-ok (`identity-and-handshake.md` §7): the payload of a successful `connect` response.
// Only what the toolkit uses is modelled; the raw payload is kept for `--json` and for fields a
// newer gateway adds.

import ClawpairCore

/// A device token the gateway issued (and the registry keeps) for one role.
public struct IssuedDeviceToken: Sendable, Equatable {
    /// The token (a secret: never print or log it).
    public var token: String
    /// The role (`operator` or `node`).
    public var role: String
    /// The scopes the token grants.
    public var scopes: [String]
    /// When it was issued, in ms since the epoch.
    public var issuedAtMs: Int64?

    /// A token with these members.
    public init(token: String, role: String, scopes: [String], issuedAtMs: Int64?) {
        self.token = token
        self.role = role
        self.scopes = scopes
        self.issuedAtMs = issuedAtMs
    }
}

/// The parsed hello-ok payload.
public struct HelloOK: Sendable, Equatable {
    /// Defaults the protocol documents for absent policy fields.
    public static let defaultMaxPayload = 25 * 1024 * 1024
    /// The tick interval when the policy names none: 15 s.
    public static let defaultTickIntervalMs: Int64 = 15_000
    /// The tick intervals the watchdog accepts: a gateway's `policy.tickIntervalMs` is clamped
    /// into this range before it reaches a clock (upstream ticks every 30 s,
    /// `src/gateway/server-constants.ts` TICK_INTERVAL_MS). Below 100 ms the watchdog would
    /// fire on scheduling noise; above 10 minutes it would never fire.
    public static let tickIntervalRange: ClosedRange<Int64> = 100...600_000
    /// The payload limits accepted from `policy.maxPayload` and `policy.maxBufferedBytes`
    /// (clamped into this range; the client's own ceiling applies on top).
    public static let payloadLimitRange: ClosedRange<Int64> = 1...(Int64(Int32.max))

    /// The protocol version the gateway chose.
    public var protocolVersion: Int64
    /// The gateway's version, when it says.
    public var serverVersion: String?
    /// The gateway's id for this connection.
    public var connectionId: String?
    /// The RPC methods the gateway offers this connection.
    public var methods: [String]
    /// The events the gateway may send this connection.
    public var events: [String]
    /// The role and scopes this connection was granted.
    public var role: String?
    /// The scopes (such as `operator.read`).
    public var scopes: [String]
    /// `auth.deviceToken`: the token for (this device, `role`).
    public var deviceToken: IssuedDeviceToken?
    /// `auth.deviceTokens`: extra bootstrap hand-off tokens (for example an operator token issued
    /// next to a node token).
    public var handoffTokens: [IssuedDeviceToken]
    /// The largest frame the gateway accepts, in bytes (clamped to ``payloadLimitRange``).
    public var maxPayload: Int
    /// How much the gateway buffers for this connection, in bytes, when it says.
    public var maxBufferedBytes: Int?
    /// How often the gateway sends `tick`, in ms (clamped to ``tickIntervalRange``).
    public var tickIntervalMs: Int64
    /// The payload as received.
    public var raw: JSONValue

    /// Whether the gateway offers `method`: listed in `features.methods`, or that list is empty
    /// (a gateway that lists nothing is not judged by it). Upstream does not list every method
    /// (`device.pair.setupCode`/`setupStatus` are callable but unlisted: ``GatewayMethodSupport/unlisted``).
    public func offers(_ method: String) -> Bool {
        methods.isEmpty || methods.contains(method) || GatewayMethodSupport.unlisted.contains(method)
    }

    /// Parses a hello-ok payload; nil when it is not one (`type` is not `hello-ok` or
    /// `protocol` is missing).
    public init?(_ payload: JSONValue) {
        guard case .object = payload, payload["type"]?.stringValue == "hello-ok",
              let version = payload["protocol"]?.int64Value else { return nil }
        protocolVersion = version
        serverVersion = payload["server"]?["version"]?.stringValue
        connectionId = payload["server"]?["connId"]?.stringValue
        methods = Self.strings(payload["features"]?["methods"])
        events = Self.strings(payload["features"]?["events"])
        let auth = payload["auth"]
        role = auth?["role"]?.stringValue
        scopes = Self.strings(auth?["scopes"])
        if let token = auth?["deviceToken"]?.stringValue, !token.isEmpty, let role {
            deviceToken = IssuedDeviceToken(token: token, role: role, scopes: scopes, issuedAtMs: auth?["issuedAtMs"]?.int64Value)
        } else {
            deviceToken = nil
        }
        handoffTokens = (auth?["deviceTokens"]?.arrayValue ?? []).compactMap { entry in
            guard let token = entry["deviceToken"]?.stringValue, !token.isEmpty,
                  let role = entry["role"]?.stringValue else { return nil }
            return IssuedDeviceToken(token: token, role: role, scopes: Self.strings(entry["scopes"]),
                                     issuedAtMs: entry["issuedAtMs"]?.int64Value)
        }
        // Every number here is the peer's: non-positive values mean "absent", the rest are
        // clamped into sane ranges before they size a buffer or arm a timer.
        let policy = payload["policy"]
        if let max = policy?["maxPayload"]?.int64Value, max > 0 {
            maxPayload = Int(max.clamped(to: Self.payloadLimitRange))
        } else {
            maxPayload = Self.defaultMaxPayload
        }
        maxBufferedBytes = policy?["maxBufferedBytes"]?.int64Value.flatMap { $0 > 0 ? Int($0.clamped(to: Self.payloadLimitRange)) : nil }
        if let tick = policy?["tickIntervalMs"]?.int64Value, tick > 0 {
            tickIntervalMs = tick.clamped(to: Self.tickIntervalRange)
        } else {
            tickIntervalMs = Self.defaultTickIntervalMs
        }
        raw = payload
    }

    /// Parses a connect response's payload and checks that the gateway chose a protocol inside
    /// the range the client asked for (`requested`, ConnectParams' minProtocol…maxProtocol).
    public static func accepting(_ payload: JSONValue, requested: ClosedRange<Int64>) -> Result<HelloOK, GatewayError> {
        guard let hello = HelloOK(payload) else { return .failure(.protocolViolation("the connect response is not hello-ok")) }
        guard requested.contains(hello.protocolVersion) else {
            return .failure(.protocolViolation("the gateway chose protocol \(hello.protocolVersion), outside the requested "
                + "\(requested.lowerBound)–\(requested.upperBound)"))
        }
        if let problem = hello.grantProblem { return .failure(.protocolViolation(problem)) }
        return .success(hello)
    }

    /// The longest device token accepted from a gateway (upstream's are 43 characters: 32
    /// random bytes in base64url, `src/infra/pairing-token.ts`); a larger one would be written to
    /// the registry only to make the record too large to read back (issue #25.6).
    public static let maxDeviceTokenBytes = 1024
    /// The most hand-off tokens accepted in one hello-ok (one per role).
    public static let maxHandoffTokens = 8

    /// Why the role, scopes and tokens this hello-ok grants cannot be accepted, or nil: a role
    /// or scope name that is not a plain name (``GatewayNames/isValid(_:)``: no controls, at
    /// most 64 characters; issue #25.4), more than ``GatewayNames/maxScopes`` scopes, a device
    /// token longer than ``maxDeviceTokenBytes`` or with characters outside printable ASCII, or
    /// more than ``maxHandoffTokens`` hand-off tokens.
    public var grantProblem: String? {
        if let role, !GatewayNames.isValid(role) { return "the gateway granted a role whose name is not a plain name" }
        if GatewayNames.firstInvalid(scopes) != nil { return "the gateway granted a scope whose name is not a plain name" }
        if handoffTokens.count > Self.maxHandoffTokens {
            return "the gateway issued \(handoffTokens.count) hand-off tokens, more than \(Self.maxHandoffTokens)"
        }
        for token in (deviceToken.map { [$0] } ?? []) + handoffTokens {
            if !GatewayNames.isValid(token.role) || GatewayNames.firstInvalid(token.scopes) != nil {
                return "the gateway issued a token whose role or scope names are not plain names"
            }
            if token.token.utf8.count > Self.maxDeviceTokenBytes {
                return "the gateway issued a device token of \(token.token.utf8.count) bytes, more than \(Self.maxDeviceTokenBytes)"
            }
            if !token.token.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) {
                return "the gateway issued a device token with characters that are not printable ASCII"
            }
        }
        return nil
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        (value?.arrayValue ?? []).compactMap(\.stringValue)
    }
}

extension Comparable {
    /// This value moved into `range`.
    func clamped(to range: ClosedRange<Self>) -> Self {
        min(max(self, range.lowerBound), range.upperBound)
    }
}
