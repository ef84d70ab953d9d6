#include "COpenSSLShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static COpenSSLShims_Functions functions;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[256];

static void load(void) {
    // libssl needs libcrypto; loading it first finds the libcrypto functions in its own handle.
    void *crypto = dlopen("libcrypto.so.3", RTLD_LAZY | RTLD_LOCAL);
    void *ssl = crypto != NULL ? dlopen("libssl.so.3", RTLD_LAZY | RTLD_LOCAL) : NULL;
    if (crypto == NULL || ssl == NULL) {
        snprintf(load_error, sizeof load_error, "OpenSSL 3 is not installed (%s); install libssl3", dlerror());
        return;
    }
#define COPENSSLSHIMS_RESOLVE(name)                                                                            \
    if ((functions.name = (__typeof__(name) *)dlsym(ssl, #name)) == NULL &&                                    \
        (functions.name = (__typeof__(name) *)dlsym(crypto, #name)) == NULL) {                                 \
        snprintf(load_error, sizeof load_error, "OpenSSL has no %s", #name);                                  \
        return;                                                                                                \
    }
    COPENSSLSHIMS_FUNCTIONS(COPENSSLSHIMS_RESOLVE)
#undef COPENSSLSHIMS_RESOLVE
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
