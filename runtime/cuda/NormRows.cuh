//===- NormRows.cuh - a row held in registers for the norm kernels -*- CUDA
//-*-===//
//
// The fused norm kernels (Norms.cu, NormsGrad.cu) read each row once: a
// block owns the row, every thread holds kChunks vectors of kVec floats of
// it in registers (float4 loads where H is a multiple of 4 and the
// pointers 16-byte aligned), and the statistics, the output and the
// weight-gradient contributions are formed from those registers. Thread
// `tid` holds vectors tid, tid + blockDim.x, ... (a warp's loads are
// contiguous). Shapes a block of at most kMaxRowThreads threads cannot
// cover this way take the row-per-block kernels (NormPaths.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_NORMROWS_CUH
#define SPRT_CUDA_NORMROWS_CUH

#include "Common.cuh"
#include "Quad.cuh"

#include <initializer_list>
#include <type_traits>

namespace sprt::cuda {

constexpr int kMaxRowThreads = 512;
/// At most 8 floats of a row per thread: the backward holds x, dy, the
/// weight and double accumulators for each (more spilled registers when
/// compiled for sm_90 with 512 threads).
constexpr int kMaxRowFloats = 8;
/// The loads per thread instantiated (dispatchRowShape): 1 or 2 of float4,
/// 1, 2 or 4 of one float (a scalar row holds at most 4 floats a thread).
constexpr int kMaxQuadChunks = 2, kMaxScalarChunks = 4;

/// How a row of H floats is spread over a block: vec floats per load,
/// chunks loads per thread, threads per block (a multiple of 32); fused is
/// false where the row does not fit (the row-per-block kernels then).
struct RowShape {
  int vec = 1;
  int chunks = 1;
  int threads = 32;
  bool fused = false;
};

inline bool aligned16(const void *p) {
  return (reinterpret_cast<uintptr_t>(p) & 15u) == 0;
}

/// Whether every non-null pointer can be read four elements of type D at
/// a time (16 bytes of f32, 8 of bf16 / f16).
template <int32_t D> bool quadAligned(std::initializer_list<const void *> ps) {
  for (const void *p : ps)
    if (p && reinterpret_cast<uintptr_t>(p) % (4 * elementBytes(D)) != 0)
      return false;
  return true;
}

/// The shape for rows of H floats; `aligned`: every row pointer the kernel
/// reads or writes is 16-byte aligned when H % 4 == 0.
inline RowShape rowShapeFor(int64_t H, bool aligned) {
  RowShape s;
  s.vec = (aligned && H % 4 == 0) ? 4 : 1;
  const int64_t nVec = H / s.vec;
  const int maxChunks = s.vec == 4 ? kMaxQuadChunks : kMaxScalarChunks;
  static_assert(kMaxQuadChunks * 4 <= kMaxRowFloats &&
                    kMaxScalarChunks <= kMaxRowFloats,
                "the instantiated shapes hold at most kMaxRowFloats");
  for (int chunks = 1; chunks <= maxChunks; chunks *= 2) {
    const int64_t threads = ((nVec + chunks - 1) / chunks + 31) / 32 * 32;
    if (threads <= kMaxRowThreads) {
      s.chunks = chunks;
      s.threads = int(threads < 32 ? 32 : threads);
      s.fused = true;
      return s;
    }
  }
  return s;
}

/// The shape of a fused norm kernel's rows: that of the operands the norm
/// alone reads and writes (`own`), so that its sums run in the unfused
/// norm's order; not fused where an operand the fusion adds (`extra`: a
/// residual, x beside it; null: none) is off that alignment, the caller
/// then running the ops apart.
template <int32_t D>
RowShape fusedRowShape(int64_t H, std::initializer_list<const void *> own,
                       std::initializer_list<const void *> extra) {
  const bool aligned = quadAligned<D>(own);
  if (aligned && !quadAligned<D>(extra))
    return RowShape{};
  return rowShapeFor(H, aligned);
}

/// kChunks vectors of kVec floats of one row, in registers.
template <int kChunks, int kVec> struct RowRegs {
  float v[kChunks][kVec];

  /// Whether chunk k of this thread lies inside the row's nVec vectors.
  static __device__ bool inRow(int k, int64_t nVec) {
    return threadIdx.x + int64_t(k) * blockDim.x < nVec;
  }
  static __device__ int64_t vecIndex(int k) {
    return threadIdx.x + int64_t(k) * blockDim.x;
  }
  /// Loads this thread's chunks of row[nVec * kVec] (elements of type D,
  /// widened); zeros outside it.
  template <int32_t D = SPRT_DTYPE_F32>
  __device__ void load(const void *__restrict__ row, int64_t nVec) {
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      if (!inRow(k, nVec)) {
#pragma unroll
        for (int e = 0; e < kVec; ++e)
          v[k][e] = 0.0f;
        continue;
      }
      if constexpr (kVec == 4)
        Quad<D>::load(row, vecIndex(k), v[k]);
      else
        v[k][0] = Quad<D>::loadOne(row, vecIndex(k));
    }
  }
  /// Loads, or sets every element to `fill` where row is null.
  template <int32_t D = SPRT_DTYPE_F32>
  __device__ void loadOr(const void *__restrict__ row, int64_t nVec,
                         float fill) {
    if (row) {
      load<D>(row, nVec);
      return;
    }
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        v[k][e] = fill;
  }
  /// Each element rounded to D (as a store and a load would give it back)
  /// plus row[nVec * kVec]'s element (type D, widened): sprt_add_typed's
  /// sum of the stored value and the row. Nothing where row is null.
  template <int32_t D>
  __device__ void addRow(const void *__restrict__ row, int64_t nVec) {
    if (!row)
      return;
    RowRegs r;
    r.template load<D>(row, nVec);
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        v[k][e] = __fadd_rn(Quad<D>::roundTrip(v[k][e]), r.v[k][e]);
  }
  /// Each element rounded to D, as a store and a load would give it back.
  template <int32_t D> __device__ void roundToStored() {
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        v[k][e] = Quad<D>::roundTrip(v[k][e]);
  }
  /// Stores this thread's chunks inside the row, each rounded to D.
  template <int32_t D = SPRT_DTYPE_F32>
  __device__ void store(void *__restrict__ row, int64_t nVec) const {
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      if (!inRow(k, nVec))
        continue;
      if constexpr (kVec == 4)
        Quad<D>::store(row, vecIndex(k), v[k]);
      else
        Quad<D>::storeOne(row, vecIndex(k), v[k][0]);
    }
  }
};

