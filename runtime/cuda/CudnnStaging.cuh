//===- CudnnStaging.cuh - f32 <-> bf16/f16 staging for cuDNN attention -*- CUDA
//-*-===//
//
// The kernels around the cuDNN graphs (CudnnAttention.cu): tensors stay in
// seqpar's [S, B, heads, D] order; rotary is applied while packing q and k
// (as AttentionCommon.cuh's loadRow) and its transpose while unpacking dq
// and dk (as AttentionGrad.cu's unrotateStore).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_CUDNNSTAGING_CUH
#define SPRT_CUDA_CUDNNSTAGING_CUH

#include "AttentionCommon.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace sprt::cuda::staging {

/// Rows of a [rows, B, heads, D] tensor and where their positions are:
/// row s of batch b is at pos[(s + posRow) * B + b], or at globalRow + s
/// without positions.
struct Rows {
  int64_t rows, B, heads, D;
  const int64_t *pos;
  int64_t posRow, globalRow;
  int32_t half; // rotated pairs (0: no rotation)
  float invFreq[kMaxHalf];
};

__device__ inline float rowPos(const Rows &r, int64_t s, int64_t b) {
  return float(r.pos ? r.pos[(s + r.posRow) * r.B + b] : r.globalRow + s);
}

template <typename T> __device__ inline T narrow(float x);
template <> __device__ inline float narrow(float x) { return x; }
template <> __device__ inline __nv_bfloat16 narrow(float x) {
  return __float2bfloat16_rn(x);
}
template <> __device__ inline __half narrow(float x) {
  return __float2half_rn(x);
}

/// dst = src (f32, or T as stored) rotated (forward sense) and rounded to
/// T.
template <typename T, typename Src>
__global__ void packRows(const Rows r, const Src *__restrict__ src,
                         T *__restrict__ dst) {
  SPRT_FOR_EACH(e, r.rows * r.B * r.heads * r.D) {
    const int64_t d = e % r.D, rowStart = e - d;
    const int64_t b = (e / (r.D * r.heads)) % r.B,
                  s = e / (r.D * r.heads * r.B);
    float x = float(src[e]);
    if (d < 2 * r.half) {
      const int64_t i = d < r.half ? d : d - r.half;
      float sn, c;
      sincosf(rowPos(r, s, b) * r.invFreq[i], &sn, &c);
      x = d < r.half ? x * c + (-float(src[rowStart + d + r.half])) * sn
                     : x * c + float(src[rowStart + d - r.half]) * sn;
    }
    dst[e] = narrow<T>(x);
  }
}

/// dst (= or +=) src widened, through the rotation's transpose; dst is f32
/// or, as stored, T (rounded once from the f32 value; never accumulated).
template <typename T, typename Dst>
__global__ void unpackRows(const Rows r, const T *__restrict__ src,
                           Dst *__restrict__ dst, int32_t accumulate) {
  SPRT_FOR_EACH(e, r.rows * r.B * r.heads * r.D) {
    const int64_t d = e % r.D, rowStart = e - d;
    const int64_t b = (e / (r.D * r.heads)) % r.B,
                  s = e / (r.D * r.heads * r.B);
    float x = float(src[e]);
    if (d < 2 * r.half) {
      const int64_t i = d < r.half ? d : d - r.half;
      float sn, c;
      sincosf(rowPos(r, s, b) * r.invFreq[i], &sn, &c);
      x = d < r.half ? x * c + float(src[rowStart + d + r.half]) * sn
                     : x * c - float(src[rowStart + d - r.half]) * sn;
    }
    dst[e] = narrow<Dst>(accumulate ? float(dst[e]) + x : x);
  }
}

/// The visible keys [first, last) of a block for local query row i of batch
/// b (global query row qOffset + i, global keys kOffset..kOffset + Sk), as
/// AttentionBlock.cu's visible().
struct Visibility {
  int64_t Sq, Sk, B, qOffset, kOffset;
  int32_t causal, documentCausal;
  const int64_t *qPos; // [.., B] from row qPosRow
  int64_t qPosRow;
};

__device__ inline void visibleKeys(const Visibility &v, int64_t i, int64_t b,
                                   int64_t &first, int64_t &last) {
  const int64_t gi = v.qOffset + i;
  first = 0;
  if (v.documentCausal && v.qPos) {
    const int64_t pos = v.qPos[(i + v.qPosRow) * v.B + b];
    if (pos >= 0 && pos <= gi)
      first = gi - pos;
  }
  last = v.causal ? gi + 1 : v.kOffset + v.Sk;
  first = max(first, v.kOffset) - v.kOffset;
  last = min(last, v.kOffset + v.Sk) - v.kOffset;
}

