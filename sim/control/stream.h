/* stream.h: counter-based random numbers for Monte Carlo campaigns.
 *
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC11):
 * a keyed bijection of a 128-bit counter. A campaign keys it with its 64-bit seed and numbers the
 * counter (run, parameter, draw, 0), so every draw depends on those four integers only: never on
 * the thread or rank that makes it, nor on the order in which runs finish. */
#ifndef HINGE_STREAM_H
#define HINGE_STREAM_H

#include <stdint.h>

/* Philox4x32 with 10 rounds: out = philox(ctr, key) */
void hg_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* the stream of one (seed, run, parameter): draws numbered from 0 */
typedef struct hg_stream {
  uint32_t key[2];
  uint32_t run, param, draw;
} hg_stream;

void hg_stream_init(hg_stream *r, uint64_t seed, uint32_t run, uint32_t param);
/* uniform on [0, 1) with 53 random bits (one counter block per draw) */
double hg_stream_uniform(hg_stream *r);
/* standard normal by Box-Muller on two uniforms (one counter block per draw) */
double hg_stream_normal(hg_stream *r);

/* Draws addressed by their counter alone, with no state: the block of counter (a, b, k's low 32
 * bits, k's high 32 bits) under the key seed. A sensor numbers them (sensor, channel, sample), so
 * a run resumed at sample k draws what the uninterrupted run drew. For k < 2^32 they equal the
 * k-th draw of hg_stream_init(seed, a, b): the same block, the same arithmetic. */
/* uniform on [0, 1) with 53 random bits */
double hg_stream_uniform_at(uint64_t seed, uint32_t a, uint32_t b, uint64_t k);
/* standard normal by Box-Muller, both uniforms from the one block */
double hg_stream_normal_at(uint64_t seed, uint32_t a, uint32_t b, uint64_t k);

#endif
