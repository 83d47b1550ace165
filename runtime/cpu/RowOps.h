//===- RowOps.h - row statistics shared by the loss and its backward -*- C++
//-*-===//

#ifndef SPRT_CPU_ROWOPS_H
#define SPRT_CPU_ROWOPS_H

#include "Scratch.h"
#include "sprt/kernels.h"

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

/// Rows of V elements of a tensor stored as SPRT_DTYPE_* `dtype`, as f32:
/// in place for f32, else widened (exactly) into one row of scratch; null
/// rows for a null tensor (an absent weight).
class WidenedRows {
public:
  WidenedRows(const void *p, int32_t dtype, int64_t V)
      : p(p), dtype(dtype), V(V),
        buf(p && dtype != SPRT_DTYPE_F32 && V > 0 ? size_t(V) : 0) {
    // An unknown dtype aborts here, before anything is computed.
    if (p)
      sprt_convert(nullptr, dtype, nullptr, SPRT_DTYPE_F32, 0);
  }
  const float *row(int64_t t) {
    if (!p)
      return nullptr;
    if (dtype == SPRT_DTYPE_F32)
      return static_cast<const float *>(p) + t * V;
    sprt_convert(static_cast<const char *>(p) + t * V * 2, dtype, buf.data(),
                 SPRT_DTYPE_F32, V);
    return buf.data();
  }

private:
  const void *p;
  int32_t dtype;
  int64_t V;
  ScratchVector<float> buf;
};

} // namespace sprt::cpu

#endif // SPRT_CPU_ROWOPS_H
