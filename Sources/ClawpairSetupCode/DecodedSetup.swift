// The result model of the lenient decoder (`setup-codes.md` §3.2, "Resulting model").

import ClawpairCore

/// What `SetupCode.parse`/`decode` found in a setup input.
public struct DecodedSetup: Sendable, Equatable {
    /// Which input form matched (§3.1).
    public enum Form: String, Sendable, CaseIterable {
        /// #1: the text is a JSON object.
        case rawJSON = "raw-json"
        /// #2: a bare base64url code.
        case code
        /// #2 behind the `oc-pair://` prefix.
        case prefixedCode = "prefixed-code"
        /// #3: a code found inside pasted text.
        case embeddedCode = "embedded-code"
        /// #4: an `openclaw://gateway?…` (or `openclaw-debug://`) link.
        case deepLink = "deep-link"
        /// #5: a ws/wss/http/https URL.
        case rawURL = "raw-url"
    }

    /// The payload generation, inferred from the fields present (the payload has no version field).
    ///
    /// Inference, first match wins: a `host` payload (no `url`) → `hostShape`; `expiresAtMs` or
    /// `tlsFingerprint` present → `g4`; `urls` present → `g3`; `bootstrapToken` present → `g2`;
    /// otherwise (`token`/`password`, or `url` alone) → `g1`. A G4 code minted for a single route
    /// without expiry cannot be told from G2/G3; gateways always add `expiresAtMs` since G4.
    public enum Generation: String, Sendable, CaseIterable {
        /// `url`, `token?`, `password?` (shared gateway secret).
        case g1 = "G1"
        /// `url`, `bootstrapToken`.
        case g2 = "G2"
        /// `url`, `urls?`, `bootstrapToken`.
        case g3 = "G3"
        /// `url`, `urls?`, `bootstrapToken`, `expiresAtMs`, `tlsFingerprint?`.
        case g4 = "G4"
        /// `{host, port?, tls?, …}` (decoded by the Swift apps, never emitted by a gateway).
        case hostShape = "host-shape"
        /// An `openclaw://gateway` link.
        case deepLink = "deep-link"
        /// A bare gateway URL.
        case rawURL = "raw-url"
    }

    /// What access pairing with this input will probably give, as far as the input tells.
    public enum AccessHint: String, Sendable, CaseIterable {
        /// G3/G4 bootstrap token: full unless the gateway minted it limited (node only).
        case fullOrLimited = "full-or-limited"
        /// G4 with a plaintext non-loopback route: the gateway downgraded it to limited (§8).
        case limitedDowngraded = "limited-downgraded"
        /// G2 bootstrap token: limited ("operator.admin is not granted by QR").
        case limited
        /// A shared gateway token or password: operator access with the gateway's own secret.
        case sharedSecret = "shared-secret"
        /// No credentials (deep link without token, raw URL): pairing needs approval or a token.
        case noCredentials = "none"

        /// One sentence for humans.
        public var summary: String {
            switch self {
            // "At most": the code alone does not say its profile, and a node code grants less than limited.
            case .fullOrLimited: return "full, limited or node, chosen by the gateway when it minted the code"
            case .limitedDowngraded:
                return "at most limited: the gateway downgrades codes with a plaintext ws:// route that is not loopback"
            case .limited: return "at most limited (this gateway generation never hands out operator.admin by QR)"
            case .sharedSecret: return "operator access through the gateway's shared token or password"
            case .noCredentials: return "none: the input carries no credentials"
            }
        }
    }

    /// Whether the newest strict TS decoder (§3.3) would accept the input.
    public enum StrictCheck: Sendable, Equatable {
        /// It would accept it.
        case accepted
        /// It would refuse it, and why.
        case rejected(reason: String)

        /// Whether it would accept it.
        public var isAccepted: Bool { self == .accepted }
    }

    /// Which input form matched.
    public let form: Form
    /// The inferred payload generation.
    public let generation: Generation
    /// The primary endpoint (dial this first).
    public let primary: SetupEndpoint
    /// Fallback endpoints in order (at most `SetupCode.maxRoutes - 1`).
    public let fallbacks: [SetupEndpoint]
    /// Routes that were not kept, in input order.
    public let dropped: [DroppedRoute]
    /// The normalized certificate pin (64 lowercase hex). It applies to `primary` only.
    public let tlsFingerprint: String?
    /// Epoch ms when the bootstrap token expires.
    public let expiresAtMs: Int64?
    /// The one-time bootstrap token, exactly as given.
    public let bootstrapToken: String?
    /// A shared gateway token (G1, deep links), exactly as given.
    public let token: String?
    /// A shared gateway password (G1, deep links), exactly as given.
    public let password: String?
    /// The decoded payload object (forms #1–#3), members in input order.
    public let payload: JSONValue?
    /// What the newest strict TS decoder would say.
    public let strictCheck: StrictCheck
    /// What access pairing will probably give.
    public let accessHint: AccessHint
    /// Remarks worth showing (e.g. a pin that could not be applied); empty usually.
    public let notes: [String]

    /// All endpoints, primary first (1 to `SetupCode.maxRoutes`).
    public var endpoints: [SetupEndpoint] { [primary] + fallbacks }

    /// Whether the token has expired at `nowMs` (`expiresAtMs <= nowMs`); `false` without expiry.
    public func isExpired(nowMs: Int64) -> Bool {
        guard let expiresAtMs else { return false }
        return expiresAtMs <= nowMs
    }

    /// Throws ``SetupCodeError/expired(expiresAtMs:nowMs:)`` when the token has expired at
    /// `nowMs`: the gateway would refuse it.
    public func checkNotExpired(nowMs: Int64) throws(SetupCodeError) {
        if let failure = expiryFailure(nowMs: nowMs) { throw failure }
    }

    /// Whether the input carries a credential (bootstrap token, gateway token or password):
    /// then it is a secret, not to be passed where other users can see it.
    public var hasCredential: Bool { bootstrapToken != nil || token != nil || password != nil }

    /// The canonical bare setup code of the payload, what the OpenClaw apps scan from a QR code
    /// (`SetupCode.encode(json:)`); nil for a deep link or gateway URL, which carry no payload.
    public var canonicalCode: String? { payload.map(SetupCode.encode(json:)) }
}
