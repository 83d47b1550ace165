//===- Convert.cu - CUDA element-type conversion --------------------------===//
//
// sprt_convert (sprt/kernels.h) on the compute stream: one thread per
// element over sprt/dtype.h's host/device element conversions, the bits of
// the CPU backend's Convert.cpp.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <cstdio>
#include <cstdlib>

using namespace sprt::cuda;
using namespace sprt::dtype;

namespace {

__device__ inline float load(const void *p, int32_t t, int64_t i) {
  if (t == SPRT_DTYPE_F32)
    return static_cast<const float *>(p)[i];
  const uint16_t h = static_cast<const uint16_t *>(p)[i];
  return t == SPRT_DTYPE_BF16 ? bf16ToF32(h) : f16ToF32(h);
}

__global__ void convertKernel(const void *__restrict__ in, int32_t inType,
                              void *__restrict__ out, int32_t outType,
                              int64_t n) {
  SPRT_FOR_EACH(i, n) {
    const float x = load(in, inType, i);
    if (outType == SPRT_DTYPE_F32)
      static_cast<float *>(out)[i] = x;
    else
      static_cast<uint16_t *>(out)[i] =
          outType == SPRT_DTYPE_BF16 ? f32ToBf16(x) : f32ToF16(x);
  }
}

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
    const size_t bytes = size_t(n) * (in_dtype == SPRT_DTYPE_F32 ? 4 : 2);
    SPRT_CUDA_CHECK(
        cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream()));
    return;
  }
  SPRT_LAUNCH(convertKernel, n, in, in_dtype, out, out_dtype, n);
}
