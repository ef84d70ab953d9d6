// The only file of the transport that calls OpenSSL, through the functions COpenSSLShims loads
// when the first TLS context is made. Each return code is checked and mapped to `TLSError`;
// error-queue entries are drained into the message.

internal import COpenSSLShims
#if canImport(Glibc)
import Glibc
#endif

/// OpenSSL's functions, loaded by COpenSSLShims on first use; nil when libssl.so.3 is missing.
nonisolated(unsafe) private let loadedOpenSSL = COpenSSLShims_functions()

/// The loaded functions. Only used once a TLSContext exists: creating one checked the load.
private var openssl: COpenSSLShims_Functions { loadedOpenSSL.unsafelyUnwrapped.pointee }

extension TLSContext {
    static func makeHandle(minimumVersion: TLSMinimumVersion, trustRoots: TrustRoots) throws(TLSError) -> OpaquePointer {
        guard loadedOpenSSL != nil else { throw .setupFailed(String(cString: COpenSSLShims_load_error())) }
        openssl.ERR_clear_error()
        guard let ctx = openssl.SSL_CTX_new(openssl.TLS_client_method()) else {
            throw .setupFailed(drainErrors() ?? "SSL_CTX_new")
        }
        let floor = minimumVersion == .tls13 ? Int32(TLS1_3_VERSION) : COpenSSLShims_TLS1_2_VERSION()
        guard COpenSSLShims_SSL_CTX_set_min_proto_version(ctx, floor) == 1 else {
            openssl.SSL_CTX_free(ctx)
            throw .setupFailed(drainErrors() ?? "SSL_CTX_set_min_proto_version")
        }
        if trustRoots == .system { loadSystemRoots(ctx) }
        openssl.ERR_clear_error()
        return ctx
    }

    /// The system roots, as OpenSSL's default paths define them but loaded lazily: the hashed
    /// certificate directory (`SSL_CERT_DIR`, else OpenSSL's default) is searched per issuer when
    /// a chain is verified, instead of parsing the whole bundle file up front (tens of ms, paid
    /// inside the first handshake otherwise). `SSL_CERT_FILE`, when set, is loaded as given; a
    /// system without a hashed directory falls back to the default bundle. A missing store is not
    /// fatal: certificates then fail system trust, and pins still work.
    private static func loadSystemRoots(_ ctx: OpaquePointer) {
        // OpenSSL's names for the variables and its built-in directory: static strings.
        let fileVariable = openssl.X509_get_default_cert_file_env().map { String(cString: $0) } ?? "SSL_CERT_FILE"
        let directoryVariable = openssl.X509_get_default_cert_dir_env().map { String(cString: $0) } ?? "SSL_CERT_DIR"
        if let file = getenv(fileVariable) {
            _ = openssl.SSL_CTX_load_verify_file(ctx, file)
        }
        let directory = getenv(directoryVariable).map { String(cString: $0) }
            ?? openssl.X509_get_default_cert_dir().map { String(cString: $0) } ?? "/usr/lib/ssl/certs"
        if access(directory, R_OK | X_OK) == 0 {
            _ = openssl.SSL_CTX_load_verify_dir(ctx, directory)
        } else if getenv(fileVariable) == nil {
            _ = openssl.SSL_CTX_set_default_verify_paths(ctx)
        }
    }

    static func freeHandle(_ handle: OpaquePointer) {
        openssl.SSL_CTX_free(handle)
    }
}

