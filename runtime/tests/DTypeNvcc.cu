//===- DTypeNvcc.cu - sprt/dtype.h compiled by nvcc -----------------------===//
//
// Host code compiled by nvcc (its host pass, with __CUDACC__ defined, so the
// conversions are __host__ __device__): the bits DTypeHostDeviceTest
// compares with the C++ compiler's. The kernel makes nvcc compile the same
// functions for the device too (it is not launched: no GPU is needed).
//
//===----------------------------------------------------------------------===//

#include "sprt/dtype.h"

#ifndef __CUDACC__
#error "this file must be compiled by nvcc"
#endif

using namespace sprt::dtype;

extern "C" void sprt_test_nvcc_dtype(const float *xs, int64_t n, uint16_t *bf16,
                                     uint16_t *f16, float *wideBf16,
                                     float *wideF16) {
  for (int64_t i = 0; i < n; ++i) {
    bf16[i] = f32ToBf16(xs[i]);
    f16[i] = f32ToF16(xs[i]);
  }
  for (uint32_t h = 0; h < 0x10000; ++h) {
    wideBf16[h] = bf16ToF32(uint16_t(h));
    wideF16[h] = f16ToF32(uint16_t(h));
  }
}

__global__ void sprt_test_dtype_kernel(const float *xs, int64_t n,
                                       uint16_t *bf16, uint16_t *f16,
                                       float *back) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  bf16[i] = f32ToBf16(xs[i]);
  f16[i] = f32ToF16(xs[i]);
  back[i] = bf16ToF32(bf16[i]) + f16ToF32(f16[i]);
}