/// Two block sums with one pair of barriers; `red` holds 64 doubles. Every
/// thread gets both results, in blockSum's fixed order.
__device__ inline void blockSum2(double &a, double &b, double *red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nWarps = (blockDim.x + 31) >> 5;
  a = warpSum(a);
  b = warpSum(b);
  __syncthreads(); // `red` may still be read by a previous call
  if (lane == 0) {
    red[warp] = a;
    red[32 + warp] = b;
  }
  __syncthreads();
  a = lane < nWarps ? red[lane] : 0.0;
  b = lane < nWarps ? red[32 + lane] : 0.0;
  a = warpSum(a);
  b = warpSum(b);
}

/// The layer norm's mean and 1 / sqrt(biased variance + eps) of a row in
/// registers (zeros outside the row), in double, two passes over the
/// registers: layerNormStats's formulas.
template <int kChunks, int kVec>
__device__ inline void
layerNormStatsRegs(const RowRegs<kChunks, kVec> &x, int64_t nVec, int64_t H,
                   double eps, double *red, double &mean, double &rstd) {
  double s = 0.0;
#pragma unroll
  for (int k = 0; k < kChunks; ++k)
#pragma unroll
    for (int e = 0; e < kVec; ++e)
      s += double(x.v[k][e]);
  mean = blockSum(s, red) / double(H);
  double sq = 0.0;
#pragma unroll
  for (int k = 0; k < kChunks; ++k) {
    if (!x.inRow(k, nVec))
      continue;
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      const double d = double(x.v[k][e]) - mean;
      sq += d * d;
    }
  }
  rstd = 1.0 / sqrt(blockSum(sq, red) / double(H) + eps);
}

/// 1 / sqrt(mean(x^2) + eps) of a row in registers: rmsNormScale's.
template <int kChunks, int kVec>
__device__ inline double rmsNormScaleRegs(const RowRegs<kChunks, kVec> &x,
                                          int64_t H, double eps, double *red) {
  double sq = 0.0;
#pragma unroll
  for (int k = 0; k < kChunks; ++k)
#pragma unroll
    for (int e = 0; e < kVec; ++e)
      sq += double(x.v[k][e]) * double(x.v[k][e]);
  return 1.0 / sqrt(blockSum(sq, red) / double(H) + eps);
}

/// Calls f(chunks, vec) with std::integral_constant<int, ...> arguments for
/// the shape's instantiation (chunks 1 or 2 of vec 4; 1, 2 or 4 of vec 1:
/// what rowShapeFor gives), so a generic lambda can name the kernel
/// template: kernel<decltype(c)::value, ...>.
template <typename F> void dispatchRowShape(const RowShape &s, F &&f) {
  using One = std::integral_constant<int, 1>;
  using Two = std::integral_constant<int, 2>;
  using Four = std::integral_constant<int, 4>;
  if (s.vec == 4) {
    if (s.chunks == 1)
      f(One{}, Four{});
    else
      f(Two{}, Four{});
  } else {
    if (s.chunks == 1)
      f(One{}, One{});
    else if (s.chunks == 2)
      f(Two{}, One{});
    else
      f(Four{}, One{});
  }
  static_assert(kMaxQuadChunks == 2 && kMaxScalarChunks == 4,
                "dispatchRowShape instantiates these shapes");
}

} // namespace sprt::cuda

#endif // SPRT_CUDA_NORMROWS_CUH
