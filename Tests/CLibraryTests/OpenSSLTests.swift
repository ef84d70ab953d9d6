import COpenSSL
import COpenSSLShims
import Testing

/// OpenSSL: a TLS client context with a TLS 1.2 floor (through the macro shims) and SHA-256.
@Suite("OpenSSL")
struct OpenSSLTests {
    @Test("SSL_CTX_new(TLS_client_method()) with the TLS 1.2 minimum set through COpenSSLShims")
    func clientContextWithMinimumVersion() throws {
        _ = try #require(COpenSSLShims_functions(), "\(String(cString: COpenSSLShims_load_error()))")
        let context = try #require(SSL_CTX_new(TLS_client_method()), "SSL_CTX_new returned NULL")
        defer { SSL_CTX_free(context) }
        let tls12 = COpenSSLShims_TLS1_2_VERSION()
        #expect(tls12 == 0x0303)
        #expect(COpenSSLShims_SSL_CTX_set_min_proto_version(context, tls12) == 1)
        // SSL_CTX_get_min_proto_version is a macro over SSL_CTX_ctrl.
        #expect(SSL_CTX_ctrl(context, SSL_CTRL_GET_MIN_PROTO_VERSION, 0, nil) == Int(tls12))

        let connection = try #require(SSL_new(context), "SSL_new returned NULL")
        defer { SSL_free(connection) }
        #expect(COpenSSLShims_SSL_set_tlsext_host_name(connection, "gateway.example.invalid") == 1)
    }

    @Test("COpenSSLShims loads the same libcrypto the package links (one OpenSSL per process)")
    func loadedFunctionsAreTheLinkedLibrary() throws {
        let functions = try #require(COpenSSLShims_functions(), "\(String(cString: COpenSSLShims_load_error()))")
        #expect(functions.pointee.EVP_sha256() == EVP_sha256())
        #expect(String(cString: COpenSSLShims_load_error()).isEmpty)
    }

    @Test("SHA-256 through EVP_Digest (FIPS 180-2 vectors)", arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ])
    func sha256(input: String, expected: String) throws {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // One spare byte keeps the pointer valid for the empty input; the length excludes it.
        let bytes = Array(input.utf8) + [0]
        let ok = EVP_Digest(bytes, bytes.count - 1, &digest, &length, EVP_sha256(), nil)
        #expect(ok == 1, "EVP_Digest failed for \"\(input)\"")
        #expect(length == 32)
        #expect(hexString(digest.prefix(Int(length))) == expected, "SHA-256(\"\(input)\")")
    }
}
