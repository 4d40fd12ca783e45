#ifndef TONEARM_COPENSSL_SHIM_H
#define TONEARM_COPENSSL_SHIM_H
#include <openssl/hmac.h>
#include <openssl/evp.h>

/* HMAC-SHA256 of `data` with `key` into `out` (32 bytes); 1 on success, 0 on failure.
 * A plain function so the Swift side needs neither EVP_MD pointers nor HMAC_CTX. */
static inline int tonearm_hmac_sha256(const void *key, int keyLength, const unsigned char *data, size_t count,
                                      unsigned char *out) {
    unsigned int length = 0;
    return HMAC(EVP_sha256(), key, keyLength, data, count, out, &length) != NULL && length == 32;
}
#endif
