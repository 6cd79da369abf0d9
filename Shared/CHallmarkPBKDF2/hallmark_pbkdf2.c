/* PBKDF2-HMAC-SHA256 driver: HMAC key precomputation, the first iteration (which hashes
 * the salt), CPU dispatch and batching. The hot loop lives in sha256_portable.c and
 * sha256_shani.c. */
#include "hallmark_pbkdf2.h"
#include "sha256_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__linux__) || defined(__APPLE__)
#include <sys/random.h>
#endif
#include <unistd.h>

typedef void (*compress_fn)(uint32_t state[8], const uint32_t w[16]);

static const uint32_t sha256_iv[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

int hallmark_pbkdf2_cpu_has_sha_ni(void) {
#if defined(HALLMARK_HAVE_SHANI_KERNEL)
    static int cached = -1; /* benign: every thread computes the same value */
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v >= 0) return v;
    unsigned a, b, c, d;
    int has = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 19)) && (c & (1u << 9))) {
        if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29))) has = 1;
    }
    __atomic_store_n(&cached, has, __ATOMIC_RELAXED);
    return has;
#else
    return 0;
#endif
}

/* Resolves `impl` to 1 (SHA-NI) or 0 (portable); -1 when SHA-NI is demanded but absent. */
static int use_shani(hallmark_pbkdf2_impl impl) {
    switch (impl) {
    case HALLMARK_PBKDF2_IMPL_PORTABLE: return 0;
    case HALLMARK_PBKDF2_IMPL_SHANI: return hallmark_pbkdf2_cpu_has_sha_ni() ? 1 : -1;
    case HALLMARK_PBKDF2_IMPL_AUTO: return hallmark_pbkdf2_cpu_has_sha_ni();
    }
    return -1;
}

static compress_fn compressor(int shani) {
#if defined(HALLMARK_HAVE_SHANI_KERNEL)
    if (shani) return hallmark_sha256_compress_shani;
#endif
    (void)shani;
    return hallmark_sha256_compress_portable;
}

/* Minimal streaming SHA-256, used for key hashing and the salt-dependent first iteration. */
typedef struct {
    uint32_t state[8];
    uint8_t buf[64];
    size_t buflen;
    uint64_t total;
    compress_fn compress;
} sha256_ctx;

static void block_words(const uint8_t *p, uint32_t w[16]) {
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
}

static void sha_init(sha256_ctx *c, const uint32_t state[8], uint64_t already, compress_fn f) {
    memcpy(c->state, state, sizeof c->state);
    c->buflen = 0;
    c->total = already;
    c->compress = f;
}

static void sha_update(sha256_ctx *c, const uint8_t *p, size_t n) {
    uint32_t w[16];
    c->total += n;
    while (n > 0) {
        size_t take = 64 - c->buflen;
        if (take > n) take = n;
        memcpy(c->buf + c->buflen, p, take);
        c->buflen += take; p += take; n -= take;
        if (c->buflen == 64) {
            block_words(c->buf, w);
            c->compress(c->state, w);
            c->buflen = 0;
        }
    }
}

static void sha_final_words(sha256_ctx *c, uint32_t out[8]) {
    uint64_t bits = c->total * 8;
    uint8_t pad[72] = {0x80};
    size_t padlen = (c->buflen < 56) ? 56 - c->buflen : 120 - c->buflen;
    for (int i = 0; i < 8; i++) pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
    sha_update(c, pad, padlen + 8);
    memcpy(out, c->state, 32);
}

static void words_to_bytes(const uint32_t w[8], uint8_t out[32]) {
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(w[i] >> 24); out[4 * i + 1] = (uint8_t)(w[i] >> 16);
        out[4 * i + 2] = (uint8_t)(w[i] >> 8); out[4 * i + 3] = (uint8_t)w[i];
    }
}

static void hmac_key_setup(hallmark_hmac_key *k, const uint8_t *pw, size_t pwlen, compress_fn f) {
    uint8_t block[64] = {0};
    if (pwlen > 64) {
        sha256_ctx c;
        uint32_t d[8];
        sha_init(&c, sha256_iv, 0, f);
        sha_update(&c, pw, pwlen);
        sha_final_words(&c, d);
        words_to_bytes(d, block);
    } else if (pwlen > 0) {
        memcpy(block, pw, pwlen);
    }
    uint8_t x[64];
    uint32_t w[16];
    for (int i = 0; i < 64; i++) x[i] = block[i] ^ 0x36;
    block_words(x, w);
    memcpy(k->inner, sha256_iv, 32);
    f(k->inner, w);
    for (int i = 0; i < 64; i++) x[i] = block[i] ^ 0x5c;
    block_words(x, w);
    memcpy(k->outer, sha256_iv, 32);
    f(k->outer, w);
    memset(block, 0, sizeof block);
    memset(x, 0, sizeof x);
}

