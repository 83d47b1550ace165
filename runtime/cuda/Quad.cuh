//===- Quad.cuh - f32 / bf16 / f16 elements, one or four at a time -*- CUDA
//-*-===//
//
// Quad<SPRT_DTYPE_*> loads elements of a stored type as f32 and stores f32
// values rounded to it (sprt/dtype.h's host/device conversions, the bits of
// sprt_convert): four at a time (one 16-byte f32 or 8-byte 16-bit access;
// the pointer must be aligned to four elements) or one. Shared by the
// convert (Convert.cu) and the norms' rows (NormRows.cuh).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_QUAD_CUH
#define SPRT_CUDA_QUAD_CUH

#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <cstdint>

namespace sprt::cuda {

/// Bytes of an element of SPRT_DTYPE_* `t`.
__host__ __device__ constexpr size_t elementBytes(int32_t t) {
  return t == SPRT_DTYPE_F32 ? 4 : 2;
}

/// `p` advanced by `i` elements of type D.
template <int32_t D>
__host__ __device__ const void *elementAt(const void *p, int64_t i) {
  return static_cast<const char *>(p) + i * int64_t(elementBytes(D));
}
template <int32_t D> __host__ __device__ void *elementAt(void *p, int64_t i) {
  return static_cast<char *>(p) + i * int64_t(elementBytes(D));
}

template <int32_t T> struct Quad;
template <> struct Quad<SPRT_DTYPE_F32> {
  /// `v` as a store and a load give it back.
  static __device__ float roundTrip(float v) { return v; }
  static __device__ float loadOne(const void *p, int64_t i) {
    return static_cast<const float *>(p)[i];
  }
  static __device__ void storeOne(void *p, int64_t i, float v) {
    static_cast<float *>(p)[i] = v;
  }
  static __device__ void load(const void *p, int64_t j, float (&v)[4]) {
    const float4 q = static_cast<const float4 *>(p)[j];
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  }
  static __device__ void store(void *p, int64_t j, const float (&v)[4]) {
    static_cast<float4 *>(p)[j] = make_float4(v[0], v[1], v[2], v[3]);
  }
};
template <int32_t T> struct Quad16 {
  static __device__ float widen(uint16_t h) {
    return T == SPRT_DTYPE_BF16 ? sprt::dtype::bf16ToF32(h)
                                : sprt::dtype::f16ToF32(h);
  }
  static __device__ uint16_t narrow(float x) {
    return T == SPRT_DTYPE_BF16 ? sprt::dtype::f32ToBf16(x)
                                : sprt::dtype::f32ToF16(x);
  }
  static __device__ float roundTrip(float v) { return widen(narrow(v)); }
  static __device__ float loadOne(const void *p, int64_t i) {
    return widen(static_cast<const uint16_t *>(p)[i]);
  }
  static __device__ void storeOne(void *p, int64_t i, float v) {
    static_cast<uint16_t *>(p)[i] = narrow(v);
  }
  static __device__ void load(const void *p, int64_t j, float (&v)[4]) {
    const uint2 q = static_cast<const uint2 *>(p)[j];
    v[0] = widen(uint16_t(q.x & 0xffffu)), v[1] = widen(uint16_t(q.x >> 16));
    v[2] = widen(uint16_t(q.y & 0xffffu)), v[3] = widen(uint16_t(q.y >> 16));
  }
  static __device__ void store(void *p, int64_t j, const float (&v)[4]) {
    static_cast<uint2 *>(p)[j] =
        make_uint2(uint32_t(narrow(v[0])) | (uint32_t(narrow(v[1])) << 16),
                   uint32_t(narrow(v[2])) | (uint32_t(narrow(v[3])) << 16));
  }
};
template <> struct Quad<SPRT_DTYPE_BF16> : Quad16<SPRT_DTYPE_BF16> {};
template <> struct Quad<SPRT_DTYPE_F16> : Quad16<SPRT_DTYPE_F16> {};

} // namespace sprt::cuda

#endif // SPRT_CUDA_QUAD_CUH
