/* Internal to CHallmarkPBKDF2: SHA-256 block functions shared by the driver and the
 * SHA-NI kernel. Not part of the public header. */
#ifndef HALLMARK_SHA256_INTERNAL_H
#define HALLMARK_SHA256_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* FIPS 180-4 round constants, 16-byte aligned so the SHA-NI kernel can load them as vectors. */
extern const uint32_t hallmark_sha256_k[64] __attribute__((aligned(16)));

/* One compression of a block given as 16 native-endian message words. */
void hallmark_sha256_compress_portable(uint32_t state[8], const uint32_t w[16]);

/* Precomputed HMAC key: SHA-256 state after the ipad block and after the opad block. */
typedef struct {
    uint32_t inner[8];
    uint32_t outer[8];
} hallmark_hmac_key;

/* One PBKDF2 output block in native words: `t` enters holding U1 and leaves holding
 * U1 ^ ... ^ Uc. `u` is U1 too. Runs iterations 2...c. */
void hallmark_pbkdf2_iterate_portable(const hallmark_hmac_key *key, uint32_t u[8],
                                      uint32_t t[8], uint32_t rounds);

#if defined(__x86_64__) || defined(__i386__)
#define HALLMARK_HAVE_SHANI_KERNEL 1
void hallmark_pbkdf2_iterate_shani(const hallmark_hmac_key *key, uint32_t u[8],
                                   uint32_t t[8], uint32_t rounds);
/* Two independent blocks for `rounds` iterations, interleaved. */
void hallmark_pbkdf2_iterate_shani_x2(const hallmark_hmac_key *ka, uint32_t ua[8], uint32_t ta[8],
                                      const hallmark_hmac_key *kb, uint32_t ub[8], uint32_t tb[8],
                                      uint32_t rounds);
void hallmark_sha256_compress_shani(uint32_t state[8], const uint32_t w[16]);
#endif

#endif
