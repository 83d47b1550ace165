//===- AttentionCommon.cuh - fused causal attention, shared parts -*- CUDA
//-*-===//
//
// The CUDA attention kernels (Attention.cu forward, AttentionGrad.cu
// backward) work flash-attention style: a block of kWarps warps owns kWarps
// rows (one per warp) and streams the other side's rows through shared
// memory in tiles of 32, one per lane; the S x S score matrix is never
// stored. Scores are scale * (q . k) with q and k rotated (rotate-half) as
// they are loaded; the softmax is online (running max m and denominator l,
// rescaling the accumulator); dropout multiplies the normalised
// probabilities by keep / (1 - rate), keep drawn from the shared Philox at
// the CPU backend's global index ((b + batch_offset) * global_heads + h +
// head_offset) * S * S + i * S + j. Each lane owns features lane + 32 c,
// c < kChunks, so head_dim <= 32 * kChunks.
//
// The query side may be a piece of the sequence: Sq rows whose first is
// global row qOffset, over all S (= Sk) keys. A query row's index in q, dO,
// out and dq is local (i), its mask, dropout index and position global
// (qOffset + i).
//
// Rotary angles as the CPU backend (AttentionPanels.h) and Hugging Face:
// inv_freq in float computed on the host exactly as the CPU does, angle =
// float(pos) * inv_freq on the device, float cos/sin (CUDA's cosf/sinf are
// within 2 ulp of glibc's).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_ATTENTIONCOMMON_CUH
#define SPRT_CUDA_ATTENTIONCOMMON_CUH

#include "Common.cuh"
#include "sprt/philox.h"

#include <cstdint>

