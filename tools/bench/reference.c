/*
 * The C reference for tools/bench: the same pipeline as EventLog, on the same records, with the same
 * libraries, single-threaded and without any abstraction: the physical limit to compare against.
 *
 * Per record: body = type length ‖ type ‖ data; magicless zstd level 1 (with the 16 KB dictionary for
 * bodies up to 1024 bytes); XChaCha20-Poly1305 with the nonce derived from one random base per
 * transaction and the same 84 bytes of associated data; the RFC 6962 leaf hash (two SHA-256);
 * MDB_APPEND into `events`, plus the nonce base, one stream row and one run-index entry per batch of
 * 1,000. Reading: cursor scan, nonce base lookup, leaf check, decrypt, decompress.
 *
 *   cc -O2 -o reference reference.c $(pkg-config --cflags --libs lmdb libsodium libzstd libcrypto)
 *   ./reference DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS
 */
#define ZSTD_STATIC_LINKING_ONLY
#define OPENSSL_SUPPRESS_DEPRECATED
#include <lmdb.h>
#include <openssl/sha.h>
#include <sodium.h>
#include <zstd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#define CHECK(x) do { int rc_ = (x); if (rc_) { fprintf(stderr, "%s: %s\n", #x, mdb_strerror(rc_)); exit(1); } } while (0)
#define HEADER 60


typedef struct { uint8_t *bytes; size_t length; } record_t;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static uint8_t *read_file(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    *length = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(*length);
    if (fread(data, 1, *length, f) != *length) { perror(path); exit(1); }
    fclose(f);
    return data;
}

static void put_be64(uint8_t *p, uint64_t v) { for (int i = 7; i >= 0; i--) { p[i] = v & 0xff; v >>= 8; } }
static void put_be32(uint8_t *p, uint32_t v) { for (int i = 3; i >= 0; i--) { p[i] = v & 0xff; v >>= 8; } }

static const uint8_t store_id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static uint8_t data_key[32];

static void derive_nonce(const uint8_t *base, uint64_t position, uint8_t *nonce) {
    memcpy(nonce, base, 24);
    for (int i = 0; i < 8; i++) nonce[16 + i] ^= (uint8_t)(position >> (56 - 8 * i));
}

/* SHA-256 from OpenSSL's libcrypto, as EventLog uses (the CPU's SHA extensions). */
static void leaf_hash(uint64_t position, const uint8_t *record, size_t length, const uint8_t *nonce, uint8_t *out) {
    uint8_t digest[32], pos[8];
    SHA256_CTX state;
    SHA256_Init(&state);
    SHA256_Update(&state, nonce, 24);
    SHA256_Update(&state, record + HEADER + 32, length - HEADER - 32);
    SHA256_Final(digest, &state);
    SHA256_Init(&state);
    uint8_t zero = 0;
    SHA256_Update(&state, &zero, 1);
    put_be64(pos, position);
    SHA256_Update(&state, pos, 8);
    SHA256_Update(&state, record, HEADER);
    SHA256_Update(&state, digest, 32);
    SHA256_Final(out, &state);
}

static void additional_data(uint64_t position, const uint8_t *header, uint8_t *ad) {
    memcpy(ad, store_id, 16);
    put_be64(ad + 16, position);
    memcpy(ad + 24, header, HEADER);
}

static MDB_env *open_env(const char *path, unsigned flags) {
    MDB_env *env;
    mkdir(path, 0700);
    CHECK(mdb_env_create(&env));
    CHECK(mdb_env_set_maxdbs(env, 8));
    CHECK(mdb_env_set_mapsize(env, (size_t)8 << 30));
    CHECK(mdb_env_open(env, path, flags | MDB_NOTLS, 0600));
    return env;
}

