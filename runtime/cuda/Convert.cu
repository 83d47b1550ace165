//===- Convert.cu - CUDA element-type conversion --------------------------===//
//
// sprt_convert (sprt/kernels.h) on the compute stream: one thread per
// element over sprt/dtype.h's host/device element conversions, the bits of
// the CPU backend's Convert.cpp.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Elementwise.cuh"
#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <cstdio>
#include <cstdlib>

using namespace sprt::cuda;

namespace {

__global__ void convertKernel(const void *__restrict__ in, int32_t inType,
                              void *__restrict__ out, int32_t outType,
                              int64_t n) {
  SPRT_FOR_EACH(i, n) {
    storeElement(out, outType, i, loadElement(in, inType, i));
  }
}

} // namespace

/// Aborts on an element type code sprt_convert does not know, naming `fn`.
void sprt::cuda::checkDtypeCode(int32_t t, const char *fn) {
  if (t == SPRT_DTYPE_F32 || t == SPRT_DTYPE_BF16 || t == SPRT_DTYPE_F16)
    return;
  std::fprintf(stderr, "%s: unknown element type code %d\n", fn, int(t));
  std::abort();
}

extern "C" void sprt_convert(const void *in, int32_t in_dtype, void *out,
                             int32_t out_dtype, int64_t n) {
  checkDtypeCode(in_dtype, "sprt_convert");
  checkDtypeCode(out_dtype, "sprt_convert");
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
