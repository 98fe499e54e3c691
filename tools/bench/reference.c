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
 * The sealing itself is Sources/CSealing (shared with the SQLite peer).
 *
 *   cc -O2 -ISources/CSealing/include -o reference reference.c Sources/CSealing/sealing.c \
 *       $(pkg-config --cflags --libs lmdb libsodium libzstd libcrypto)
 *   ./reference DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS
 */
#include "sealing.h"
#include <lmdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#define CHECK(x) do { int rc_ = (x); if (rc_) { fprintf(stderr, "%s: %s\n", #x, mdb_strerror(rc_)); exit(1); } } while (0)

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
static sealer_t *sealer;

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
                       unsigned env_flags, size_t per_txn) {
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

    size_t capacity = 1 << 21;
    uint8_t *record = malloc(capacity);
    uint8_t base[24];
    uint64_t raw = 0;

    double started = now();
    for (size_t first = 0; first < count; first += per_txn) {
        size_t n = count - first < per_txn ? count - first : per_txn;
        sealer_random_bytes(base, sizeof base);
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
            size_t length = sealer_seal(sealer, position, base, stream, i, type, r->bytes, r->length, record, capacity);
            if (length == 0) { fprintf(stderr, "record %llu does not fit\n", (unsigned long long)position); exit(1); }
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
    free(record);
    mdb_env_close(env);
}

static uint64_t get_be64(const void *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | ((const uint8_t *)p)[i];
    return v;
}

static void scan_all(const char *name, const char *path) {
    MDB_env *env = open_env(path, MDB_RDONLY);
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
        if (mdb_cursor_get(base_cursor, &nk, &nv, MDB_NEXT) == 0) next_base = get_be64(nk.mv_data);
        size_t count = 0, bytes = 0;
        double started = now();
        for (int rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
            uint64_t position = get_be64(k.mv_data);
            if (position >= next_base) { /* the next transaction's base */
                base = nv.mv_data;
                next_base = UINT64_MAX;
                if (mdb_cursor_get(base_cursor, &nk, &nv, MDB_NEXT) == 0) next_base = get_be64(nk.mv_data);
            }
            const uint8_t *body;
            long n = sealer_open(sealer, position, base, v.mv_data, v.mv_size, &body);
            if (n < 0) { fprintf(stderr, "record %llu does not open\n", (unsigned long long)position); exit(2); }
            bytes += (size_t)n;
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
    mdb_env_close(env);
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: reference DATA_DIR WORK_DIR SMALL_EVENTS CHUNKS\n"); return 64; }
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
    uint8_t data_key[32];
    sealer_random_bytes(data_key, sizeof data_key);
    sealer = sealer_create(data_key, store_id, dict, dict_length);
    if (!sealer) return 1;

    snprintf(store, sizeof store, "%s/c-small.store", argv[2]);
    append_all("small", store, records, small_count, "bench", MDB_NOSYNC, 1000);
    scan_all("small", store);

    size_t speech_length;
    snprintf(path, sizeof path, "%s/speech.raw", argv[1]);
    uint8_t *speech = read_file(path, &speech_length);
    size_t usable = speech_length / 3200 * 3200;
    record_t *chunks = calloc(chunk_count, sizeof(record_t));
    for (size_t i = 0; i < chunk_count; i++) chunks[i] = (record_t){speech + (i * 3200) % usable, 3200};
    snprintf(store, sizeof store, "%s/c-pcm.store", argv[2]);
    append_all("pcm", store, chunks, chunk_count, "recording.chunk", MDB_NOSYNC, 1000);
    scan_all("pcm", store);

    /* The baseline group commit must beat: one durable transaction per event. */
    snprintf(store, sizeof store, "%s/c-durable.store", argv[2]);
    append_all("durable-one-per-txn", store, records, small_count < 3000 ? small_count : 3000, "bench", 0, 1);
    return 0;
}
