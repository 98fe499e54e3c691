/*
 * EventLog's record sealing (docs/FORMAT.md "Records"), in C, for the benchmark's C reference and the
 * SQLite peer: the same envelope, so that the peer pays exactly the per-record crypto EventLog pays.
 *
 * Sealing a body (type length ‖ type ‖ data): magicless zstd level 1 (with the dictionary for bodies of
 * up to 1,024 bytes, stored raw when that does not shrink it); a 60-byte header; XChaCha20-Poly1305
 * with the nonce derived from the transaction's 24-byte base and the position, and 84 bytes of
 * associated data (store id ‖ position ‖ header); the RFC 6962 leaf hash over position, header, nonce
 * and ciphertext. Opening checks the leaf, decrypts and decompresses.
 */
#ifndef SESSIONSTORE_BENCH_SEALING_H
#define SESSIONSTORE_BENCH_SEALING_H
#include <stddef.h>
#include <stdint.h>

#define SEALING_HEADER_BYTES 60
#define SEALING_OVERHEAD (SEALING_HEADER_BYTES + 32 + 16)

typedef struct sealer sealer_t;

/* A sealer for one store: its data key, its 16-byte id and the zstd dictionary. Not thread-safe:
 * one per thread, or use it under the writer's lock. NULL when libsodium cannot start. */
sealer_t *sealer_create(const uint8_t key[32], const uint8_t store_id[16], const uint8_t *dictionary,
                        size_t dictionary_length);
void sealer_free(sealer_t *sealer);

/* `count` random bytes from libsodium (a key, a store id, a transaction's nonce base). */
void sealer_random_bytes(uint8_t *bytes, size_t count);

/* Seals event `data` of `type` at `position` (version `version` of `stream`) into `record`.
 * Returns the record's length, or 0 if it needs more than `capacity` bytes or more than 1 MiB of body. */
size_t sealer_seal(sealer_t *sealer, uint64_t position, const uint8_t base[24], const uint8_t stream[16],
                   uint64_t version, const char *type, const uint8_t *data, size_t length, uint8_t *record,
                   size_t capacity);

/* Opens the record at `position`: leaf check, decryption, decompression. Returns the body's length
 * and points `body` at it (valid until the next call), or -1 if the record is damaged or not this
 * store's. */
long sealer_open(sealer_t *sealer, uint64_t position, const uint8_t base[24], const uint8_t *record, size_t length,
                 const uint8_t **body);

#endif
