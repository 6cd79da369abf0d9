#ifndef HALLMARK_PBKDF2_H
#define HALLMARK_PBKDF2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fast PBKDF2-HMAC-SHA256 (RFC 8018). The HMAC inner/outer SHA-256 states are computed
 * once per password; each iteration is then two single-block compressions. On x86-64 CPUs
 * with the SHA extensions the compressions use SHA-NI, and independent derivations run
 * two at a time, interleaved, to hide the latency of sha256rnds2. */

/** Which compression implementation to use. */
typedef enum {
    HALLMARK_PBKDF2_IMPL_AUTO = 0,     /* SHA-NI when the CPU has it, otherwise portable */
    HALLMARK_PBKDF2_IMPL_PORTABLE = 1, /* plain C */
    HALLMARK_PBKDF2_IMPL_SHANI = 2     /* SHA-NI; fails when the CPU lacks it */
} hallmark_pbkdf2_impl;

/** One derivation of a batch. `out` receives `out_len` bytes. */
typedef struct {
    const uint8_t *password;
    size_t password_len;
    const uint8_t *salt;
    size_t salt_len;
    uint32_t iterations;
    uint8_t *out;
    size_t out_len;
} hallmark_pbkdf2_job;

/** 1 when this CPU has the SHA extensions (cpuid leaf 7, EBX bit 29) and SSE4.1. */
int hallmark_pbkdf2_cpu_has_sha_ni(void);

/** Derives one key. Returns 0 on success, -1 on bad arguments (iterations 0, out_len 0,
 *  NULL pointers with non-zero lengths) or an unavailable implementation. */
int hallmark_pbkdf2_sha256(const uint8_t *password, size_t password_len,
                           const uint8_t *salt, size_t salt_len,
                           uint32_t iterations, uint8_t *out, size_t out_len,
                           hallmark_pbkdf2_impl impl);

/** Derives `count` keys, interleaving independent output blocks two at a time on the
 *  SHA-NI path. Returns 0 on success, -1 when any job is invalid (no output written then). */
int hallmark_pbkdf2_sha256_batch(const hallmark_pbkdf2_job *jobs, size_t count,
                                 hallmark_pbkdf2_impl impl);

/** HMAC-SHA256 (RFC 2104) of `data` under `key` into `out` (32 bytes), on the same
 *  SHA-256 compressions (SHA-NI when present). */
void hallmark_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t data_len,
                          uint8_t out[32]);

/** An HMAC-SHA256 key prepared once (its inner and outer SHA-256 states), for a caller that
 * MACs many short messages under one key: each then costs two compressions fewer. */
typedef struct {
    uint32_t state[16];
} hallmark_hmac_prepared;

/** Prepares `key` into `out`; the caller zeroes `out` when done with it. */
void hallmark_hmac_sha256_prepare(const uint8_t *key, size_t key_len, hallmark_hmac_prepared *out);

/** HMAC-SHA256 of `a` || `b` under a prepared key into `out` (32 bytes). */
void hallmark_hmac_sha256_prepared(const hallmark_hmac_prepared *key, const uint8_t *a, size_t a_len,
                                   const uint8_t *b, size_t b_len, uint8_t out[32]);

/** HKDF-SHA256 (RFC 5869) extract-then-expand; an empty salt is 32 zero bytes. Returns 0,
 *  or -1 when `out_len` is 0 or above 255 * 32. */
int hallmark_hkdf_sha256(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt, size_t salt_len,
                         const uint8_t *info, size_t info_len, uint8_t *out, size_t out_len);

/** Fills `buf` from the kernel CSPRNG (getrandom). Returns 0, or -1 when it is unavailable. */
int hallmark_random_bytes(uint8_t *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
