/* stream.c: Philox4x32-10 and the draws built on it (stream.h). */
#include "stream.h"

#include <math.h>

#define HG_PI 3.14159265358979323846

/* the multipliers and Weyl key increments of Philox4x32 (Salmon et al. 2011, Random123) */
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void hg_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; round++) {
    /* one round: two 32x32->64 products, their high halves mixed with the key */
    uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    /* the key schedule: Weyl sequence */
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

void hg_stream_init(hg_stream *r, uint64_t seed, uint32_t run, uint32_t param) {
  r->key[0] = (uint32_t)seed;
  r->key[1] = (uint32_t)(seed >> 32);
  r->run = run, r->param = param, r->draw = 0;
}

/* the next block of the stream */
static void next_block(hg_stream *r, uint32_t out[4]) {
  uint32_t ctr[4] = {r->run, r->param, r->draw++, 0};
  hg_philox4x32(ctr, r->key, out);
}

/* 53 bits from two words, as a double in [0, 1) */
static double to_unit(uint32_t a, uint32_t b) {
  return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * (1.0 / 9007199254740992.0);
}

double hg_stream_uniform(hg_stream *r) {
  uint32_t w[4];
  next_block(r, w);
  return to_unit(w[0], w[1]);
}

double hg_stream_normal(hg_stream *r) {
  uint32_t w[4];
  next_block(r, w);
  /* Box-Muller: u1 in (0, 1] so that the logarithm is finite */
  double u1 = 1.0 - to_unit(w[0], w[1]), u2 = to_unit(w[2], w[3]);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * HG_PI * u2);
}

/* the block of counter (a, b, k) under the key seed */
static void block_at(uint64_t seed, uint32_t a, uint32_t b, uint64_t k, uint32_t out[4]) {
  uint32_t ctr[4] = {a, b, (uint32_t)k, (uint32_t)(k >> 32)};
  uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  hg_philox4x32(ctr, key, out);
}

double hg_stream_uniform_at(uint64_t seed, uint32_t a, uint32_t b, uint64_t k) {
  uint32_t w[4];
  block_at(seed, a, b, k, w);
  return to_unit(w[0], w[1]);
}

double hg_stream_normal_at(uint64_t seed, uint32_t a, uint32_t b, uint64_t k) {
  uint32_t w[4];
  block_at(seed, a, b, k, w);
  /* Box-Muller as hg_stream_normal: u1 in (0, 1], u2 in [0, 1) */
  double u1 = 1.0 - to_unit(w[0], w[1]), u2 = to_unit(w[2], w[3]);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * HG_PI * u2);
}
