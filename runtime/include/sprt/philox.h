/*===- sprt/philox.h - counter-based random numbers, host and device ------===*
 *
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
 * easy as 1, 2, 3", SC 2011) and the uniform and normal draws built on it, as
 * inline functions that compile for the host (C++ compiler, nvcc's host pass)
 * and for CUDA devices (SPRT_HOST_DEVICE is __host__ __device__ under nvcc).
 * The CPU backend's sprt_philox4x32 / sprt_uniform / sprt_normal and the CUDA
 * kernels that drop out (sprt_dropout_f32, attention) call these, so both
 * backends draw the same bits for the same (seed, stream, index).
 *
 * A draw is a pure function of (seed, stream, index): the counter is
 * {index lo, index hi, stream lo, stream hi} and the key {seed lo, seed hi}.
 * Only integer arithmetic, exact float scaling and (for the normal) double
 * log, sqrt and cos, so host and device agree bit for bit as long as those
 * three are correctly rounded or identical (glibc and CUDA's libdevice are
 * both within 1 ulp in double, which float() rounding absorbs except on the
 * rarest ties).
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_PHILOX_H
#define SPRT_PHILOX_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define SPRT_HOST_DEVICE __host__ __device__
#else
#define SPRT_HOST_DEVICE
#endif

#ifdef __cplusplus

namespace sprt {
namespace philox {

SPRT_HOST_DEVICE inline void round4x32(uint32_t c[4], const uint32_t k[2]) {
  const uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  uint64_t p0 = uint64_t(kM0) * c[0];
  uint64_t p1 = uint64_t(kM1) * c[2];
  uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
  uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
  uint32_t n0 = hi1 ^ c[1] ^ k[0];
  uint32_t n2 = hi0 ^ c[3] ^ k[1];
  c[0] = n0;
  c[1] = lo1;
  c[2] = n2;
  c[3] = lo0;
}

/// Ten rounds of Philox4x32 on `counter` under `key`.
SPRT_HOST_DEVICE inline void
philox4x32(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
  const uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint32_t k[2] = {key[0], key[1]};
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k[0] += kW0;
      k[1] += kW1;
    }
    round4x32(c, k);
  }
  for (int i = 0; i < 4; ++i)
    out[i] = c[i];
}

/// The four words of element `index` of stream `stream` under `seed`.
SPRT_HOST_DEVICE inline void draw(uint64_t seed, uint64_t stream,
                                  uint64_t index, uint32_t out[4]) {
  const uint32_t counter[4] = {uint32_t(index), uint32_t(index >> 32),
                               uint32_t(stream), uint32_t(stream >> 32)};
  const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
  philox4x32(counter, key, out);
}

/// Uniform float in [0, 1): the top 24 bits of word 0. Every value
/// k * 2^-24, k < 2^24, is exactly representable in float, so there is no
/// rounding.
SPRT_HOST_DEVICE inline float uniform(uint64_t seed, uint64_t stream,
                                      uint64_t index) {
  uint32_t w[4];
  draw(seed, stream, index, w);
  return float(w[0] >> 8) * (1.0f / 16777216.0f);
}

/// Standard normal by Box-Muller in double (so that any backend with a
/// faithful double log/cos rounds to the same float): u1 = (w0 + 1) 2^-32 in
/// (0, 1] keeps the log finite, u2 = w1 2^-32 in [0, 1).
SPRT_HOST_DEVICE inline float normal(uint64_t seed, uint64_t stream,
                                     uint64_t index) {
  uint32_t w[4];
  draw(seed, stream, index, w);
  const double twoM32 = 1.0 / 4294967296.0;
  double u1 = (double(w[0]) + 1.0) * twoM32;
  double u2 = double(w[1]) * twoM32;
  const double twoPi = 6.283185307179586476925286766559;
  return float(::sqrt(-2.0 * ::log(u1)) * ::cos(twoPi * u2));
}

/// Whether dropout keeps the element whose global index is `index`: the
/// comparison is in double (the uniform is exact in float, the rate is not
/// rounded to float).
SPRT_HOST_DEVICE inline bool dropoutKeep(uint64_t seed, uint64_t stream,
                                         uint64_t index, double rate) {
  return double(uniform(seed, stream, index)) >= rate;
}

} // namespace philox
} // namespace sprt

#endif /* __cplusplus */

#endif /* SPRT_PHILOX_H */
