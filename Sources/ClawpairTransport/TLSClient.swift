// A TLS client engine on OpenSSL with memory BIOs: ciphertext in, ciphertext out, plaintext
// in between, and no socket calls of its own (the socket I/O stays in `StreamConnection`,
// behind the one errno wrapper). Every OpenSSL call lives in `TLSClient+OpenSSL.swift`; this
// file holds the public faces, which carry no C types.
//
// The engine completes the handshake even when the certificate does not verify (OpenSSL's
// SSL_VERIFY_NONE still runs verification and records the result), so the caller always
// learns the observed fingerprint and then applies `TLSTrust.evaluate` before sending a byte.

import ClawpairCore

/// The lowest protocol version a context negotiates.
public enum TLSMinimumVersion: Sendable, Equatable {
    /// TLS 1.2 (the floor clawpair allows).
    case tls12
    /// TLS 1.3 (what an OpenClaw gateway requires anyway).
    case tls13
}

/// Why TLS could not be set up or failed.
public enum TLSError: Error, Sendable, Equatable {
    /// Creating or configuring the OpenSSL context or connection failed (the OpenSSL reason).
    case setupFailed(String)
    /// The handshake failed: an alert, or bytes that are not TLS (the OpenSSL reason).
    case handshakeFailed(String)
    /// The peer closed the connection before the handshake finished.
    case closedDuringHandshake
    /// A TLS record error after the handshake (the OpenSSL reason).
    case protocolError(String)
}

extension TLSError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .setupFailed(let reason): return "TLS setup failed: \(reason)"
        case .handshakeFailed(let reason): return "TLS handshake failed: \(reason)"
        case .closedDuringHandshake: return "the server closed the connection during the TLS handshake"
        case .protocolError(let reason): return "TLS error: \(reason)"
        }
    }
}

/// Shared TLS settings: the system trust store (`SSL_CERT_FILE`/`SSL_CERT_DIR` override it, as
/// everywhere in OpenSSL) and the minimum version. Create one per run and share it between
/// connections of the same thread.
public final class TLSContext {
    /// Which certificates a context trusts.
    public enum TrustRoots: Sendable, Equatable {
        /// The system roots (`SSL_CERT_FILE`, `SSL_CERT_DIR`, or OpenSSL's defaults).
        case system
        /// None: every chain fails verification. For pinned connections, where only the
        /// fingerprint decides, so no root store needs loading.
        case none
    }

    let handle: OpaquePointer
    /// The roots this context verifies against.
    public let trustRoots: TrustRoots

    /// A client context trusting `trustRoots` (default: the system's), refusing versions below
    /// `minimumVersion` (default TLS 1.2).
    public init(minimumVersion: TLSMinimumVersion = .tls12, trustRoots: TrustRoots = .system) throws(TLSError) {
        handle = try Self.makeHandle(minimumVersion: minimumVersion, trustRoots: trustRoots)
        self.trustRoots = trustRoots
    }

    deinit { Self.freeHandle(handle) }
}

@available(*, unavailable)
extension TLSContext: Sendable {}

/// One client-side TLS connection's state machine.
public final class TLSClientEngine {
    /// Where the handshake stands.
    public enum HandshakeProgress: Sendable, Equatable {
        /// More bytes from the server are needed (send `takeCiphertext()` first).
        case inProgress
        /// The handshake finished; check `peerCertificate` before sending anything.
        case complete
    }

    /// What reading plaintext produced.
    public enum PlaintextRead: Sendable, Equatable {
        /// Decrypted application data.
        case bytes([UInt8])
        /// More ciphertext is needed.
        case needMore
        /// The peer sent close_notify.
        case closed
    }

    /// The name or IP literal the certificate is checked against (and sent as SNI if a name).
    public let serverName: String
    let ssl: OpaquePointer
    let readBIO: OpaquePointer
    let writeBIO: OpaquePointer

    /// A connection under `context` to `serverName` (a DNS name, or an IPv4/IPv6 literal
    /// without brackets): SNI for names, host name or IP verification against the certificate.
    public init(context: TLSContext, serverName: String) throws(TLSError) {
        self.serverName = serverName
        (ssl, readBIO, writeBIO) = try Self.makeConnection(context: context, serverName: serverName)
    }

    deinit { Self.freeConnection(ssl) }
}

@available(*, unavailable)
extension TLSClientEngine: Sendable {}
