//===- AttentionGrad.cu - CUDA backward of fused attention ----------------===//
//
// sprt_attention_grad_f32 in three kernels, flash-attention-2 style, none of
// which stores the S x S matrix:
//
//  1. rowStats: per query row, the forward pass again (AttentionCommon.cuh)
//     gives the softmax max m_i, denominator l_i and output O_i; keep m_i,
//     l_i and delta_i = dO_i . O_i (= sum_j dP_ij P_ij with the dropout
//     mask folded into dP) in a scratch buffer [B, heads, S] (a cached
//     cudaMalloc, Common.cuh's scratch()).
//  2. dqKernel: per query row, over key tiles: P_ij = exp(s_ij - m_i) / l_i,
//     dP_ij = keep_ij / (1 - rate) * dO_i . v_j,
//     dS_ij = scale * P_ij * (dP_ij - delta_i), dq_i = sum_j dS_ij k_j,
//     then the rotation's transpose.
//  3. dkdvKernel: per key row j of a kv head, over the query heads of its
//     group in increasing order and query tiles: dv_j += Pd_ij dO_i,
//     dk_j += dS_ij q_i; per-head sums in float, added across the group in
//     double and rounded once (as the CPU backend), then unrotated (and
//     added to dk, dv in float with accumulate_dkv).
//
// Query rows may be a piece (Sq rows from global row q_offset) of the S
// keys' sequence (AttentionCommon.cuh): the statistics are per local row.
//
//===----------------------------------------------------------------------===//

#include "AttentionCommon.cuh"
#include "CudnnAttention.h"
#include "sprt/grad_kernels.h"

using namespace sprt::cuda;

namespace {

struct RowStats {
  float m, l, delta;
};

__global__ void __launch_bounds__(kWarps * 32)
    rowStats(const AttnParams p, RowStats *__restrict__ stats) {
  extern __shared__ float smem[];
  float acc[kChunks], m, l;
  const int64_t i = forwardRow(p, smem, acc, m, l);
  if (i >= p.Sq)
    return;
  const int64_t D = p.D, h = blockIdx.y;
  const int lane = threadIdx.x & 31;
  const float inv = 1.0f / l;
  const float *dO = p.dout + ((i * p.B + blockIdx.z) * p.heads + h) * D;
  float delta = 0.0f;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int64_t d = lane + 32 * c;
    if (d < D)
      delta += dO[d] * (acc[c] * inv);
  }
  delta = warpSum(delta);
  if (lane == 0)
    stats[(int64_t(blockIdx.z) * p.heads + h) * p.Sq + i] = {m, l, delta};
}

// The statistics from the forward's saved out and lse (the backward of
// sprt_attention_lse_f32): m = lse, l = 1, delta = dO . O; one thread a row.
__global__ void savedStats(const AttnParams p, const float *__restrict__ out,
                           const float *__restrict__ lse,
                           RowStats *__restrict__ stats) {
  SPRT_FOR_EACH(e, p.B * p.heads * p.Sq) {
    const int64_t i = e % p.Sq, h = (e / p.Sq) % p.heads,
                  b = e / (p.Sq * p.heads);
    const int64_t row = (i * p.B + b) * p.heads + h;
    const float *o = out + row * p.D, *dO = p.dout + row * p.D;
    float delta = 0.0f;
    for (int64_t d = 0; d < p.D; ++d)
      delta += dO[d] * o[d];
    stats[e] = {lse[row], 1.0f, delta};
  }
}

// Writes row[D] (gradients w.r.t. rotated features) through the rotation's
// transpose (rotation by -angle) to dst (added to it when `accumulate`),
// by one warp. `pos` is the row's position.
template <typename T>
__device__ void unrotateStore(const AttnParams &p, const T *row, float pos,
                              float *dst, bool accumulate = false) {
  const int lane = threadIdx.x & 31;
  const int half = p.half;
  for (int64_t d = lane; d < p.D; d += 32) {
    float x;
    if (d < half) {
      float sn, c;
      sincosf(pos * p.invFreq[d], &sn, &c);
      x = float(row[d] * T(c) + row[d + half] * T(sn));
    } else if (d < 2 * half) {
      float sn, c;
      sincosf(pos * p.invFreq[d - half], &sn, &c);
      x = float(row[d] * T(c) - row[d - half] * T(sn));
    } else {
      x = float(row[d]);
    }
    dst[d] = accumulate ? dst[d] + x : x;
  }
}

// Shared memory: kT, vT [kTile][D + 1]; q and dO rows [kWarps][D].
size_t dqSharedBytes(int64_t D) {
  return size_t(2 * kTile * paddedStride(D) + 2 * kWarps * D) * sizeof(float);
}