static uint64_t dir_bytes(const char *path) {
    char file[4096];
    struct stat st;
    snprintf(file, sizeof file, "%s/data.mdb", path);
    return stat(file, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Appends all records, `per_txn` per transaction; one stream per transaction. */
static void append_all(const char *name, const char *path, record_t *records, size_t count, const char *type,
                       ZSTD_CDict *cdict, unsigned env_flags, size_t per_txn) {
    char command[4200];
    snprintf(command, sizeof command, "rm -rf '%s'", path);
    if (system(command) != 0) exit(1);
    MDB_env *env = open_env(path, env_flags);
    MDB_txn *txn;
    MDB_dbi events, streams, runs, bases;
    CHECK(mdb_txn_begin(env, NULL, 0, &txn));
    CHECK(mdb_dbi_open(txn, "events", MDB_CREATE, &events));
    CHECK(mdb_dbi_open(txn, "streams", MDB_CREATE, &streams));
    CHECK(mdb_dbi_open(txn, "stream-runs", MDB_CREATE, &runs));
    CHECK(mdb_dbi_open(txn, "nonce-bases", MDB_CREATE, &bases));
    CHECK(mdb_txn_commit(txn));

    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_format, ZSTD_f_zstd1_magicless);
    size_t type_length = strlen(type);
    size_t capacity = 1 << 20;
    uint8_t *body = malloc(capacity), *compressed = malloc(capacity), *record = malloc(capacity);
    uint8_t base[24], nonce[24], ad[84];
    uint64_t raw = 0;

    double started = now();
    for (size_t first = 0; first < count; first += per_txn) {
        size_t n = count - first < per_txn ? count - first : per_txn;
        randombytes_buf(base, sizeof base);
        uint8_t stream[16];
        put_be64(stream, first);
        put_be64(stream + 8, 0x5eed);
        CHECK(mdb_txn_begin(env, NULL, 0, &txn));
        uint8_t base_key[8];
        put_be64(base_key, first);
        MDB_val bk = {8, base_key}, bv = {24, base};
        CHECK(mdb_put(txn, bases, &bk, &bv, MDB_APPEND));
        for (size_t i = 0; i < n; i++) {
            uint64_t position = first + i;
            record_t *r = &records[position];
            raw += r->length;
            body[0] = (uint8_t)type_length;
            memcpy(body + 1, type, type_length);
            memcpy(body + 1 + type_length, r->bytes, r->length);
            size_t body_length = 1 + type_length + r->length;
            ZSTD_CCtx_refCDict(cctx, body_length <= 1024 ? cdict : NULL);
            size_t clen = ZSTD_compress2(cctx, compressed, capacity, body, body_length);
            uint8_t codec = body_length <= 1024 ? 2 : 1;
            const uint8_t *plain = compressed;
            if (ZSTD_isError(clen) || clen >= body_length) { codec = 0; clen = body_length; plain = body; }
            uint8_t *h = record;
            h[0] = 1; h[1] = codec; h[2] = 0; h[3] = codec == 2 ? 1 : 0;
            put_be32(h + 4, 2);
            memcpy(h + 8, stream, 16);
            put_be64(h + 24, i);
            put_be64(h + 32, 1795317394202ULL);
            put_be64(h + 40, position); /* an event id: any unique 16 bytes */
            put_be64(h + 48, 0xe7e47);
            put_be32(h + 56, (uint32_t)body_length);
            derive_nonce(base, position, nonce);
            additional_data(position, record, ad);
            unsigned long long written;
            crypto_aead_xchacha20poly1305_ietf_encrypt(record + HEADER + 32, &written, plain, clen, ad, sizeof ad,
                                                       NULL, nonce, data_key);
            size_t length = HEADER + 32 + written;
            leaf_hash(position, record, length, nonce, record + HEADER);
            uint8_t key[8];
            put_be64(key, position);
            MDB_val k = {8, key}, v = {length, record};
            CHECK(mdb_put(txn, events, &k, &v, MDB_APPEND));
        }
        uint8_t row[36] = {0}, run_key[24], run_value[12];
        put_be64(row, n);
        MDB_val sk = {16, stream}, sv = {36, row};
        CHECK(mdb_put(txn, streams, &sk, &sv, 0));
        memcpy(run_key, stream, 16);
        put_be64(run_key + 16, 0);
        put_be64(run_value, first);
        put_be32(run_value + 8, (uint32_t)n);
        MDB_val rk = {24, run_key}, rv = {12, run_value};
        CHECK(mdb_put(txn, runs, &rk, &rv, 0));
        CHECK(mdb_txn_commit(txn));
    }
    CHECK(mdb_env_sync(env, 1));
    double elapsed = now() - started;
    printf("{\"scenario\":\"append-%s\",\"events\":%zu,\"seconds\":%.4f,\"per_second\":%.1f,\"raw_bytes\":%llu,\"bytes_on_disk\":%llu}\n",
           name, count, elapsed, count / elapsed, (unsigned long long)raw, (unsigned long long)dir_bytes(path));
    fflush(stdout);
    ZSTD_freeCCtx(cctx);
    free(body); free(compressed); free(record);
    mdb_env_close(env);
}

static void scan_all(const char *name, const char *path, ZSTD_DDict *ddict) {
    MDB_env *env = open_env(path, MDB_RDONLY);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    ZSTD_DCtx_setParameter(dctx, ZSTD_d_format, ZSTD_f_zstd1_magicless);
    uint8_t *opened = malloc(1 << 20), *body = malloc(1 << 20), ad[84], leaf[32], nonce[24];
    for (int pass = 0; pass < 2; pass++) {
        MDB_txn *txn;
        MDB_dbi events, bases;
        MDB_cursor *cursor, *base_cursor;
        CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
        CHECK(mdb_dbi_open(txn, "events", 0, &events));
        CHECK(mdb_dbi_open(txn, "nonce-bases", 0, &bases));
        CHECK(mdb_cursor_open(txn, events, &cursor));
        CHECK(mdb_cursor_open(txn, bases, &base_cursor));
        MDB_val k, v, bk, bv, nk, nv;
        CHECK(mdb_cursor_get(base_cursor, &bk, &bv, MDB_FIRST));
        uint64_t next_base = UINT64_MAX;
        const uint8_t *base = bv.mv_data;
        if (mdb_cursor_get(base_cursor, &nk, &nv, MDB_NEXT) == 0) {
            next_base = 0;
            for (int i = 0; i < 8; i++) next_base = next_base << 8 | ((uint8_t *)nk.mv_data)[i];
        }
        size_t count = 0, bytes = 0;
        double started = now();
        for (int rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
            const uint8_t *record = v.mv_data;
            uint64_t position = 0;
            for (int i = 0; i < 8; i++) position = position << 8 | ((uint8_t *)k.mv_data)[i];
            if (position >= next_base) { /* the next transaction's base */
                base = nv.mv_data;
                next_base = UINT64_MAX;
                if (mdb_cursor_get(base_cursor, &nk, &nv, MDB_NEXT) == 0) {
                    next_base = 0;
                    for (int i = 0; i < 8; i++) next_base = next_base << 8 | ((uint8_t *)nk.mv_data)[i];
                }
            }
            derive_nonce(base, position, nonce);
            leaf_hash(position, record, v.mv_size, nonce, leaf);
            if (memcmp(leaf, record + HEADER, 32) != 0) { fprintf(stderr, "leaf mismatch at %llu\n", (unsigned long long)position); exit(2); }
            additional_data(position, record, ad);
            unsigned long long olen;
            if (crypto_aead_xchacha20poly1305_ietf_decrypt(opened, &olen, NULL, record + HEADER + 32, v.mv_size - HEADER - 32,
                                                           ad, sizeof ad, nonce, data_key) != 0) {
                fprintf(stderr, "record %llu does not authenticate\n", (unsigned long long)position);
                exit(2);
            }
            uint32_t body_length = (uint32_t)record[56] << 24 | (uint32_t)record[57] << 16 | (uint32_t)record[58] << 8 | record[59];
            size_t n = olen;
            if (record[1] == 2) n = ZSTD_decompress_usingDDict(dctx, body, body_length, opened, olen, ddict);
            else if (record[1] == 1) n = ZSTD_decompressDCtx(dctx, body, body_length, opened, olen);
            if (ZSTD_isError(n) || n != body_length) { fprintf(stderr, "record does not decompress\n"); exit(2); }
            bytes += n;
            count++;
        }
        double elapsed = now() - started;
        printf("{\"scenario\":\"scan-%s\",\"pass\":\"%s\",\"events\":%zu,\"seconds\":%.4f,\"per_second\":%.1f}\n",
               name, pass ? "warm" : "first", count, elapsed, count / elapsed);
        fflush(stdout);
        mdb_cursor_close(cursor);
        mdb_cursor_close(base_cursor);
        mdb_txn_abort(txn);
    }
    ZSTD_freeDCtx(dctx);
    free(opened); free(body);
    mdb_env_close(env);
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: reference DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS\n"); return 64; }
    if (sodium_init() < 0) return 1;
    randombytes_buf(data_key, sizeof data_key);
    char path[4096], store[4096];
    size_t small_count = strtoul(argv[3], NULL, 10), chunk_count = strtoul(argv[4], NULL, 10);

    size_t length;
    snprintf(path, sizeof path, "%s/small.bin", argv[1]);
    uint8_t *small = read_file(path, &length);
    record_t *records = calloc(small_count, sizeof(record_t));
    size_t n = 0;
    for (size_t offset = 0; offset + 4 <= length && n < small_count; n++) {
        uint32_t l = small[offset] | small[offset + 1] << 8 | small[offset + 2] << 16 | (uint32_t)small[offset + 3] << 24;
        records[n] = (record_t){small + offset + 4, l};
        offset += 4 + l;
    }
    small_count = n;

    size_t dict_length;
    snprintf(path, sizeof path, "%s/dict.bin", argv[1]);
    uint8_t *dict = read_file(path, &dict_length);
    ZSTD_CDict *cdict = ZSTD_createCDict(dict, dict_length, 1);
    ZSTD_DDict *ddict = ZSTD_createDDict(dict, dict_length);

    snprintf(store, sizeof store, "%s/c-small.store", argv[2]);
    append_all("small", store, records, small_count, "bench", cdict, MDB_NOSYNC, 1000);
    scan_all("small", store, ddict);

    size_t speech_length;
    snprintf(path, sizeof path, "%s/speech.raw", argv[1]);
    uint8_t *speech = read_file(path, &speech_length);
    size_t usable = speech_length / 3200 * 3200;
    record_t *chunks = calloc(chunk_count, sizeof(record_t));
    for (size_t i = 0; i < chunk_count; i++) chunks[i] = (record_t){speech + (i * 3200) % usable, 3200};
    snprintf(store, sizeof store, "%s/c-pcm.store", argv[2]);
    append_all("pcm", store, chunks, chunk_count, "recording.chunk", cdict, MDB_NOSYNC, 1000);
    scan_all("pcm", store, ddict);

    /* The baseline group commit must beat: one durable transaction per event. */
    snprintf(store, sizeof store, "%s/c-durable.store", argv[2]);
    append_all("durable-one-per-txn", store, records, small_count < 3000 ? small_count : 3000, "bench", cdict, 0, 1);
    return 0;
}