namespace sprt::cuda {

constexpr int kWarps = 8;  // rows per block, one per warp
constexpr int kTile = 32;  // streamed rows per tile, one per lane
constexpr int kChunks = 8; // features per lane
constexpr int kMaxHeadDim = 32 * kChunks;
constexpr int kMaxHalf = kMaxHeadDim / 2;

/// Everything the kernels derive from attention's arguments.
struct AttnParams {
  const float *q, *k, *v, *dout;
  const int64_t *positions;
  // S: the keys' rows (the global sequence); Sq query rows from qOffset.
  int64_t S, Sq, qOffset, B, heads, kvHeads, D, group;
  int32_t causal;
  int32_t documentCausal; // keys before the query's document are masked
  int32_t half;           // rotated pairs: rotary_dim clamped to [0, D], halved
  float scale, keepScale;
  int32_t dropout;
  int32_t accumulate; // the backward adds to dk, dv
  double rate;
  uint64_t seed, stream;
  // The step's dropout salt (sprt_step_values), XORed into seed on the
  // device when the kernel runs.
  const uint64_t *salt;
  int64_t globalHeads, batchOffset, headOffset;
  float invFreq[kMaxHalf];
};

/// Fills AttnParams from the C arguments (throws on unsupported shapes).
AttnParams makeAttnParams(const float *q, const float *k, const float *v,
                          const float *dout, const int64_t *positions,
                          int64_t Sq, int64_t Sk, int64_t qOffset, int64_t B,
                          int64_t heads, int64_t kvHeads, int64_t headDim,
                          int32_t causal, int32_t documentCausal,
                          int64_t rotaryDim, double theta, double rate,
                          uint64_t seed, uint64_t stream, int64_t batchOffset,
                          int64_t globalHeads, int64_t headOffset,
                          const char *what);

/// Sets a kernel's dynamic shared memory limit when above the 48 KiB default.
void allowSharedMemory(const void *kernel, size_t bytes, const char *what);

/// Row stride of a shared-memory tile read lane-by-row: D + 1 floats keeps
/// the 32 lanes (rows) in different banks.
__host__ __device__ inline int64_t paddedStride(int64_t D) { return D + 1; }

/// The position of global row s of batch blockIdx.z.
__device__ inline float rowPosition(const AttnParams &p, int64_t s) {
  return float(p.positions ? p.positions[s * p.B + blockIdx.z] : s);
}

/// Whether key j is visible to global query row i (batch blockIdx.z): inside
/// the sequence, not in the future under a causal mask and, under a
/// document-causal one, not before the query's document (i - positions[i];
/// a position outside [0, i] masks nothing more), as
/// runtime/cpu/AttentionPanels.h.
__device__ inline bool keyVisible(const AttnParams &p, int64_t i, int64_t j) {
  if (j >= p.S || (p.causal && j > i))
    return false;
  if (!p.documentCausal || !p.positions)
    return true;
  const int64_t pos = p.positions[i * p.B + blockIdx.z];
  return pos < 0 || pos > i || j >= i - pos;
}

/// Loads row s of head `head` of batch b from a [rows, B, nHeads * D] tensor
/// into dst[D], rotated when `rotate` (rotate-half over the first 2 * half
/// features, at the position of global row s + posOffset). The calling
/// threads are lanes [first, first + count) of a cooperative group striding
/// by `count`.
__device__ inline void loadRow(const AttnParams &p, const float *src,
                               int64_t nHeads, int64_t s, int64_t head,
                               bool rotate, float *dst, int first, int count,
                               int64_t posOffset = 0) {
  const int64_t D = p.D;
  const float *in = src + ((s * p.B + blockIdx.z) * nHeads + head) * D;
  const int half = rotate ? p.half : 0;
  float pos = 0.0f;
  if (half)
    pos = rowPosition(p, s + posOffset);
  for (int64_t d = first; d < D; d += count) {
    if (d < half) {
      float sn, c;
      sincosf(pos * p.invFreq[d], &sn, &c);
      const float x1 = in[d], x2 = in[d + half];
      dst[d] = x1 * c + (-x2) * sn;
    } else if (d < 2 * half) {
      float sn, c;
      sincosf(pos * p.invFreq[d - half], &sn, &c);
      const float x1 = in[d - half], x2 = in[d];
      dst[d] = x2 * c + x1 * sn;
    } else {
      dst[d] = in[d];
    }
  }
}

/// Loads rows [r0, r0 + kTile) (zeros past `rows`, S by default) into
/// tile[kTile][stride], by the whole block; row s at the position of global
/// row s + posOffset.
__device__ inline void loadTile(const AttnParams &p, const float *src,
                                int64_t nHeads, int64_t head, int64_t r0,
                                bool rotate, float *tile, int64_t stride,
                                int64_t rows = -1, int64_t posOffset = 0) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t limit = rows < 0 ? p.S : rows;
  for (int r = warp; r < kTile; r += kWarps) {
    float *dst = tile + r * stride;
    if (r0 + r < limit)
      loadRow(p, src, nHeads, r0 + r, head, rotate, dst, lane, 32, posOffset);
    else
      for (int64_t d = lane; d < p.D; d += 32)
        dst[d] = 0.0f;
  }
}

/// a[D] . b[D] by one thread.
__device__ inline float dot(const float *a, const float *b, int64_t D) {
  float s = 0.0f;
  for (int64_t d = 0; d < D; ++d)
    s += a[d] * b[d];
  return s;
}

/// Dropout keep decision of element (b, h, i, j), b = blockIdx.z, i the
/// global query row.
__device__ inline bool attnKeep(const AttnParams &p, int64_t h, int64_t i,
                                int64_t j) {
  const uint64_t index =
      uint64_t(((int64_t(blockIdx.z) + p.batchOffset) * p.globalHeads + h +
                p.headOffset) *
                   p.S * p.S +
               i * p.S + j);
  return sprt::philox::dropoutKeep(p.seed ^ *p.salt, p.stream, index, p.rate);
}

