//===- Tanh.h - tanh for GELU's tanh form ---------------------*- C++ -*-===//

#ifndef SPRT_CPU_TANH_H
#define SPRT_CPU_TANH_H

#include "Exp.h"

#include <cmath>

namespace sprt::cpu {

/// tanh(u) and 1 - tanh(u)^2 from one vectorisable exp (glibc's tanhf is
/// several times slower): with e = exp(-2|u|) in (0, 1], tanh = sign(u) (1 - e)
/// / (1 + e) and sech^2 = 4e / (1 + e)^2, neither overflowing nor cancelling.
inline void tanhAndSech2(float u, float &tanhU, float &sech2U) {
  float e = vexp(-2.0f * std::fabs(u));
  float inv = 1.0f / (1.0f + e);
  tanhU = std::copysign((1.0f - e) * inv, u);
  sech2U = 4.0f * e * inv * inv;
}

inline float fastTanh(float u) {
  float t, s;
  tanhAndSech2(u, t, s);
  return t;
}

} // namespace sprt::cpu

#endif // SPRT_CPU_TANH_H
