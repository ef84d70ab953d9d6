#pragma once
// OpenSSL libssl + libcrypto (libssl-dev). Macros Swift cannot import live in COpenSSLShims.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
