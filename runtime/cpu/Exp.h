//===- Exp.h - an expf the compiler can vectorise -------------*- C++ -*-===//

#ifndef SPRT_CPU_EXP_H
#define SPRT_CPU_EXP_H

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace sprt::cpu {

/// exp(x) for f32 within 2 ulp of the correctly rounded result over
/// [-87, 88] (Cephes' expf: x = n ln2 + r with |r| <= ln2 / 2, a degree-6
/// polynomial for e^r, 2^n built in the exponent bits). Unlike a libm call
/// it is a handful of arithmetic operations, so loops over it vectorise.
/// Below -87 it returns 0 (no subnormals), above 88 a huge finite value; a
/// NaN is returned as it is (computing on it would convert a NaN to int,
/// which is undefined).
inline float vexp(float x0) {
  bool nan = x0 != x0;
  float x = nan ? 0.0f : std::min(std::max(x0, -87.0f), 88.0f);
  // Round x / ln2 to the nearest integer with the 1.5 * 2^23 trick.
  const float kShift = 12582912.0f;
  float n = (x * 1.44269504088896341f + kShift) - kShift;
  float r = x - n * 0.693359375f; // ln2 split in two (Cody-Waite)
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits = (int32_t(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  float res = p * scale;
  return nan ? x0 : x0 < -87.0f ? 0.0f : res;
}

} // namespace sprt::cpu

#endif // SPRT_CPU_EXP_H
