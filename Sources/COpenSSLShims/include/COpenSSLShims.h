#pragma once
// OpenSSL (libssl + libcrypto), loaded on first use with dlopen instead of being linked: only
// TLS needs it, and linked statically its tables cost every clawpair command ~95 relocated
// pages at start-up (more than half of the executable's), linked dynamically two more
// libraries to load. Types and constants come from the headers; functions are called through
// COpenSSLShims_functions(), whose fields have the type of each function's declaration (a
// signature mismatch is a compile error). Function-like macros Swift cannot import have a
// forwarder each, COpenSSLShims_<macro>, on the same loaded functions.
// Loaded with dlopen, so this target does not depend on COpenSSL (that would link the library):
// a missing header names the Debian package here instead, as COpenSSL's apt provider does.
#if !__has_include(<openssl/ssl.h>)
#error "OpenSSL headers are missing: install the Debian package libssl-dev (sudo apt-get install libssl-dev; scripts/install-deps installs every one)"
#endif
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// The function fields below are non-null (Swift calls them without unwrapping); the rest of this
// header, like OpenSSL's own, says nothing about nullability.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"

/// Every OpenSSL function clawpair calls (X-macro: OPENSSL_FUNCTION(name) per function).
#define COPENSSLSHIMS_FUNCTIONS(OPENSSL_FUNCTION) \
    OPENSSL_FUNCTION(ERR_clear_error) OPENSSL_FUNCTION(ERR_get_error) OPENSSL_FUNCTION(ERR_reason_error_string) \
    OPENSSL_FUNCTION(ERR_error_string_n) \
    OPENSSL_FUNCTION(TLS_client_method) OPENSSL_FUNCTION(SSL_CTX_new) OPENSSL_FUNCTION(SSL_CTX_free) \
    OPENSSL_FUNCTION(SSL_CTX_ctrl) OPENSSL_FUNCTION(SSL_CTX_load_verify_file) OPENSSL_FUNCTION(SSL_CTX_load_verify_dir) \
    OPENSSL_FUNCTION(SSL_CTX_set_default_verify_paths) \
    OPENSSL_FUNCTION(X509_get_default_cert_file_env) OPENSSL_FUNCTION(X509_get_default_cert_dir_env) \
    OPENSSL_FUNCTION(X509_get_default_cert_dir) \
    OPENSSL_FUNCTION(SSL_new) OPENSSL_FUNCTION(SSL_free) OPENSSL_FUNCTION(SSL_ctrl) OPENSSL_FUNCTION(SSL_set_bio) \
    OPENSSL_FUNCTION(SSL_set_connect_state) OPENSSL_FUNCTION(SSL_set_verify) OPENSSL_FUNCTION(SSL_get0_param) \
    OPENSSL_FUNCTION(SSL_set1_host) OPENSSL_FUNCTION(X509_VERIFY_PARAM_set1_ip_asc) \
    OPENSSL_FUNCTION(SSL_do_handshake) OPENSSL_FUNCTION(SSL_get_error) OPENSSL_FUNCTION(SSL_write) \
    OPENSSL_FUNCTION(SSL_read) OPENSSL_FUNCTION(SSL_shutdown) OPENSSL_FUNCTION(SSL_get_version) \
    OPENSSL_FUNCTION(SSL_get1_peer_certificate) OPENSSL_FUNCTION(SSL_get_verify_result) \
    OPENSSL_FUNCTION(X509_digest) OPENSSL_FUNCTION(X509_free) OPENSSL_FUNCTION(X509_verify_cert_error_string) \
    OPENSSL_FUNCTION(EVP_sha256) \
    OPENSSL_FUNCTION(BIO_s_mem) OPENSSL_FUNCTION(BIO_new) OPENSSL_FUNCTION(BIO_free) OPENSSL_FUNCTION(BIO_ctrl) \
    OPENSSL_FUNCTION(BIO_write) OPENSSL_FUNCTION(BIO_read) OPENSSL_FUNCTION(BIO_ctrl_pending)

#define COPENSSLSHIMS_FIELD(name) __typeof__(name) *_Nonnull name;
/// The loaded functions, one field per name in COPENSSLSHIMS_FUNCTIONS (all set once loaded).
typedef struct {
    COPENSSLSHIMS_FUNCTIONS(COPENSSLSHIMS_FIELD)
} COpenSSLShims_Functions;
#undef COPENSSLSHIMS_FIELD

/// Loads libssl.so.3 and libcrypto.so.3 and resolves every function, once per process
/// (thread-safe). Returns them, or NULL (with the reason in COpenSSLShims_load_error()).
/// Every forwarder below needs this to have succeeded first.
const COpenSSLShims_Functions *COpenSSLShims_functions(void);

/// Why COpenSSLShims_functions returned NULL ("" when it did not).
const char *COpenSSLShims_load_error(void);

/// SSL_set_tlsext_host_name(ssl, name): sets the SNI host name. Returns 1 on success.
int COpenSSLShims_SSL_set_tlsext_host_name(SSL *ssl, const char *name);

/// SSL_CTX_set_min_proto_version(ctx, version): floor for the negotiated protocol. Returns 1 on success.
int COpenSSLShims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);

/// SSL_CTX_set_mode(ctx, mode): adds mode bits (e.g. SSL_MODE_AUTO_RETRY). Returns the new mode.
long COpenSSLShims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);

/// BIO_get_mem_ptr(bio, &ptr): borrows a memory BIO's buffer. Returns 1 on success.
long COpenSSLShims_BIO_get_mem_ptr(BIO *bio, BUF_MEM **out);

/// The TLS1_2_VERSION constant, which Swift imports only as a macro on some OpenSSL builds.
int COpenSSLShims_TLS1_2_VERSION(void);

/// BIO_set_mem_eof_return(bio, value): what reading an empty memory BIO returns. -1 makes it
/// report "retry" instead of end of file, which a memory-BIO TLS engine needs. Returns 1.
long COpenSSLShims_BIO_set_mem_eof_return(BIO *bio, long value);

#pragma clang diagnostic pop