/// bias[b, i, j] = 0 where key j is visible to query i, else T's lowest.
template <typename T>
__global__ void buildBias(const Visibility v, T *__restrict__ bias,
                          float lowest) {
  SPRT_FOR_EACH(e, v.B * v.Sq * v.Sk) {
    const int64_t j = e % v.Sk, i = (e / v.Sk) % v.Sq, b = e / (v.Sk * v.Sq);
    int64_t first, last;
    visibleKeys(v, i, b, first, last);
    bias[e] = narrow<T>(j >= first && j < last ? 0.0f : lowest);
  }
}

/// A block's cuDNN result (o [Sq, B, heads, D], stats [B, heads, Sq])
/// written to or merged into out and lse [Sq, B, heads] as
/// AttentionBlock.cu's blockForward; rows that see no key of the block
/// count as -inf and 0, whatever cuDNN gave them.
template <typename T>
__global__ void mergeBlock(const Visibility v, int64_t heads, int64_t D,
                           const T *__restrict__ o,
                           const float *__restrict__ stats,
                           float *__restrict__ out, float *__restrict__ lse,
                           int32_t accumulate) {
  SPRT_FOR_EACH(e, v.Sq * v.B * heads) {
    const int64_t h = e % heads, b = (e / heads) % v.B, i = e / (heads * v.B);
    float *dst = out + e * D;
    const T *src = o + e * D;
    int64_t first, last;
    visibleKeys(v, i, b, first, last);
    if (first >= last) {
      if (!accumulate) {
        for (int64_t d = 0; d < D; ++d)
          dst[d] = 0.0f;
        lse[e] = -INFINITY;
      }
      continue;
    }
    const float blockLse = stats[(b * heads + h) * v.Sq + i];
    if (!accumulate || lse[e] == -INFINITY) {
      for (int64_t d = 0; d < D; ++d)
        dst[d] = float(src[d]);
      lse[e] = blockLse;
      continue;
    }
    const double a = lse[e], c = blockLse, mx = fmax(a, c);
    const double merged = mx + log(exp(a - mx) + exp(c - mx));
    const double wOld = exp(a - merged), wNew = exp(c - merged);
    for (int64_t d = 0; d < D; ++d)
      dst[d] = float(double(dst[d]) * wOld + double(float(src[d])) * wNew);
    lse[e] = float(merged);
  }
}

/// stats [B, heads, Sq] from lse [Sq, B, heads]; a row that saw no key
/// (-inf) gets +inf, so that its probabilities exp(s - stats) are 0.
/// lse [Sq, B, heads] from cuDNN's statistics [B, heads, Sq]: -inf for a
/// row that sees no key (mergeBlock's convention, accumulate 0).
__global__ inline void lseFromStats(const Visibility v, int64_t heads,
                                    const float *__restrict__ stats,
                                    float *__restrict__ lse) {
  SPRT_FOR_EACH(e, v.Sq * v.B * heads) {
    const int64_t h = e % heads, b = (e / heads) % v.B, i = e / (heads * v.B);
    int64_t first, last;
    visibleKeys(v, i, b, first, last);
    lse[e] = first >= last ? -INFINITY : stats[(b * heads + h) * v.Sq + i];
  }
}

__global__ inline void statsFromLse(int64_t Sq, int64_t B, int64_t heads,
                                    const float *__restrict__ lse,
                                    float *__restrict__ stats) {
  SPRT_FOR_EACH(e, Sq * B * heads) {
    const int64_t h = e % heads, b = (e / heads) % B, i = e / (heads * B);
    const float x = lse[e];
    stats[(b * heads + h) * Sq + i] = x == -INFINITY ? INFINITY : x;
  }
}

/// splitmix64's finaliser (CudnnAttention.cu's mix, on either side).
__host__ __device__ inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// cuDNN's dropout seed and offset: the call's key (its seed XOR the step's
/// salt, read here when the kernel runs) mixed with its stream's mix.
__global__ inline void setSeed(int64_t *seed, uint64_t key,
                               const uint64_t *salt, uint64_t streamMix,
                               int64_t offset) {
  seed[0] = int64_t(mix((key ^ *salt) ^ streamMix) >> 1);
  seed[1] = offset;
}

} // namespace sprt::cuda::staging

#endif // SPRT_CUDA_CUDNNSTAGING_CUH
