#ifndef FLOWSPEC_COPENSSL_SHIM_H
#define FLOWSPEC_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/crypto.h>

/* SHA-256 without the EVP layer, for the site build's content hashes (JOSE's Digest.sha256):
   OpenSSL 3's low-level SHA256_* functions hash with the same assembly (SHA-NI where the CPU
   has it) but need no provider, while the first EVP fetch loads the configuration file and
   the default provider (4.6 M instructions, callgrind), a cost every `flowspec build` process
   paid for hashes alone. They are deprecated in 3.0, not removed; the wrappers keep the
   deprecation inside this header. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static inline int flowspec_sha256_init(SHA256_CTX *context) { return SHA256_Init(context); }
static inline int flowspec_sha256_update(SHA256_CTX *context, const void *data, size_t count) {
    return SHA256_Update(context, data, count);
}
static inline int flowspec_sha256_final(unsigned char *digest, SHA256_CTX *context) { return SHA256_Final(digest, context); }
#pragma clang diagnostic pop
#endif
