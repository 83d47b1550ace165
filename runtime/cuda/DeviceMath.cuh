//===- DeviceMath.cuh - the CPU backend's float formulas on device -*- CUDA
//-*-===//
//
// Device ports of runtime/cpu/Exp.h and Tanh.h, so that silu and GELU's tanh
// form evaluate the same formulas on both backends (results may still differ
// in the last bit where nvcc contracts a multiply-add into an FMA).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_DEVICEMATH_CUH
#define SPRT_CUDA_DEVICEMATH_CUH

#include <cstdint>

namespace sprt::cuda {

/// Cephes' expf as in runtime/cpu/Exp.h: 0 below -87, huge above 88, a NaN
/// returned as it is.
__device__ inline float vexp(float x0) {
  const bool nan = x0 != x0;
  float x = nan ? 0.0f : fminf(fmaxf(x0, -87.0f), 88.0f);
  const float kShift = 12582912.0f;
  float n = (x * 1.44269504088896341f + kShift) - kShift;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  float scale = __int_as_float((int32_t(n) + 127) << 23);
  float res = p * scale;
  return nan ? x0 : x0 < -87.0f ? 0.0f : res;
}

/// tanh(u) and 1 - tanh(u)^2 from one exp, as runtime/cpu/Tanh.h.
__device__ inline void tanhAndSech2(float u, float &tanhU, float &sech2U) {
  float e = vexp(-2.0f * fabsf(u));
  float inv = 1.0f / (1.0f + e);
  tanhU = copysignf((1.0f - e) * inv, u);
  sech2U = 4.0f * e * inv * inv;
}

} // namespace sprt::cuda

#endif // SPRT_CUDA_DEVICEMATH_CUH
