#pragma once
// Forwarders for OpenSSL function-like macros that Swift cannot import.
// One commented function per macro, named COpenSSLShims_<macro>. Nothing else lives here.
#include <openssl/ssl.h>
#include <openssl/bio.h>

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
