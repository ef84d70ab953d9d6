#include "COpenSSLShims.h"

int COpenSSLShims_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

int COpenSSLShims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

long COpenSSLShims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

long COpenSSLShims_BIO_get_mem_ptr(BIO *bio, BUF_MEM **out) {
    return BIO_get_mem_ptr(bio, out);
}

int COpenSSLShims_TLS1_2_VERSION(void) {
    return TLS1_2_VERSION;
}

long COpenSSLShims_BIO_set_mem_eof_return(BIO *bio, long value) {
    return BIO_set_mem_eof_return(bio, value);
}
