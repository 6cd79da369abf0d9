/* SHA-256 with the x86 SHA extensions. Only this file's functions are compiled for
 * "sha,sse4.1"; the driver calls them after a cpuid check, so the target builds and
 * runs on CPUs without SHA-NI. */
#include "sha256_internal.h"

#if defined(HALLMARK_HAVE_SHANI_KERNEL)
#include <immintrin.h>

#define SHANI_TARGET __attribute__((target("sha,sse4.1")))
#define SHANI_INLINE static inline __attribute__((always_inline, target("sha,sse4.1")))

/* The round constants are shared with the portable path (16-byte aligned for these loads). */
#define KV(j) _mm_load_si128((const __m128i *)&hallmark_sha256_k[4 * (j)])

/* Four rounds j (0...15) on every lane; the message schedule is extended in place,
 * m[l][j % 4] holding W[4j...4j+3]. Lanes are independent, so the CPU overlaps them. */
#define QR(j, DO_MSG2, DO_MSG1)                                                          \
    do {                                                                                 \
        __m128i msg_[2];                                                                 \
        for (int l = 0; l < N; l++) {                                                    \
            msg_[l] = _mm_add_epi32(m[l][(j) & 3], KV(j));                               \
            s1[l] = _mm_sha256rnds2_epu32(s1[l], s0[l], msg_[l]);                        \
        }                                                                                \
        if (DO_MSG2) {                                                                   \
            for (int l = 0; l < N; l++) {                                                \
                __m128i t_ = _mm_alignr_epi8(m[l][(j) & 3], m[l][((j) + 3) & 3], 4);     \
                m[l][((j) + 1) & 3] = _mm_sha256msg2_epu32(                              \
                    _mm_add_epi32(m[l][((j) + 1) & 3], t_), m[l][(j) & 3]);              \
            }                                                                            \
        }                                                                                \
        for (int l = 0; l < N; l++) {                                                    \
            msg_[l] = _mm_shuffle_epi32(msg_[l], 0x0E);                                  \
            s0[l] = _mm_sha256rnds2_epu32(s0[l], s1[l], msg_[l]);                        \
        }                                                                                \
        if (DO_MSG1) {                                                                   \
            for (int l = 0; l < N; l++)                                                  \
                m[l][((j) + 3) & 3] = _mm_sha256msg1_epu32(m[l][((j) + 3) & 3], m[l][(j) & 3]); \
        }                                                                                \
    } while (0)

/* 64 rounds without the final feed-forward addition (the caller knows the start state). */
SHANI_INLINE void rounds_lanes(const int N, __m128i *s0, __m128i *s1, __m128i (*m)[4]) {
    QR(0, 0, 0);  QR(1, 0, 1);  QR(2, 0, 1);  QR(3, 1, 1);
    QR(4, 1, 1);  QR(5, 1, 1);  QR(6, 1, 1);  QR(7, 1, 1);
    QR(8, 1, 1);  QR(9, 1, 1);  QR(10, 1, 1); QR(11, 1, 1);
    QR(12, 1, 1); QR(13, 1, 0); QR(14, 1, 0); QR(15, 0, 0);
}

/* Words [A B C D] [E F G H] <-> the ABEF / CDGH register layout sha256rnds2 uses. */
SHANI_INLINE void from_words(__m128i w0, __m128i w1, __m128i *abef, __m128i *cdgh) {
    __m128i tmp = _mm_shuffle_epi32(w0, 0xB1);
    __m128i hgfe = _mm_shuffle_epi32(w1, 0x1B);
    *abef = _mm_alignr_epi8(tmp, hgfe, 8);
    *cdgh = _mm_blend_epi16(hgfe, tmp, 0xF0);
}

SHANI_INLINE void to_words(__m128i abef, __m128i cdgh, __m128i *w0, __m128i *w1) {
    __m128i tmp = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    *w0 = _mm_blend_epi16(tmp, dchg, 0xF0);
    *w1 = _mm_alignr_epi8(dchg, tmp, 8);
}

