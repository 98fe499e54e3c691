#define ZSTD_STATIC_LINKING_ONLY
#define OPENSSL_SUPPRESS_DEPRECATED
#include "sealing.h"
#include <openssl/sha.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define BUFFER_BYTES (1 << 20)

struct sealer {
    uint8_t key[32];
    uint8_t store_id[16];
    ZSTD_CCtx *cctx;
    ZSTD_DCtx *dctx;
    ZSTD_CDict *cdict;
    ZSTD_DDict *ddict;
    uint8_t *body, *compressed, *opened;
};

static void put_be64(uint8_t *p, uint64_t v) { for (int i = 7; i >= 0; i--) { p[i] = v & 0xff; v >>= 8; } }
static void put_be32(uint8_t *p, uint32_t v) { for (int i = 3; i >= 0; i--) { p[i] = v & 0xff; v >>= 8; } }

sealer_t *sealer_create(const uint8_t key[32], const uint8_t store_id[16], const uint8_t *dictionary,
                        size_t dictionary_length) {
    if (sodium_init() < 0) return NULL;
    sealer_t *s = calloc(1, sizeof *s);
    memcpy(s->key, key, 32);
    memcpy(s->store_id, store_id, 16);
    s->cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(s->cctx, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(s->cctx, ZSTD_c_dictIDFlag, 0);
    ZSTD_CCtx_setParameter(s->cctx, ZSTD_c_format, ZSTD_f_zstd1_magicless);
    s->dctx = ZSTD_createDCtx();
    ZSTD_DCtx_setParameter(s->dctx, ZSTD_d_format, ZSTD_f_zstd1_magicless);
    s->cdict = ZSTD_createCDict(dictionary, dictionary_length, 1);
    s->ddict = ZSTD_createDDict(dictionary, dictionary_length);
    s->body = malloc(BUFFER_BYTES);
    s->compressed = malloc(BUFFER_BYTES);
    s->opened = malloc(BUFFER_BYTES);
    return s;
}

void sealer_free(sealer_t *s) {
    if (!s) return;
    ZSTD_freeCCtx(s->cctx);
    ZSTD_freeDCtx(s->dctx);
    ZSTD_freeCDict(s->cdict);
    ZSTD_freeDDict(s->ddict);
    free(s->body);
    free(s->compressed);
    free(s->opened);
    sodium_memzero(s->key, sizeof s->key);
    free(s);
}

void sealer_random_bytes(uint8_t *bytes, size_t count) {
    if (sodium_init() < 0) abort();
    randombytes_buf(bytes, count);
}

static void derive_nonce(const uint8_t *base, uint64_t position, uint8_t *nonce) {
    memcpy(nonce, base, 24);
    for (int i = 0; i < 8; i++) nonce[16 + i] ^= (uint8_t)(position >> (56 - 8 * i));
}

/* SHA-256 from OpenSSL's libcrypto, as EventLog uses (the CPU's SHA extensions). */
static void leaf_hash(uint64_t position, const uint8_t *record, size_t length, const uint8_t *nonce, uint8_t *out) {
    uint8_t digest[32], pos[8], zero = 0;
    SHA256_CTX state;
    SHA256_Init(&state);
    SHA256_Update(&state, nonce, 24);
    SHA256_Update(&state, record + SEALING_HEADER_BYTES + 32, length - SEALING_HEADER_BYTES - 32);
    SHA256_Final(digest, &state);
    SHA256_Init(&state);
    SHA256_Update(&state, &zero, 1);
    put_be64(pos, position);
    SHA256_Update(&state, pos, 8);
    SHA256_Update(&state, record, SEALING_HEADER_BYTES);
    SHA256_Update(&state, digest, 32);
    SHA256_Final(out, &state);
}

static void additional_data(const sealer_t *s, uint64_t position, const uint8_t *header, uint8_t *ad) {
    memcpy(ad, s->store_id, 16);
    put_be64(ad + 16, position);
    memcpy(ad + 24, header, SEALING_HEADER_BYTES);
}

size_t sealer_seal(sealer_t *s, uint64_t position, const uint8_t base[24], const uint8_t stream[16],
                   uint64_t version, const char *type, const uint8_t *data, size_t length, uint8_t *record,
                   size_t capacity) {
    size_t type_length = strlen(type);
    size_t body_length = 1 + type_length + length;
    if (type_length > 255 || body_length > BUFFER_BYTES || body_length + SEALING_OVERHEAD > capacity) return 0;
    s->body[0] = (uint8_t)type_length;
    memcpy(s->body + 1, type, type_length);
    memcpy(s->body + 1 + type_length, data, length);
    int with_dictionary = body_length <= 1024;
    ZSTD_CCtx_refCDict(s->cctx, with_dictionary ? s->cdict : NULL);
    size_t clen = ZSTD_compress2(s->cctx, s->compressed, BUFFER_BYTES, s->body, body_length);
    uint8_t codec = with_dictionary ? 2 : 1;
    const uint8_t *plain = s->compressed;
    if (ZSTD_isError(clen) || clen >= body_length) { codec = 0; clen = body_length; plain = s->body; }

    uint8_t *h = record, nonce[24], ad[84];
    h[0] = 1; h[1] = codec; h[2] = 0; h[3] = codec == 2 ? 1 : 0;
    put_be32(h + 4, 2);
    memcpy(h + 8, stream, 16);
    put_be64(h + 24, version);
    put_be64(h + 32, 1795317394202ULL);
    put_be64(h + 40, position); /* an event id: any unique 16 bytes */
    put_be64(h + 48, 0xe7e47);
    put_be32(h + 56, (uint32_t)body_length);
    derive_nonce(base, position, nonce);
    additional_data(s, position, record, ad);
    unsigned long long written;
    crypto_aead_xchacha20poly1305_ietf_encrypt(record + SEALING_HEADER_BYTES + 32, &written, plain, clen, ad,
                                               sizeof ad, NULL, nonce, s->key);
    size_t record_length = SEALING_HEADER_BYTES + 32 + written;
    leaf_hash(position, record, record_length, nonce, record + SEALING_HEADER_BYTES);
    return record_length;
}

long sealer_open(sealer_t *s, uint64_t position, const uint8_t base[24], const uint8_t *record, size_t length,
                 const uint8_t **body) {
    if (length < SEALING_OVERHEAD || length - SEALING_HEADER_BYTES - 32 > BUFFER_BYTES) return -1;
    uint8_t nonce[24], ad[84], leaf[32];
    derive_nonce(base, position, nonce);
    leaf_hash(position, record, length, nonce, leaf);
    if (memcmp(leaf, record + SEALING_HEADER_BYTES, 32) != 0) return -1;
    additional_data(s, position, record, ad);
    unsigned long long olen;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(s->opened, &olen, NULL, record + SEALING_HEADER_BYTES + 32,
                                                   length - SEALING_HEADER_BYTES - 32, ad, sizeof ad, nonce, s->key) != 0)
        return -1;
    uint32_t body_length = (uint32_t)record[56] << 24 | (uint32_t)record[57] << 16 | (uint32_t)record[58] << 8 | record[59];
    if (body_length > BUFFER_BYTES) return -1;
    size_t n = olen;
    *body = s->opened;
    if (record[1] == 2) {
        n = ZSTD_decompress_usingDDict(s->dctx, s->body, body_length, s->opened, olen, s->ddict);
        *body = s->body;
    } else if (record[1] == 1) {
        n = ZSTD_decompressDCtx(s->dctx, s->body, body_length, s->opened, olen);
        *body = s->body;
    }
    if (ZSTD_isError(n) || n != body_length) return -1;
    return (long)n;
}