/// The oldest entry's reason text of OpenSSL's error queue (the cause, not the wrappers
/// after it), emptying the queue; nil when empty.
func drainErrors() -> String? {
    var first: String?
    while true {
        let code = openssl.ERR_get_error()
        if code == 0 { break }
        if first == nil {
            if let reason = openssl.ERR_reason_error_string(code) {
                first = String(cString: reason)
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                openssl.ERR_error_string_n(code, &buffer, buffer.count)
                first = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
    }
    return first
}

extension TLSClientEngine {
    static func makeConnection(context: TLSContext, serverName: String) throws(TLSError) -> (OpaquePointer, OpaquePointer, OpaquePointer) {
        openssl.ERR_clear_error()
        guard let ssl = openssl.SSL_new(context.handle) else { throw .setupFailed(drainErrors() ?? "SSL_new") }
        guard let rbio = openssl.BIO_new(openssl.BIO_s_mem()) else {
            openssl.SSL_free(ssl)
            throw .setupFailed(drainErrors() ?? "BIO_new")
        }
        guard let wbio = openssl.BIO_new(openssl.BIO_s_mem()) else {
            _ = openssl.BIO_free(rbio)
            openssl.SSL_free(ssl)
            throw .setupFailed(drainErrors() ?? "BIO_new")
        }
        _ = COpenSSLShims_BIO_set_mem_eof_return(rbio, -1)
        _ = COpenSSLShims_BIO_set_mem_eof_return(wbio, -1)
        openssl.SSL_set_bio(ssl, rbio, wbio)  // the SSL owns both BIOs from here on
        openssl.SSL_set_connect_state(ssl)
        // Verify, but finish the handshake either way so the fingerprint can be reported;
        // the caller decides with TLSTrust.evaluate before any application data is sent.
        openssl.SSL_set_verify(ssl, SSL_VERIFY_NONE, nil)

        let isIPLiteral = SocketAddress(ip: serverName, port: 0) != nil
        if isIPLiteral {
            guard openssl.X509_VERIFY_PARAM_set1_ip_asc(openssl.SSL_get0_param(ssl), serverName) == 1 else {
                openssl.SSL_free(ssl)
                throw .setupFailed(drainErrors() ?? "cannot verify against the IP \(serverName)")
            }
        } else {
            // SNI carries names only (RFC 6066 §3).
            guard COpenSSLShims_SSL_set_tlsext_host_name(ssl, serverName) == 1, openssl.SSL_set1_host(ssl, serverName) == 1 else {
                openssl.SSL_free(ssl)
                throw .setupFailed(drainErrors() ?? "cannot use the server name \(serverName)")
            }
        }
        return (ssl, rbio, wbio)
    }

    static func freeConnection(_ ssl: OpaquePointer) {
        openssl.SSL_free(ssl)  // frees both BIOs
    }

    /// Hands ciphertext received from the socket to OpenSSL.
    public func receiveCiphertext(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { openssl.BIO_write(readBIO, $0.baseAddress, Int32(clamping: $0.count)) }
            guard written > 0 else { return }  // a memory BIO only fails on allocation failure
            offset += Int(written)
        }
    }

    /// Takes the ciphertext OpenSSL produced, to be written to the socket.
    public func takeCiphertext() -> [UInt8] {
        let pending = Int(openssl.BIO_ctrl_pending(writeBIO))
        guard pending > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: pending)
        let read = out.withUnsafeMutableBytes { openssl.BIO_read(writeBIO, $0.baseAddress, Int32(clamping: $0.count)) }
        return read > 0 ? Array(out.prefix(Int(read))) : []
    }

    /// Advances the handshake with the ciphertext received so far.
    public func handshake() throws(TLSError) -> HandshakeProgress {
        openssl.ERR_clear_error()
        let result = openssl.SSL_do_handshake(ssl)
        if result == 1 { return .complete }
        switch openssl.SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .inProgress
        case SSL_ERROR_ZERO_RETURN:
            throw .closedDuringHandshake
        default:
            throw .handshakeFailed(drainErrors() ?? "the server's bytes are not a TLS handshake")
        }
    }

    /// Encrypts `bytes`; the ciphertext is then in `takeCiphertext()`.
    public func writePlaintext(_ bytes: [UInt8]) throws(TLSError) {
        var offset = 0
        while offset < bytes.count {
            openssl.ERR_clear_error()
            let written = bytes[offset...].withUnsafeBytes { openssl.SSL_write(ssl, $0.baseAddress, Int32(clamping: $0.count)) }
            guard written > 0 else {
                throw .protocolError(drainErrors() ?? "SSL_write failed (\(openssl.SSL_get_error(ssl, written)))")
            }
            offset += Int(written)
        }
    }

    /// Decrypts what is available.
    public func readPlaintext() throws(TLSError) -> PlaintextRead {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            openssl.ERR_clear_error()
            let read = chunk.withUnsafeMutableBytes { openssl.SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if read > 0 {
                out.append(contentsOf: chunk.prefix(Int(read)))
                continue
            }
            switch openssl.SSL_get_error(ssl, read) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return out.isEmpty ? .needMore : .bytes(out)
            case SSL_ERROR_ZERO_RETURN:
                return out.isEmpty ? .closed : .bytes(out)
            default:
                throw .protocolError(drainErrors() ?? "SSL_read failed")
            }
        }
    }

    /// The server certificate as the handshake saw it: fingerprint and system verification.
    public var peerCertificate: TLSPeerCertificate {
        var fingerprint: String?
        if let cert = openssl.SSL_get1_peer_certificate(ssl) {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            if openssl.X509_digest(cert, openssl.EVP_sha256(), &digest, &length) == 1, length == 32 {
                fingerprint = digest.prefix(32).map { byte in
                    let hex = String(byte, radix: 16)
                    return byte < 16 ? "0" + hex : hex
                }.joined()
            }
            openssl.X509_free(cert)
        }
        let result = openssl.SSL_get_verify_result(ssl)
        let trusted = fingerprint != nil && result == Int(X509_V_OK)
        let reason = trusted ? nil : openssl.X509_verify_cert_error_string(result).map { String(cString: $0) }
        openssl.ERR_clear_error()
        return TLSPeerCertificate(fingerprint: fingerprint, systemTrusted: trusted, verificationError: reason)
    }

    /// The negotiated protocol, e.g. `TLSv1.3`.
    public var protocolVersion: String {
        openssl.SSL_get_version(ssl).map { String(cString: $0) } ?? "unknown"
    }

    /// Queues a close_notify alert (then send `takeCiphertext()`).
    public func shutdown() {
        openssl.ERR_clear_error()
        _ = openssl.SSL_shutdown(ssl)
        openssl.ERR_clear_error()
    }
}
