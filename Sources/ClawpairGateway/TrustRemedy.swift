import ClawpairTransport

/// What gets past a TLS trust failure once the user has checked the certificate: pinning the
/// fingerprint the gateway presented.
public enum TrustRemedy: Sendable, Equatable {
    /// No pin, and the certificate does not verify against the system roots: accept this one.
    case accept(fingerprint: String)
    /// The certificate differs from its pin: pin the new one, if the change was expected.
    case repin(fingerprint: String)

    /// The remedy of a ``GatewayError/tlsTrust(url:_:)`` failure that has one (an untrusted
    /// certificate whose fingerprint was seen, or a pin mismatch); nil for any other error.
    public init?(_ error: any Error) {
        switch error {
        case GatewayError.tlsTrust(_, .untrustedCertificate(let fingerprint?, _)): self = .accept(fingerprint: fingerprint)
        case GatewayError.tlsTrust(_, .pinMismatch(_, let fingerprint)): self = .repin(fingerprint: fingerprint)
        default: return nil
        }
    }

    /// The SHA-256 fingerprint to pin, as the TLS handshake observed it.
    public var fingerprint: String {
        switch self {
        case .accept(let fingerprint), .repin(let fingerprint): return fingerprint
        }
    }

    /// What to check before pinning it, ending where the way to pin it follows.
    public var advice: String {
        switch self {
        case .accept:
            return "check that this is your gateway's certificate (on the gateway host: openssl x509 -in CERT -noout "
                + "-fingerprint -sha256), then accept it"
        case .repin: return "the certificate changed: if you expected that, check it and pin the new one"
        }
    }
}
