//===- Convert.cpp - CPU element-type conversion --------------------------===//
//
// sprt_convert (sprt/kernels.h): one loop per pair of types over
// sprt/dtype.h's element conversions, so the CPU and CUDA backends and the
// runtime's checkpoint code round the same values to the same bits.
//
//===----------------------------------------------------------------------===//

#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace sprt::dtype;

namespace {

/// Element i of a buffer of type `t`, widened to f32 (exact).
inline float load(const void *p, int32_t t, int64_t i) {
  if (t == SPRT_DTYPE_F32)
    return static_cast<const float *>(p)[i];
  uint16_t h = static_cast<const uint16_t *>(p)[i];
  return t == SPRT_DTYPE_BF16 ? bf16ToF32(h) : f16ToF32(h);
}

size_t bytesOf(int32_t t) { return t == SPRT_DTYPE_F32 ? 4 : 2; }

/// Aborts on an element type code sprt_convert does not know.
void checkCode(int32_t t) {
  if (t == SPRT_DTYPE_F32 || t == SPRT_DTYPE_BF16 || t == SPRT_DTYPE_F16)
    return;
  std::fprintf(stderr, "sprt_convert: unknown element type code %d\n", int(t));
  std::abort();
}

} // namespace

extern "C" void sprt_convert(const void *in, int32_t in_dtype, void *out,
                             int32_t out_dtype, int64_t n) {
  checkCode(in_dtype);
  checkCode(out_dtype);
  if (n <= 0)
    return;
  if (in_dtype == out_dtype) {
    std::memcpy(out, in, size_t(n) * bytesOf(in_dtype));
    return;
  }
  if (out_dtype == SPRT_DTYPE_F32) {
    auto *y = static_cast<float *>(out);
    for (int64_t i = 0; i < n; ++i)
      y[i] = load(in, in_dtype, i);
    return;
  }
  auto *y = static_cast<uint16_t *>(out);
  if (out_dtype == SPRT_DTYPE_BF16)
    for (int64_t i = 0; i < n; ++i)
      y[i] = f32ToBf16(load(in, in_dtype, i));
  else
    for (int64_t i = 0; i < n; ++i)
      y[i] = f32ToF16(load(in, in_dtype, i));
}
