// Role and scope names as a gateway sends them (hello-ok `auth.role`/`scopes`, issued device
// tokens, pairing requests). Upstream's names are short dotted words (`node`, `operator`,
// `operator.read`, `operator.pairing`, …: `src/shared/device-auth.ts`); anything else is a
// hostile or broken gateway's text, and it must not reach the registry (which every later
// `gateways list` replays) nor a terminal (issue #25.4: OSC 52, `ESC[2J`, C1 and bidi controls
// were seen in role and scope names).

/// Checks role and scope names from a gateway.
public enum GatewayNames {
    /// The longest role or scope name accepted (upstream's longest is under 32).
    public static let maxLength = 64
    /// The most scopes one token or grant may carry.
    public static let maxScopes = 64

    /// Whether `name` is 1…``maxLength`` ASCII letters, digits and `.`, `_`, `-`, `:`.
    public static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { byte in
            (0x61...0x7a).contains(byte) || (0x41...0x5a).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2e || byte == 0x5f || byte == 0x2d || byte == 0x3a
        }
    }

    /// The first name of `names` that is not valid, or nil when all are (and there are at most
    /// ``maxScopes``).
    public static func firstInvalid(_ names: [String]) -> String? {
        if names.count > maxScopes { return "(\(names.count) names, more than \(maxScopes))" }
        return names.first { !isValid($0) }
    }
}