__global__ void __launch_bounds__(kWarps * 32)
    dqKernel(const AttnParams p, const RowStats *__restrict__ stats,
             float *__restrict__ dq) {
  extern __shared__ float smem[];
  const int64_t D = p.D, stride = paddedStride(D);
  float *kT = smem, *vT = kT + kTile * stride, *qRows = vT + kTile * stride,
        *dORows = qRows + kWarps * D;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t h = blockIdx.y, g = h / p.group;
  const int64_t i0 = int64_t(blockIdx.x) * kWarps, i = i0 + warp;
  const int64_t gi = p.qOffset + i; // the global query row
  const bool active = i < p.Sq;
  float *qRow = qRows + warp * D, *dORow = dORows + warp * D;
  RowStats st{0.0f, 1.0f, 0.0f};
  if (active) {
    loadRow(p, p.q, p.heads, i, h, true, qRow, lane, 32, p.qOffset);
    loadRow(p, p.dout, p.heads, i, h, false, dORow, lane, 32);
    st = stats[(int64_t(blockIdx.z) * p.heads + h) * p.Sq + i];
  }
  const float invL = 1.0f / st.l;
  const int64_t rowsEnd = i0 + kWarps < p.Sq ? i0 + kWarps : p.Sq;
  const int64_t keyEnd = p.causal ? p.qOffset + rowsEnd : p.S;
  float acc[kChunks];
#pragma unroll
  for (int c = 0; c < kChunks; ++c)
    acc[c] = 0.0f;
  for (int64_t k0 = 0; k0 < keyEnd; k0 += kTile) {
    __syncthreads();
    loadTile(p, p.k, p.kvHeads, g, k0, true, kT, stride);
    loadTile(p, p.v, p.kvHeads, g, k0, false, vT, stride);
    __syncthreads();
    if (!active)
      continue;
    const int64_t j = k0 + lane;
    const bool valid = keyVisible(p, gi, j);
    float ds = 0.0f;
    if (valid) {
      const float s = p.scale * dot(qRow, kT + lane * stride, D);
      const float prob = expf(s - st.m) * invL;
      float dp = dot(dORow, vT + lane * stride, D);
      if (p.dropout)
        dp = attnKeep(p, h, gi, j) ? dp * p.keepScale : 0.0f;
      ds = float(double(p.scale) * double(prob) *
                 (double(dp) - double(st.delta)));
    }
    const int64_t nValid = p.S - k0 < kTile ? p.S - k0 : kTile;
    for (int jj = 0; jj < nValid; ++jj) {
      const float dsj = __shfl_sync(0xffffffffu, ds, jj);
      const float *kr = kT + jj * stride;
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        const int64_t d = lane + 32 * c;
        if (d < D)
          acc[c] += dsj * kr[d];
      }
    }
  }
  if (!active)
    return;
    // Through shared memory: the rotation pairs features of different lanes.
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int64_t d = lane + 32 * c;
    if (d < D)
      qRow[d] = acc[c];
  }
  __syncwarp();
  unrotateStore(p, qRow, rowPosition(p, gi),
                dq + ((i * p.B + blockIdx.z) * p.heads + h) * D);
}

// Shared memory: qT, dOT [kTile][D + 1]; k and v rows [kWarps][D]; the
// tile's row statistics [kTile]; per-warp double rows [kWarps][D] for the
// final rotation.
size_t dkdvSharedBytes(int64_t D) {
  return size_t(2 * kTile * paddedStride(D) + 2 * kWarps * D) * sizeof(float) +
         kTile * sizeof(RowStats) + size_t(kWarps * D) * sizeof(double);
}