/// The forward pass over the keys of global query row i of head h (the
/// calling warp's row; qRow in shared memory, rotated), with the block's K/V
/// tiles
/// in kT [kTile][paddedStride] and vT [kTile][D]. Returns the output
/// features in acc (lane's chunks), m and l of the undropped softmax.
/// keyEnd bounds the keys the block loads (uniform across the block).
__device__ inline void attendRow(const AttnParams &p, int64_t h, int64_t i,
                                 bool active, const float *qRow, float *kT,
                                 float *vT, int64_t keyEnd, float acc[kChunks],
                                 float &m, float &l) {
  const int lane = threadIdx.x & 31;
  const int64_t D = p.D, kStride = paddedStride(D);
  const int64_t g = h / p.group;
  m = -INFINITY;
  l = 0.0f;
  for (int c = 0; c < kChunks; ++c)
    acc[c] = 0.0f;
  for (int64_t k0 = 0; k0 < keyEnd; k0 += kTile) {
    __syncthreads(); // the previous tile is no longer read
    loadTile(p, p.k, p.kvHeads, g, k0, true, kT, kStride);
    loadTile(p, p.v, p.kvHeads, g, k0, false, vT, D);
    __syncthreads();
    if (!active)
      continue;
    const int64_t j = k0 + lane;
    const bool valid = keyVisible(p, i, j);
    const float s =
        valid ? p.scale * dot(qRow, kT + lane * kStride, D) : -INFINITY;
    const float mNew = fmaxf(m, warpMax(s));
    if (mNew == -INFINITY) // no visible key yet (only past the causal edge)
      continue;
    const float e = valid ? expf(s - mNew) : 0.0f;
    const float corr = expf(m - mNew); // 0 on the first visible tile
    l = l * corr + warpSum(e);
    m = mNew;
    float pd = e;
    if (p.dropout)
      pd = (valid && attnKeep(p, h, i, j)) ? e * p.keepScale : 0.0f;
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      acc[c] *= corr;
    const int64_t nValid = p.S - k0 < kTile ? p.S - k0 : kTile;
    for (int jj = 0; jj < nValid; ++jj) {
      const float pj = __shfl_sync(0xffffffffu, pd, jj);
      const float *vr = vT + jj * D;
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        const int64_t d = lane + 32 * c;
        if (d < D)
          acc[c] += pj * vr[d];
      }
    }
  }
}

/// Shared memory of a block of forwardRow: kT [kTile][D + 1], vT [kTile][D],
/// q rows [kWarps][D].
inline size_t forwardRowSharedBytes(int64_t D) {
  return size_t(kTile * paddedStride(D) + kTile * D + kWarps * D) *
         sizeof(float);
}

/// The forward of the calling warp's local query row i = blockIdx.x *
/// kWarps + warp (global row qOffset + i), of head blockIdx.y and batch
/// blockIdx.z (attendRow on the block's shared memory smem,
/// forwardRowSharedBytes): the unnormalised output in acc, m and l. Returns
/// i; a warp whose row is past Sq still loads its share of the tiles (every
/// thread reaches the barriers) and returns i >= Sq.
__device__ inline int64_t forwardRow(const AttnParams &p, float *smem,
                                     float acc[kChunks], float &m, float &l) {
  const int64_t D = p.D;
  float *kT = smem, *vT = kT + kTile * paddedStride(D), *qRows = vT + kTile * D;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t h = blockIdx.y, i0 = int64_t(blockIdx.x) * kWarps;
  const int64_t i = i0 + warp;
  const bool active = i < p.Sq;
  float *qRow = qRows + warp * D;
  if (active)
    loadRow(p, p.q, p.heads, i, h, true, qRow, lane, 32, p.qOffset);
  const int64_t rowsEnd = i0 + kWarps < p.Sq ? i0 + kWarps : p.Sq;
  const int64_t keyEnd = p.causal ? p.qOffset + rowsEnd : p.S;
  attendRow(p, h, p.qOffset + i, active, qRow, kT, vT, keyEnd, acc, m, l);
  return i;
}

} // namespace sprt::cuda

#endif // SPRT_CUDA_ATTENTIONCOMMON_CUH
