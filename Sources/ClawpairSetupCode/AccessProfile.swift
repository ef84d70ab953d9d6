// Bootstrap access profiles (`setup-codes.md` §7; TS `src/shared/device-bootstrap-profile.ts`) and
// the G4 plaintext downgrade rule (§8).
//
// Checklist, adding a profile or scope generation: add the static profile, list it in the
// `accessLabel` doc, and add vectors in `AccessTests.swift`.

/// Which generation's operator handoff scope set to use.
public enum ScopeGeneration: String, Sendable, CaseIterable {
    /// G3: approvals, read, talk.secrets, write.
    case g3 = "G3"
    /// G4: G3 plus `operator.questions` (what the toolkit emits).
    case g4 = "G4"
}

/// The access label apps show under Settings → Gateway, and JSON reports carry as `access`.
public enum AccessLabel: String, Sendable, CaseIterable {
    /// Exactly the FULL profile (G3 or G4 scope set).
    case full
    /// Any other set of roles and scopes.
    case limited
    /// Exactly the NODE profile.
    case node

    /// The label of an arbitrary role/scope set: FULL (either generation) → `full`, NODE →
    /// `node`, anything else → `limited`. Duplicates and order do not matter.
    public init(roles: some Sequence<String>, scopes: some Sequence<String>) {
        let candidate = AccessProfile(roles: roles, scopes: scopes)
        if ScopeGeneration.allCases.contains(where: { AccessProfile.full($0).sameGrant(as: candidate) }) {
            self = .full
        } else if AccessProfile.node.sameGrant(as: candidate) {
            self = .node
        } else {
            self = .limited
        }
    }
}

/// A bootstrap profile: the roles and operator scopes a setup code's token hands over.
/// Roles and scopes are kept de-duplicated and sorted, as upstream stores them.
public struct AccessProfile: Sendable, Hashable {
    /// Roles (`node`, `operator`), sorted and unique.
    public let roles: [String]
    /// Operator scopes, sorted and unique.
    public let scopes: [String]
    /// The upstream `purpose` tag, when the profile has one (`mobile-full`, `voice-node`, ...).
    public let purpose: String?

    /// Creates a profile, de-duplicating and sorting roles and scopes.
    public init(roles: some Sequence<String>, scopes: some Sequence<String>, purpose: String? = nil) {
        self.roles = Array(Set(roles)).sorted()
        self.scopes = Array(Set(scopes)).sorted()
        self.purpose = purpose
    }

    /// Whether two profiles grant the same roles and scopes (the purpose tag is ignored).
    public func sameGrant(as other: AccessProfile) -> Bool {
        roles == other.roles && scopes == other.scopes
    }

    /// The label of this profile's roles and scopes.
    public var label: AccessLabel { AccessLabel(roles: roles, scopes: scopes) }

    /// `operator.pairing`: never handed off by a setup code.
    public static let pairingScope = "operator.pairing"
    /// `operator.admin`: only FULL (and owner profiles) carry it.
    public static let adminScope = "operator.admin"

    /// What a bootstrap token may hand to an operator in each generation.
    public static func handoffScopes(_ generation: ScopeGeneration) -> [String] {
        switch generation {
        case .g3: return ["operator.approvals", "operator.read", "operator.talk.secrets", "operator.write"]
        case .g4:
            return ["operator.approvals", "operator.questions", "operator.read", "operator.talk.secrets",
                    "operator.write"]
        }
    }

    /// FULL: `node` + `operator`, `operator.admin` plus the handoff set; purpose `mobile-full`.
    public static func full(_ generation: ScopeGeneration = .g4) -> AccessProfile {
        AccessProfile(roles: ["node", "operator"], scopes: [adminScope] + handoffScopes(generation),
                      purpose: "mobile-full")
    }

    /// LIMITED: `node` + `operator`, the handoff set only.
    public static func limited(_ generation: ScopeGeneration = .g4) -> AccessProfile {
        AccessProfile(roles: ["node", "operator"], scopes: handoffScopes(generation))
    }

    /// NODE: role `node`, no operator scopes (watches and companion devices).
    public static let node = AccessProfile(roles: ["node"], scopes: [])

    /// VOICE_NODE (G4): `node` + `operator`, `operator.read` and `operator.talk`; label `limited`.
    public static let voiceNode = AccessProfile(roles: ["node", "operator"],
                                                scopes: ["operator.read", "operator.talk"], purpose: "voice-node")

    /// CONTROL_UI_OWNER (G4): `operator` with admin, approvals, pairing, questions, read,
    /// talk.secrets and write; label `limited` (it is not FULL).
    public static let controlUIOwner = AccessProfile(
        roles: ["operator"],
        scopes: ["operator.admin", "operator.approvals", "operator.pairing", "operator.questions", "operator.read",
                 "operator.talk.secrets", "operator.write"],
        purpose: "control-ui-owner")

    /// The CLI's line when a full-access request was downgraded (§8).
    public static let downgradeWarning =
        "This Gateway URL uses plaintext ws://, so the setup code was limited for safety. "
        + "Use wss:// or Tailscale Serve, then generate a new code for full access."

    /// Whether a URL keeps full access under §8: `wss://` (or `https://`), or `ws://` (or
    /// `http://`) to a loopback host. Unparseable URLs do not.
    public static func isFullAccessURL(_ url: String) -> Bool {
        guard let parsed = SetupURL.parseGatewayURL(TextRules.jsTrim(url)) else { return false }
        return parsed.tls || PlaintextPolicy.isLoopback(host: parsed.host.bareForm)
    }

    /// The G4 issue rule (§8): a FULL request is downgraded to LIMITED (same scope generation)
    /// when any advertised URL is neither `wss://` nor loopback `ws://`. Other requests are issued
    /// as asked.
    public static func issue(requested: AccessProfile, urls: [String]) -> (issued: AccessProfile, downgraded: Bool) {
        guard let generation = ScopeGeneration.allCases.first(where: { full($0).sameGrant(as: requested) }) else {
            return (requested, false)
        }
        if urls.allSatisfy(isFullAccessURL) { return (requested, false) }
        return (limited(generation), true)
    }
}
