/*===- sprt/fast_normal.h - Box-Muller without libm, checked --------------===*
 *
 * sprt::philox::normal computes float(sqrt(-2 log u1) cos(2 pi u2)) with the
 * C library's double log and cos, one element at a time. Parameter
 * initialisation draws billions of them, so this header computes the same
 * expression with fdlibm's log and cos kernels as straight-line code that
 * compilers vectorise (and CUDA runs per thread), and says whether the
 * result is certainly the reference's float:
 *
 * - fdlibm's log and its sin/cos kernels are within 1 ulp (double), and so
 *   are glibc's and CUDA's; with the shared sqrt and products the two double
 *   results differ by less than 2^-49 relative (measured differences are a
 *   few 2^-53);
 * - the result is rounded to float; it is called exact when moving it by
 *   2^-40 relative either way (2^9 times that difference) does not change the
 *   float, so the reference, within that distance, rounds to the same float
 *   (rounding is monotonic);
 * - a cosine argument within 1e-6 of a zero of cos (where the sine kernel's
 *   relative error depends on the reduction) and u1 = 1 (log 0, whose sign
 *   of zero matters) are never called exact.
 *
 * About 2^-15 of the draws are not called exact; callers recompute those
 * with sprt::philox::normal. The values are therefore bitwise the
 * reference's on every backend.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_FAST_NORMAL_H
#define SPRT_FAST_NORMAL_H

#include "sprt/philox.h"

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus

namespace sprt {
namespace philox {

SPRT_HOST_DEVICE inline double doubleOfBits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

SPRT_HOST_DEVICE inline uint64_t bitsOfDouble(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/// The standard normal of words w0 and w1 (as sprt::philox::normal draws
/// them), in `value`; true when `value` is certainly the reference's.
/// Branch-free (selects only), so that a loop of it vectorises.
SPRT_HOST_DEVICE inline bool fastNormal(uint32_t w0, uint32_t w1,
                                        float &value) {
  const double twoM32 = 1.0 / 4294967296.0;
  // Unsigned to double through a signed conversion (vectorises without
  // AVX-512): both exact.
  double u1 = (double(int32_t(w0 ^ 0x80000000u)) + 2147483649.0) * twoM32;
  double u2 = (double(int32_t(w1 ^ 0x80000000u)) + 2147483648.0) * twoM32;

  // log(u1), fdlibm's e_log.c: u1 = m 2^e with m in [sqrt(2)/2, sqrt(2)).
  uint64_t bits = bitsOfDouble(u1);
  int32_t e = int32_t(bits >> 52) - 1023;
  double m = doubleOfBits((bits & 0xfffffffffffffull) | 0x3ff0000000000000ull);
  double big = m > 1.4142135623730951 ? 1.0 : 0.0;
  m = m * (1.0 - 0.5 * big);
  double f = m - 1.0, dk = double(e) + big;
  double hfsq = 0.5 * f * f, s = f / (2.0 + f), z = s * s, w = z * z;
  double t1 =
      w * (3.999999999940941908e-01 +
           w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
  double t2 =
      z * (6.666666666666735130e-01 +
           w * (2.857142874366239149e-01 +
                w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  double logU1 =
      dk * 6.93147180369123816490e-01 -
      ((hfsq - (s * (hfsq + (t2 + t1)) + dk * 1.90821492927058770002e-10)) - f);

  // cos(x), x = 2 pi u2 in [0, 2 pi): x = k pi/2 + r, |r| <= pi/4 (pi/2 in
  // two parts, the first of 33 bits so that k * it is exact), then fdlibm's
  // __kernel_sin / __kernel_cos.
  const double twoPi = 6.283185307179586476925286766559;
  double x = twoPi * u2;
  double k = floor(x * 6.36619772367581382433e-01 + 0.5);
  double r =
      (x - k * 1.57079632673412561417e+00) - k * 6.07710050650619224932e-11;
  double rz = r * r;
  double sinR =
      r +
      (rz * r) * (-1.66666666666666324348e-01 +
                  rz * (8.33333333332248946124e-03 +
                        rz * (-1.98412698298579493134e-04 +
                              rz * (2.75573137070700676789e-06 +
                                    rz * (-2.50507602534068634195e-08 +
                                          rz * 1.58969099521155010221e-10)))));
  double cosTail =
      rz * (4.16666666666666019037e-02 +
            rz * (-1.38888888888741095749e-03 +
                  rz * (2.48015872894767294178e-05 +
                        rz * (-2.75573143513906633035e-07 +
                              rz * (2.08757232129817482790e-09 +
                                    rz * -1.13596475577881948265e-11)))));
  double hz = 0.5 * rz, oneMinusHz = 1.0 - hz;
  double cosR = oneMinusHz + (((1.0 - oneMinusHz) - hz) + rz * cosTail);
  // The quadrant k mod 4: cos, -sin, -cos, sin.
  double q = k - 4.0 * floor(k * 0.25);
  double c = (q == 1.0 || q == 3.0) ? sinR : cosR;
  c = (q == 1.0 || q == 2.0) ? -c : c;

  double d = sqrt(-2.0 * logU1) * c;
  value = float(d);
  const double tol = 1.0 / 1099511627776.0; // 2^-40
  return (float(d * (1.0 + tol)) == value) & (float(d * (1.0 - tol)) == value) &
         (fabs(r) > 1e-6) & (w0 != 0xffffffffu);
}

} // namespace philox
} // namespace sprt

#endif /* __cplusplus */

#endif /* SPRT_FAST_NORMAL_H */
