#include "COpenSSLShims.h"

#include <CLazyLibrary.h>
#include <pthread.h>
#include <stdio.h>

static COpenSSLShims_Functions functions;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[256];

static void load(void) {
    // libssl's functions, then libcrypto's (libssl loads libcrypto anyway).
    static const char *const libraries[] = {"libssl.so.3", "libcrypto.so.3"};
    static const char *const names[] = {COPENSSLSHIMS_FUNCTIONS(CLAZY_NAME)};
#define SLOT(name) CLAZY_SLOT(functions, name)
    void *const slots[] = {COPENSSLSHIMS_FUNCTIONS(SLOT)};
#undef SLOT
    char reason[200];
    if (CLazyLibrary_open(libraries, 2, names, slots, sizeof names / sizeof *names, reason, sizeof reason) != 0) {
        snprintf(load_error, sizeof load_error, "OpenSSL 3 could not be loaded (%s); install libssl3", reason);
        return;
    }
    loaded = 1;
}

const COpenSSLShims_Functions *COpenSSLShims_functions(void) {
    pthread_once(&once, load);
    return loaded ? &functions : NULL;
}

const char *COpenSSLShims_load_error(void) { return load_error; }

// The macros below expand to calls of these functions: through the loaded pointers.
#define SSL_ctrl (*functions.SSL_ctrl)
#define SSL_CTX_ctrl (*functions.SSL_CTX_ctrl)
#define BIO_ctrl (*functions.BIO_ctrl)

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
