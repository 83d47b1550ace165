/*===- sprt/dtype.h - bf16 and f16 conversions, host and device -----------===*
 *
 * The element conversions between f32 and the 16-bit floating-point formats
 * of mixed precision, as inline functions that compile for the host (C++
 * compiler, nvcc's host pass) and for CUDA devices (SPRT_HOST_DEVICE is
 * __host__ __device__ under nvcc), so the runtime's checkpoint code and the
 * backends' kernels round the same values to the same bits:
 *
 *   bf16: 1 sign, 8 exponent, 7 mantissa bits (the upper half of an f32);
 *   f16:  IEEE binary16, 1 sign, 5 exponent (bias 15), 10 mantissa bits.
 *
 * Narrowing (f32 -> bf16, f32 -> f16) rounds to nearest, ties to even, with
 * integer arithmetic only (no dependence on the FPU's rounding mode or on
 * flush-to-zero): a value past the largest finite one by half an ulp or more
 * becomes an infinity of its sign, f16 subnormals are rounded exactly, a NaN
 * stays a NaN, quiet (sign and the upper payload bits kept). Widening
 * (bf16 -> f32, f16 -> f32) is exact: every bf16 and f16 value, subnormals,
 * infinities and NaN payloads included, is an f32.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_DTYPE_H
#define SPRT_DTYPE_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define SPRT_DTYPE_HD __host__ __device__
#else
#define SPRT_DTYPE_HD
#endif

#ifdef __cplusplus

namespace sprt {
namespace dtype {

SPRT_DTYPE_HD inline uint32_t bitsOf(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

SPRT_DTYPE_HD inline float floatOf(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/// f32 -> bf16, round to nearest even.
SPRT_DTYPE_HD inline uint16_t f32ToBf16(float x) {
  uint32_t u = bitsOf(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep sign and payload, quiet
    return uint16_t((u >> 16) | 0x0040u);
  // Adding 0x7fff plus the kept part's last bit rounds the dropped half to
  // nearest, ties to even; a carry moves into the exponent (up to inf).
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

/// bf16 -> f32, exact.
SPRT_DTYPE_HD inline float bf16ToF32(uint16_t h) {
  return floatOf(uint32_t(h) << 16);
}

/// bf16 + bf16 -> bf16: the two values added in f32 and the sum rounded to
/// bf16, nearest even (the elementwise operation of a bf16 reduction). The
/// result is the exact sum correctly rounded: f32's sum of two bf16 values
/// is exact, or rounds where the bf16 rounding cannot be a tie (f32 keeps
/// 24 significant bits, at least 2 * 8 + 2). NaN if either is a NaN or for
/// inf + -inf; an overflow is an infinity.
SPRT_DTYPE_HD inline uint16_t addBf16(uint16_t a, uint16_t b) {
  return f32ToBf16(bf16ToF32(a) + bf16ToF32(b));
}

/// f32 -> f16, round to nearest even.
SPRT_DTYPE_HD inline uint16_t f32ToF16(float x) {
  uint32_t u = bitsOf(x);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) // NaN: keep sign and the upper payload bits, quiet
    return uint16_t(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  // 65520 = 65504 + half an ulp (ties to even go up: 65504's mantissa is
  // odd) and everything above, infinity included, is an infinity.
  if (a >= 0x477ff000u)
    return uint16_t(sign | 0x7c00u);
  if (a >= 0x38800000u) { // at least 2^-14: a normal f16
    // Rebias the exponent (127 -> 15) and round the 13 dropped bits.
    a += 0xc8000fffu + ((a >> 13) & 1u);
    return uint16_t(sign | (a >> 13));
  }
  // Below 2^-14: a multiple of 2^-24 (an f16 subnormal, or zero, or the
  // smallest normal after rounding up).
  uint32_t e = a >> 23;
  if (e < 102) // below 2^-25 (exactly 2^-25 is a tie: to the even zero)
    return uint16_t(sign);
  uint32_t m = (a & 0x7fffffu) | 0x800000u; // value = m * 2^(e - 150)
  uint32_t shift = 126 - e;                 // 14 .. 24
  uint32_t q = m >> shift, rest = m & ((1u << shift) - 1u),
           half = 1u << (shift - 1);
  if (rest > half || (rest == half && (q & 1u)))
    ++q;
  return uint16_t(sign | q);
}

/// f16 -> f32, exact.
SPRT_DTYPE_HD inline float f16ToF32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) // infinity or NaN (the quiet bit lands on f32's)
    return floatOf(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (m == 0)
      return floatOf(sign);
    // Subnormal m * 2^-24: normalise.
    e = 113;
    while (!(m & 0x400u)) {
      m <<= 1;
      --e;
    }
    return floatOf(sign | (e << 23) | ((m & 0x3ffu) << 13));
  }
  return floatOf(sign | ((e + 112) << 23) | (m << 13));
}

} // namespace dtype
} // namespace sprt

#endif // __cplusplus

#endif // SPRT_DTYPE_H
