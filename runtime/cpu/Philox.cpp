//===- Philox.cpp - counter-based random numbers --------------------------===//
//
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy
// as 1, 2, 3", SC 2011), the uniform and normal draws built on it, and the
// FNV-1a name hash that turns a parameter name into a random stream.
//
// A draw is a pure function of (seed, stream, index): the counter is
// {index lo, index hi, stream lo, stream hi} and the key {seed lo, seed hi}.
// A sharded tensor therefore draws exactly the slice of the unsharded one's
// numbers as long as it passes global element indices.
//
//===----------------------------------------------------------------------===//

#include "sprt/kernels.h"

#include <cmath>

namespace {

constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;

inline void philoxRound(uint32_t c[4], const uint32_t k[2]) {
  uint64_t p0 = uint64_t(kPhiloxM0) * c[0];
  uint64_t p1 = uint64_t(kPhiloxM1) * c[2];
  uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
  uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
  uint32_t n0 = hi1 ^ c[1] ^ k[0];
  uint32_t n2 = hi0 ^ c[3] ^ k[1];
  c[0] = n0;
  c[1] = lo1;
  c[2] = n2;
  c[3] = lo0;
}

inline void philox(const uint32_t counter[4], const uint32_t key[2],
                   uint32_t out[4]) {
  uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint32_t k[2] = {key[0], key[1]};
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k[0] += kPhiloxW0;
      k[1] += kPhiloxW1;
    }
    philoxRound(c, k);
  }
  for (int i = 0; i < 4; ++i)
    out[i] = c[i];
}

inline void draw(uint64_t seed, uint64_t stream, uint64_t index,
                 uint32_t out[4]) {
  const uint32_t counter[4] = {uint32_t(index), uint32_t(index >> 32),
                               uint32_t(stream), uint32_t(stream >> 32)};
  const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
  philox(counter, key, out);
}

} // namespace

extern "C" {

void sprt_philox4x32(const uint32_t counter[4], const uint32_t key[2],
                     uint32_t out[4]) {
  philox(counter, key, out);
}

float sprt_uniform(uint64_t seed, uint64_t stream, uint64_t index) {
  uint32_t w[4];
  draw(seed, stream, index, w);
  // The top 24 bits of word 0: every value k * 2^-24, k < 2^24, is exactly
  // representable in float, so the result lies in [0, 1) with no rounding.
  return float(w[0] >> 8) * (1.0f / 16777216.0f);
}

float sprt_normal(uint64_t seed, uint64_t stream, uint64_t index) {
  uint32_t w[4];
  draw(seed, stream, index, w);
  // Box-Muller in double (so that any backend with a faithful double log/cos
  // rounds to the same float): u1 = (w0 + 1) 2^-32 in (0, 1] keeps the log
  // finite, u2 = w1 2^-32 in [0, 1).
  const double twoM32 = 1.0 / 4294967296.0;
  double u1 = (double(w[0]) + 1.0) * twoM32;
  double u2 = double(w[1]) * twoM32;
  const double twoPi = 6.283185307179586476925286766559;
  return float(std::sqrt(-2.0 * std::log(u1)) * std::cos(twoPi * u2));
}

uint64_t sprt_hash_name(const char *name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char *p = reinterpret_cast<const unsigned char *>(name);
       *p; ++p) {
    h ^= uint64_t(*p);
    h *= 0x100000001b3ull;
  }
  return h;
}

} // extern "C"
