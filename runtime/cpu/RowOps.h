//===- RowOps.h - row statistics shared by the loss and its backward -*- C++
//-*-===//

#ifndef SPRT_CPU_ROWOPS_H
#define SPRT_CPU_ROWOPS_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace sprt::cpu {

inline float rowMax(const float *row, int64_t V) {
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t v = 0; v < V; ++v)
    m = std::max(m, row[v]);
  return m;
}

inline float rowSumExp(const float *row, float max, int64_t V) {
  double s = 0.0;
  for (int64_t v = 0; v < V; ++v)
    s += double(std::exp(row[v] - max));
  return float(s);
}

} // namespace sprt::cpu

#endif // SPRT_CPU_ROWOPS_H