/* U1 = HMAC(P, S || INT(block)) in native words. */
static void first_iteration(const hallmark_hmac_key *k, const uint8_t *salt, size_t saltlen,
                            uint32_t block, compress_fn f, uint32_t u[8]) {
    sha256_ctx c;
    uint8_t be[4] = {(uint8_t)(block >> 24), (uint8_t)(block >> 16), (uint8_t)(block >> 8), (uint8_t)block};
    uint32_t inner[8];
    uint8_t inner_bytes[32];
    sha_init(&c, k->inner, 64, f);
    if (saltlen) sha_update(&c, salt, saltlen);
    sha_update(&c, be, 4);
    sha_final_words(&c, inner);
    words_to_bytes(inner, inner_bytes);
    sha_init(&c, k->outer, 64, f);
    sha_update(&c, inner_bytes, 32);
    sha_final_words(&c, u);
}

typedef struct {
    const hallmark_hmac_key *key;
    uint32_t u[8];
    uint32_t t[8];
    uint32_t rounds;  /* iterations still to run (c - 1) */
    uint8_t *out;     /* where this block's bytes go */
    size_t out_len;   /* 1...32 */
} block_task;

static int job_valid(const hallmark_pbkdf2_job *j) {
    if (j->iterations == 0 || j->out_len == 0 || j->out == NULL) return 0;
    if (j->password == NULL && j->password_len) return 0;
    if (j->salt == NULL && j->salt_len) return 0;
    /* RFC 8018 limit: dkLen <= (2^32 - 1) * hLen. */
    if ((uint64_t)j->out_len > (uint64_t)0xffffffffu * 32) return 0;
    return 1;
}

static void run_single(block_task *b, int shani) {
#if defined(HALLMARK_HAVE_SHANI_KERNEL)
    if (shani) { hallmark_pbkdf2_iterate_shani(b->key, b->u, b->t, b->rounds); b->rounds = 0; return; }
#endif
    (void)shani;
    hallmark_pbkdf2_iterate_portable(b->key, b->u, b->t, b->rounds);
    b->rounds = 0;
}

static void run_pair(block_task *a, block_task *b, int shani) {
#if defined(HALLMARK_HAVE_SHANI_KERNEL)
    if (shani) {
        uint32_t common = a->rounds < b->rounds ? a->rounds : b->rounds;
        hallmark_pbkdf2_iterate_shani_x2(a->key, a->u, a->t, b->key, b->u, b->t, common);
        a->rounds -= common;
        b->rounds -= common;
    }
#endif
    run_single(a, shani);
    run_single(b, shani);
}

static void finish(block_task *b) {
    uint8_t bytes[32];
    words_to_bytes(b->t, bytes);
    memcpy(b->out, bytes, b->out_len);
    memset(bytes, 0, sizeof bytes);
}

int hallmark_pbkdf2_sha256_batch(const hallmark_pbkdf2_job *jobs, size_t count, hallmark_pbkdf2_impl impl) {
    int shani = use_shani(impl);
    if (shani < 0 || (count && jobs == NULL)) return -1;
    size_t ntasks = 0;
    for (size_t i = 0; i < count; i++) {
        if (!job_valid(&jobs[i])) return -1;
        ntasks += (jobs[i].out_len + 31) / 32;
    }
    if (count == 0) return 0;
    compress_fn f = compressor(shani);
    hallmark_hmac_key *keys = calloc(count, sizeof *keys);
    block_task *tasks = calloc(ntasks, sizeof *tasks);
    if (!keys || !tasks) { free(keys); free(tasks); return -1; }

    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        const hallmark_pbkdf2_job *j = &jobs[i];
        hmac_key_setup(&keys[i], j->password, j->password_len, f);
        size_t blocks = (j->out_len + 31) / 32;
        for (size_t b = 0; b < blocks; b++, n++) {
            block_task *t = &tasks[n];
            t->key = &keys[i];
            first_iteration(&keys[i], j->salt, j->salt_len, (uint32_t)(b + 1), f, t->u);
            memcpy(t->t, t->u, sizeof t->t);
            t->rounds = j->iterations - 1;
            t->out = j->out + 32 * b;
            t->out_len = (b + 1 == blocks) ? j->out_len - 32 * b : 32;
        }
    }
    size_t i = 0;
    for (; i + 1 < ntasks; i += 2) run_pair(&tasks[i], &tasks[i + 1], shani);
    if (i < ntasks) run_single(&tasks[i], shani);
    for (i = 0; i < ntasks; i++) finish(&tasks[i]);

    memset(keys, 0, count * sizeof *keys);
    memset(tasks, 0, ntasks * sizeof *tasks);
    free(keys);
    free(tasks);
    return 0;
}

