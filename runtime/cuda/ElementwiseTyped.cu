//===- ElementwiseTyped.cu - elementwise maps on stored dtypes (CUDA) -----===//
//
// sprt_*_typed of the elementwise maps (sprt/kernels.h): one thread per
// element loads each operand in its stored type (widening exactly), maps it
// with the f32 kernels' formula (Elementwise.cuh) and stores the result
// rounded once: no f32 copy of a bf16 / f16 tensor. F32 calls the f32
// kernels.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Elementwise.cuh"
#include "sprt/kernels.h"

using namespace sprt::cuda;

namespace {

enum class Map : int32_t { Gelu, Silu, Relu, Mul, Add };

__global__ void mapKernel(Map map, const void *a, const void *b, void *y,
                          int64_t n, int32_t dtype, int32_t tanhApprox) {
  SPRT_FOR_EACH(i, n) {
    const float u = loadElement(a, dtype, i);
    float r;
    switch (map) {
    case Map::Gelu:
      r = geluOf(u, tanhApprox);
      break;
    case Map::Silu:
      r = siluOf(u);
      break;
    case Map::Relu:
      r = reluOf(u);
      break;
    case Map::Mul:
      r = u * loadElement(b, dtype, i);
      break;
    default:
      r = u + loadElement(b, dtype, i);
      break;
    }
    storeElement(y, dtype, i, r);
  }
}

void launch(const char *fn, Map map, const void *a, const void *b, void *y,
            int64_t n, int32_t dtype, int32_t tanhApprox = 0) {
  checkDtypeCode(dtype, fn);
  SPRT_LAUNCH(mapKernel, n, map, a, b, y, n, dtype, tanhApprox);
}

const float *f32(const void *p) { return static_cast<const float *>(p); }
float *f32(void *p) { return static_cast<float *>(p); }

} // namespace

extern "C" {

void sprt_gelu_typed(const void *x, void *y, int64_t n, int32_t tanh_approx,
                     int32_t dtype) {
  if (dtype == SPRT_DTYPE_F32)
    return sprt_gelu_f32(f32(x), f32(y), n, tanh_approx);
  launch("sprt_gelu_typed", Map::Gelu, x, nullptr, y, n, dtype, tanh_approx);
}

void sprt_silu_typed(const void *x, void *y, int64_t n, int32_t dtype) {
  if (dtype == SPRT_DTYPE_F32)
    return sprt_silu_f32(f32(x), f32(y), n);
  launch("sprt_silu_typed", Map::Silu, x, nullptr, y, n, dtype);
}

void sprt_relu_typed(const void *x, void *y, int64_t n, int32_t dtype) {
  if (dtype == SPRT_DTYPE_F32)
    return sprt_relu_f32(f32(x), f32(y), n);
  launch("sprt_relu_typed", Map::Relu, x, nullptr, y, n, dtype);
}

void sprt_mul_typed(const void *a, const void *b, void *y, int64_t n,
                    int32_t dtype) {
  if (dtype == SPRT_DTYPE_F32)
    return sprt_mul_f32(f32(a), f32(b), f32(y), n);
  launch("sprt_mul_typed", Map::Mul, a, b, y, n, dtype);
}

void sprt_add_typed(const void *a, const void *b, void *y, int64_t n,
                    int32_t dtype) {
  if (dtype == SPRT_DTYPE_F32)
    return sprt_add_f32(f32(a), f32(b), f32(y), n);
  launch("sprt_add_typed", Map::Add, a, b, y, n, dtype);
}

} // extern "C"
