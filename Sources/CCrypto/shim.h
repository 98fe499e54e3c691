#pragma once
// OpenSSL's libcrypto.
// - EventLog: SHA-256 only. SHA256_Init/Update/Final use the CPU's SHA extensions (about 4x libsodium's
//   portable SHA-256 on 65-200 byte inputs here). They are marked deprecated in OpenSSL 3 in favour of
//   EVP, which costs a context per call; they remain supported.
// - WebTokens: verifying JWS signatures (RSA, RSA-PSS, ECDSA, Ed25519) with keys built from a JWKS.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

// Macros that do not import.
static inline int ccrypto_rsa_pss_saltlen_digest(void) { return RSA_PSS_SALTLEN_DIGEST; }
static inline int ccrypto_evp_pkey_ed25519(void) { return EVP_PKEY_ED25519; }

// Public keys from their numbers. OSSL_PARAM_BLD keeps the names, numbers and strings pushed to it by
// reference until EVP_PKEY_fromdata has read them, so each key is built within one C call.
static inline EVP_PKEY *ccrypto_key_from_params(const char *type, OSSL_PARAM_BLD *builder) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(builder);
    EVP_PKEY_CTX *context = params ? EVP_PKEY_CTX_new_from_name(NULL, type, NULL) : NULL;
    if (context && EVP_PKEY_fromdata_init(context) == 1) {
        if (EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    return key;
}

/// An RSA public key from its modulus and exponent (big-endian); NULL when they do not make one.
static inline EVP_PKEY *ccrypto_rsa_public_key(const unsigned char *n, size_t n_length, const unsigned char *e, size_t e_length) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    BIGNUM *modulus = BN_bin2bn(n, (int)n_length, NULL), *exponent = BN_bin2bn(e, (int)e_length, NULL);
    if (builder && modulus && exponent
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1) {
        key = ccrypto_key_from_params("RSA", builder);
    }
    BN_free(modulus);
    BN_free(exponent);
    OSSL_PARAM_BLD_free(builder);
    return key;
}

/// An EC public key on the named group from its SEC 1 point; NULL when the point is not on the curve.
static inline EVP_PKEY *ccrypto_ec_public_key(const char *group, const unsigned char *point, size_t point_length) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (builder
        && OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) == 1
        && OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, point_length) == 1) {
        key = ccrypto_key_from_params("EC", builder);
    }
    OSSL_PARAM_BLD_free(builder);
    return key;
}