int hallmark_pbkdf2_sha256(const uint8_t *password, size_t password_len, const uint8_t *salt,
                           size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len,
                           hallmark_pbkdf2_impl impl) {
    hallmark_pbkdf2_job job = {password, password_len, salt, salt_len, iterations, out, out_len};
    return hallmark_pbkdf2_sha256_batch(&job, 1, impl);
}

int hallmark_random_bytes(uint8_t *buf, size_t len) {
    size_t done = 0;
    while (done < len) {
#if defined(__linux__)
        ssize_t r = getrandom(buf + done, len - done, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        done += (size_t)r;
#else
        size_t take = len - done > 256 ? 256 : len - done;
        if (getentropy(buf + done, take) != 0) return -1;
        done += take;
#endif
    }
    return 0;
}

/* HMAC with a precomputed key over up to three concatenated pieces (HKDF's T(i-1) || info || i). */
static void hmac_pieces(const hallmark_hmac_key *k, const uint8_t *a, size_t an, const uint8_t *b, size_t bn,
                        const uint8_t *c3, size_t cn, compress_fn f, uint8_t out[32]) {
    sha256_ctx c;
    uint32_t w[8];
    uint8_t inner[32];
    sha_init(&c, k->inner, 64, f);
    if (an) sha_update(&c, a, an);
    if (bn) sha_update(&c, b, bn);
    if (cn) sha_update(&c, c3, cn);
    sha_final_words(&c, w);
    words_to_bytes(w, inner);
    sha_init(&c, k->outer, 64, f);
    sha_update(&c, inner, 32);
    sha_final_words(&c, w);
    words_to_bytes(w, out);
    memset(inner, 0, sizeof inner);
}

void hallmark_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t data_len,
                          uint8_t out[32]) {
    compress_fn f = compressor(hallmark_pbkdf2_cpu_has_sha_ni());
    hallmark_hmac_key k;
    hmac_key_setup(&k, key, key_len, f);
    hmac_pieces(&k, data, data_len, NULL, 0, NULL, 0, f, out);
    memset(&k, 0, sizeof k);
}

/* The public prepared key is the internal one's two states, in the same order. */
_Static_assert(sizeof(hallmark_hmac_prepared) == sizeof(hallmark_hmac_key), "prepared key layout");

void hallmark_hmac_sha256_prepare(const uint8_t *key, size_t key_len, hallmark_hmac_prepared *out) {
    hallmark_hmac_key k;
    hmac_key_setup(&k, key, key_len, compressor(hallmark_pbkdf2_cpu_has_sha_ni()));
    memcpy(out->state, k.inner, sizeof k.inner);
    memcpy(out->state + 8, k.outer, sizeof k.outer);
    memset(&k, 0, sizeof k);
}

void hallmark_hmac_sha256_prepared(const hallmark_hmac_prepared *key, const uint8_t *a, size_t a_len,
                                   const uint8_t *b, size_t b_len, uint8_t out[32]) {
    hallmark_hmac_key k;
    memcpy(k.inner, key->state, sizeof k.inner);
    memcpy(k.outer, key->state + 8, sizeof k.outer);
    hmac_pieces(&k, a, a_len, b, b_len, NULL, 0, compressor(hallmark_pbkdf2_cpu_has_sha_ni()), out);
    memset(&k, 0, sizeof k);
}

int hallmark_hkdf_sha256(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt, size_t salt_len,
                         const uint8_t *info, size_t info_len, uint8_t *out, size_t out_len) {
    if (out_len == 0 || out_len > 255 * 32 || out == NULL) return -1;
    compress_fn f = compressor(hallmark_pbkdf2_cpu_has_sha_ni());
    hallmark_hmac_key k;
    uint8_t prk[32], t[32];
    /* Extract: PRK = HMAC(salt, IKM); an empty salt is a zero key, as RFC 5869 says. */
    hmac_key_setup(&k, salt, salt_len, f);
    hmac_pieces(&k, ikm, ikm_len, NULL, 0, NULL, 0, f, prk);
    /* Expand: T(i) = HMAC(PRK, T(i-1) || info || i). */
    hmac_key_setup(&k, prk, 32, f);
    size_t done = 0, tlen = 0;
    uint8_t counter = 1;
    while (done < out_len) {
        hmac_pieces(&k, t, tlen, info, info_len, &counter, 1, f, t);
        tlen = 32;
        size_t take = out_len - done < 32 ? out_len - done : 32;
        memcpy(out + done, t, take);
        done += take;
        counter++;
    }
    memset(&k, 0, sizeof k);
    memset(prk, 0, sizeof prk);
    memset(t, 0, sizeof t);
    return 0;
}