__global__ void __launch_bounds__(kWarps * 32)
    dkdvKernel(const AttnParams p, const RowStats *__restrict__ stats,
               float *__restrict__ dk, float *__restrict__ dv) {
  extern __shared__ double smemD[];
  const int64_t D = p.D, stride = paddedStride(D);
  double *accRows = smemD; // [kWarps][D]
  float *qT = reinterpret_cast<float *>(accRows + kWarps * D);
  float *dOT = qT + kTile * stride, *kRows = dOT + kTile * stride,
        *vRows = kRows + kWarps * D;
  RowStats *tileStats = reinterpret_cast<RowStats *>(vRows + kWarps * D);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t g = blockIdx.y;
  const int64_t j0 = int64_t(blockIdx.x) * kWarps, j = j0 + warp;
  const bool active = j < p.S;
  float *kRow = kRows + warp * D, *vRow = vRows + warp * D;
  if (active) {
    loadRow(p, p.k, p.kvHeads, j, g, true, kRow, lane, 32);
    loadRow(p, p.v, p.kvHeads, j, g, false, vRow, lane, 32);
  }
  double dkAcc[kChunks], dvAcc[kChunks];
#pragma unroll
  for (int c = 0; c < kChunks; ++c)
    dkAcc[c] = dvAcc[c] = 0.0;
  // Queries that see this block's keys: global rows >= j0 under a causal
  // mask, local rows >= j0 - qOffset.
  const int64_t qStart =
      p.causal ? (j0 - p.qOffset > 0 ? j0 - p.qOffset : 0) : 0;
  for (int64_t r = 0; r < p.group; ++r) {
    const int64_t h = g * p.group + r;
    float dkH[kChunks], dvH[kChunks];
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      dkH[c] = dvH[c] = 0.0f;
    for (int64_t q0 = qStart; q0 < p.Sq; q0 += kTile) {
      __syncthreads();
      loadTile(p, p.q, p.heads, h, q0, true, qT, stride, p.Sq, p.qOffset);
      loadTile(p, p.dout, p.heads, h, q0, false, dOT, stride, p.Sq);
      if (threadIdx.x < kTile) {
        const int64_t i = q0 + threadIdx.x;
        tileStats[threadIdx.x] =
            i < p.Sq ? stats[(int64_t(blockIdx.z) * p.heads + h) * p.Sq + i]
                     : RowStats{0.0f, 1.0f, 0.0f};
      }
      __syncthreads();
      if (!active)
        continue;
      const int64_t i = q0 + lane, gi = p.qOffset + i;
      const bool valid = i < p.Sq && keyVisible(p, gi, j);
      float pd = 0.0f, ds = 0.0f;
      if (valid) {
        const RowStats st = tileStats[lane];
        const float s = p.scale * dot(qT + lane * stride, kRow, D);
        const float prob = expf(s - st.m) / st.l;
        float dp = dot(dOT + lane * stride, vRow, D);
        pd = prob;
        if (p.dropout) {
          const bool keep = attnKeep(p, h, gi, j);
          pd = keep ? prob * p.keepScale : 0.0f;
          dp = keep ? dp * p.keepScale : 0.0f;
        }
        ds = float(double(p.scale) * double(prob) *
                   (double(dp) - double(st.delta)));
      }
      const int64_t nValid = p.Sq - q0 < kTile ? p.Sq - q0 : kTile;
      for (int ii = 0; ii < nValid; ++ii) {
        const float pdi = __shfl_sync(0xffffffffu, pd, ii);
        const float dsi = __shfl_sync(0xffffffffu, ds, ii);
        const float *qr = qT + ii * stride, *dor = dOT + ii * stride;
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          const int64_t d = lane + 32 * c;
          if (d < D) {
            dvH[c] += pdi * dor[d];
            dkH[c] += dsi * qr[d];
          }
        }
      }
    }
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      dkAcc[c] += double(dkH[c]);
      dvAcc[c] += double(dvH[c]);
    }
  }
  if (!active)
    return;
  const int64_t outRow = ((j * p.B + blockIdx.z) * p.kvHeads + g) * D;
  double *accRow = accRows + warp * D;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int64_t d = lane + 32 * c;
    if (d < D) {
      dv[outRow + d] =
          p.accumulate ? dv[outRow + d] + float(dvAcc[c]) : float(dvAcc[c]);
      accRow[d] = dkAcc[c];
    }
  }
  __syncwarp();
  unrotateStore(p, accRow, rowPosition(p, j), dk + outRow, p.accumulate);
}

} // namespace

/// dq (written) and dk, dv (written or added to, p.accumulate) from the
/// rows' statistics.
static void gradients(const AttnParams &p, const RowStats *stats, float *dq,
                      float *dk, float *dv, const char *what) {
  cudaStream_t st = sprt::cuda::stream();
  const unsigned rowTiles = unsigned((p.Sq + kWarps - 1) / kWarps);
  const unsigned keyTiles = unsigned((p.S + kWarps - 1) / kWarps);
  size_t smem = dqSharedBytes(p.D);
  allowSharedMemory(reinterpret_cast<const void *>(&dqKernel), smem, what);
  dqKernel<<<dim3(rowTiles, unsigned(p.heads), unsigned(p.B)), kWarps * 32,
             smem, st>>>(p, stats, dq);
  SPRT_CUDA_CHECK_LAUNCH("dqKernel");
  smem = dkdvSharedBytes(p.D);
  allowSharedMemory(reinterpret_cast<const void *>(&dkdvKernel), smem, what);
  dkdvKernel<<<dim3(keyTiles, unsigned(p.kvHeads), unsigned(p.B)), kWarps * 32,
               smem, st>>>(p, stats, dk, dv);
  SPRT_CUDA_CHECK_LAUNCH("dkdvKernel");
}