SHANI_TARGET void hallmark_sha256_compress_shani(uint32_t state[8], const uint32_t w[16]) {
    const int N = 1;
    __m128i s0[1], s1[1], m[1][4];
    from_words(_mm_loadu_si128((const __m128i *)state), _mm_loadu_si128((const __m128i *)(state + 4)),
               &s0[0], &s1[0]);
    __m128i a0 = s0[0], a1 = s1[0];
    for (int i = 0; i < 4; i++) m[0][i] = _mm_loadu_si128((const __m128i *)(w + 4 * i));
    rounds_lanes(N, s0, s1, m);
    __m128i w0, w1;
    to_words(_mm_add_epi32(s0[0], a0), _mm_add_epi32(s1[0], a1), &w0, &w1);
    _mm_storeu_si128((__m128i *)state, w0);
    _mm_storeu_si128((__m128i *)(state + 4), w1);
}

/* PBKDF2 iterations for N independent blocks. Each iteration is HMAC(U) = two single-block
 * compressions whose message words 8...15 are fixed padding for a 96-byte message. */
SHANI_INLINE void iterate_lanes(const int N, const hallmark_hmac_key *const *keys,
                                uint32_t *const *u, uint32_t *const *t, uint32_t rounds) {
    const __m128i pad2 = _mm_set_epi32(0, 0, 0, (int)0x80000000u);
    const __m128i pad3 = _mm_set_epi32(0x300, 0, 0, 0);
    __m128i ia[2], ib[2], oa[2], ob[2], u0[2], u1[2], t0[2], t1[2];
    for (int l = 0; l < N; l++) {
        from_words(_mm_loadu_si128((const __m128i *)keys[l]->inner),
                   _mm_loadu_si128((const __m128i *)(keys[l]->inner + 4)), &ia[l], &ib[l]);
        from_words(_mm_loadu_si128((const __m128i *)keys[l]->outer),
                   _mm_loadu_si128((const __m128i *)(keys[l]->outer + 4)), &oa[l], &ob[l]);
        u0[l] = _mm_loadu_si128((const __m128i *)u[l]);
        u1[l] = _mm_loadu_si128((const __m128i *)(u[l] + 4));
        t0[l] = _mm_loadu_si128((const __m128i *)t[l]);
        t1[l] = _mm_loadu_si128((const __m128i *)(t[l] + 4));
    }
    for (uint32_t r = 0; r < rounds; r++) {
        __m128i s0[2], s1[2], m[2][4];
        for (int l = 0; l < N; l++) {
            s0[l] = ia[l]; s1[l] = ib[l];
            m[l][0] = u0[l]; m[l][1] = u1[l]; m[l][2] = pad2; m[l][3] = pad3;
        }
        rounds_lanes(N, s0, s1, m);
        for (int l = 0; l < N; l++) {
            to_words(_mm_add_epi32(s0[l], ia[l]), _mm_add_epi32(s1[l], ib[l]), &m[l][0], &m[l][1]);
            m[l][2] = pad2; m[l][3] = pad3;
            s0[l] = oa[l]; s1[l] = ob[l];
        }
        rounds_lanes(N, s0, s1, m);
        for (int l = 0; l < N; l++) {
            to_words(_mm_add_epi32(s0[l], oa[l]), _mm_add_epi32(s1[l], ob[l]), &u0[l], &u1[l]);
            t0[l] = _mm_xor_si128(t0[l], u0[l]);
            t1[l] = _mm_xor_si128(t1[l], u1[l]);
        }
    }
    for (int l = 0; l < N; l++) {
        _mm_storeu_si128((__m128i *)u[l], u0[l]);
        _mm_storeu_si128((__m128i *)(u[l] + 4), u1[l]);
        _mm_storeu_si128((__m128i *)t[l], t0[l]);
        _mm_storeu_si128((__m128i *)(t[l] + 4), t1[l]);
    }
}

SHANI_TARGET void hallmark_pbkdf2_iterate_shani(const hallmark_hmac_key *key, uint32_t u[8],
                                                uint32_t t[8], uint32_t rounds) {
    const hallmark_hmac_key *keys[1] = {key};
    uint32_t *us[1] = {u}, *ts[1] = {t};
    iterate_lanes(1, keys, us, ts, rounds);
}

SHANI_TARGET void hallmark_pbkdf2_iterate_shani_x2(const hallmark_hmac_key *ka, uint32_t ua[8],
                                                   uint32_t ta[8], const hallmark_hmac_key *kb,
                                                   uint32_t ub[8], uint32_t tb[8], uint32_t rounds) {
    const hallmark_hmac_key *keys[2] = {ka, kb};
    uint32_t *us[2] = {ua, ub}, *ts[2] = {ta, tb};
    iterate_lanes(2, keys, us, ts, rounds);
}

#endif
