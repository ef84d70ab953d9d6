// Whether to accept a server certificate: the TLS validation table of `discovery.md` §9,
// as a pure function of what the handshake observed and what the caller expects.
//
//   expected pin set, no observed fingerprint       → reject certificateUnavailable
//   expected pin set, observed equal                → accept (pinned; system trust not needed)
//   expected pin set, observed different            → reject pinMismatch
//   no pin, TOFU allowed, fingerprint, system OK    → accept and remember the pin
//   no pin, TOFU allowed, TLS required, otherwise   → reject untrustedCertificate / certificateUnavailable
//   otherwise, system trust OK or TLS not required  → accept without pinning
//   otherwise                                       → reject untrustedCertificate
//
// An advertised (TXT) fingerprint is never an input here: only a pin the user or a setup code
// supplied, or one stored after explicit confirmation, is the policy's `pin`.

import ClawpairCore

/// What the caller expects of the server certificate.
public struct TLSPinPolicy: Sendable, Equatable {
    /// The SHA-256 leaf fingerprint that must match (64 lowercase hex), if any.
    public var pin: String?
    /// Whether a system-trusted certificate's fingerprint may be stored as the new pin.
    public var allowTrustOnFirstUse: Bool
    /// Whether TLS must be verified (always, for `wss://`).
    public var required: Bool

    /// A policy; by default TLS is required, with no pin and no TOFU (system trust decides).
    public init(pin: String? = nil, allowTrustOnFirstUse: Bool = false, required: Bool = true) {
        self.pin = pin
        self.allowTrustOnFirstUse = allowTrustOnFirstUse
        self.required = required
    }
}

/// What the handshake observed about the server certificate.
public struct TLSPeerCertificate: Sendable, Equatable {
    /// SHA-256 of the leaf certificate's DER, 64 lowercase hex; nil when the server sent none.
    public var fingerprint: String?
    /// Whether the chain verified against the system roots and the host name matched.
    public var systemTrusted: Bool
    /// Why system verification failed (OpenSSL's text), when it did.
    public var verificationError: String?

    /// What a handshake observed.
    public init(fingerprint: String?, systemTrusted: Bool, verificationError: String? = nil) {
        self.fingerprint = fingerprint
        self.systemTrusted = systemTrusted
        self.verificationError = verificationError
    }
}

/// How a certificate was accepted.
public enum TLSTrustBasis: String, Sendable, Equatable {
    /// It matched the expected pin.
    case pinned
    /// It verified against the system roots with the host name, and TOFU stored it as the pin.
    case trustedOnFirstUse = "trusted-on-first-use"
    /// It verified against the system roots with the host name.
    case system
    /// TLS was not required and nothing was checked.
    case unverified
}

/// Why a certificate was refused.
public enum TLSTrustFailure: Error, Sendable, Equatable {
    /// A pin is expected but the server presented no certificate.
    case certificateUnavailable
    /// The leaf fingerprint differs from the pin.
    case pinMismatch(expected: String, observed: String)
    /// No pin, and the certificate does not verify against the system roots (or the name
    /// does not match); `observed` is its fingerprint, for the user to confirm.
    case untrustedCertificate(observed: String?, reason: String?)
}

extension TLSTrustFailure: ClawpairError {
    /// `tls-trust`: the certificate failed its pin or system trust.
    public var code: String { "tls-trust" }
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .certificateUnavailable: return "the server presented no TLS certificate"
        case .pinMismatch(let expected, let observed):
            return "TLS certificate fingerprint \(observed) does not match the pinned \(expected)"
        case .untrustedCertificate(let observed, let reason):
            return "TLS certificate is not trusted" + (reason.map { " (\($0))" } ?? "")
                + (observed.map { "; its SHA-256 fingerprint is \($0)" } ?? "")
        }
    }
}

/// The decision table.
public enum TLSTrust {
    /// Applies `discovery.md` §9 to `certificate` under `policy`.
    public static func evaluate(_ certificate: TLSPeerCertificate, policy: TLSPinPolicy) -> Result<TLSTrustBasis, TLSTrustFailure> {
        if let expected = policy.pin {
            guard let observed = certificate.fingerprint else { return .failure(.certificateUnavailable) }
            return observed == expected ? .success(.pinned) : .failure(.pinMismatch(expected: expected, observed: observed))
        }
        if policy.allowTrustOnFirstUse {
            if certificate.fingerprint != nil && certificate.systemTrusted { return .success(.trustedOnFirstUse) }
            if policy.required {
                return .failure(certificate.fingerprint == nil ? .certificateUnavailable
                                : .untrustedCertificate(observed: certificate.fingerprint, reason: certificate.verificationError))
            }
        }
        if certificate.systemTrusted { return .success(.system) }
        if !policy.required { return .success(.unverified) }
        return .failure(.untrustedCertificate(observed: certificate.fingerprint, reason: certificate.verificationError))
    }
}