static RowStats *statsScratch(const AttnParams &p) {
  return static_cast<RowStats *>(
      scratch(Scratch::AttentionStats,
              size_t(p.B * p.heads * p.Sq) * sizeof(RowStats)));
}

extern "C" void sprt_attention_grad_f32(
    const float *dout, const float *q, const float *k, const float *v,
    const int64_t *positions, float *dq, float *dk, float *dv, int64_t Sq,
    int64_t Sk, int64_t q_offset, int64_t B, int64_t heads, int64_t kv_heads,
    int64_t head_dim, int32_t causal, int32_t document_causal,
    int64_t rotary_dim, double theta, double dropout_rate, uint64_t seed,
    uint64_t stream, int64_t global_batch, int64_t batch_offset,
    int64_t global_heads, int64_t head_offset, int32_t accumulate_dkv) {
  (void)global_batch; // The global index only needs the heads extent.
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  const AttnCall call =
      sequenceCall(q, k, v, positions, Sq, Sk, q_offset, B, heads, kv_heads,
                   head_dim, causal, document_causal, rotary_dim, theta,
                   dropout_rate, seed, stream, batch_offset, head_offset);
  if (cudnnAttentionGrad(call, dout, dq, dk, dv, accumulate_dkv != 0))
    return;
  AttnParams p = makeAttnParams(
      q, k, v, dout, positions, Sq, Sk, q_offset, B, heads, kv_heads, head_dim,
      causal, document_causal, rotary_dim, theta, dropout_rate, seed, stream,
      batch_offset, global_heads, head_offset, "sprt_attention_grad_f32");
  p.accumulate = accumulate_dkv != 0;
  RowStats *stats = statsScratch(p);
  const size_t smem = forwardRowSharedBytes(head_dim);
  allowSharedMemory(reinterpret_cast<const void *>(&rowStats), smem,
                    "sprt_attention_grad_f32: shared memory");
  rowStats<<<dim3(unsigned((Sq + kWarps - 1) / kWarps), unsigned(heads),
                  unsigned(B)),
             kWarps * 32, smem, sprt::cuda::stream()>>>(p, stats);
  SPRT_CUDA_CHECK_LAUNCH("rowStats");
  gradients(p, stats, dq, dk, dv, "sprt_attention_grad_f32: shared memory");
}

extern "C" void sprt_attention_grad_lse_f32(
    const float *dout, const float *q, const float *k, const float *v,
    const int64_t *positions, const float *out, const float *lse, float *dq,
    float *dk, float *dv, int64_t Sq, int64_t Sk, int64_t q_offset, int64_t B,
    int64_t heads, int64_t kv_heads, int64_t head_dim, int32_t causal,
    int32_t document_causal, int64_t rotary_dim, double theta,
    double dropout_rate, uint64_t seed, uint64_t stream, int64_t global_batch,
    int64_t batch_offset, int64_t global_heads, int64_t head_offset,
    int32_t accumulate_dkv) {
  (void)global_batch;
  if (Sq <= 0 || Sk <= 0 || B <= 0 || heads <= 0 || kv_heads <= 0 ||
      head_dim <= 0)
    return;
  const AttnCall call =
      sequenceCall(q, k, v, positions, Sq, Sk, q_offset, B, heads, kv_heads,
                   head_dim, causal, document_causal, rotary_dim, theta,
                   dropout_rate, seed, stream, batch_offset, head_offset);
  // cuDNN's block backward adds its gradients: from zero (dk and dv unless
  // accumulated).
  const int64_t qN = Sq * B * heads * head_dim,
                kvN = Sk * B * kv_heads * head_dim;
  if (cudnnSelected()) {
    sprt_fill_f32(dq, qN, 0.0);
    if (!accumulate_dkv) {
      sprt_fill_f32(dk, kvN, 0.0);
      sprt_fill_f32(dv, kvN, 0.0);
    }
    if (cudnnAttentionBlockGrad(call, dout, out, lse, dq, dk, dv))
      return;
  }
  AttnParams p = makeAttnParams(
      q, k, v, dout, positions, Sq, Sk, q_offset, B, heads, kv_heads, head_dim,
      causal, document_causal, rotary_dim, theta, dropout_rate, seed, stream,
      batch_offset, global_heads, head_offset, "sprt_attention_grad_lse_f32");
  p.accumulate = accumulate_dkv != 0;
  RowStats *stats = statsScratch(p);
  // SPRT_LAUNCH's stream() is hidden here by the dropout stream argument.
  savedStats<<<gridFor(B * heads * Sq), kThreads, 0, sprt::cuda::stream()>>>(
      p, out, lse, stats);
  SPRT_CUDA_CHECK_LAUNCH("savedStats");
  gradients(p, stats, dq, dk, dv, "sprt_attention_grad_lse_f32: shared memory");
}
