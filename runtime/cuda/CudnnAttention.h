//===- CudnnAttention.h - attention on cuDNN, inside the backend -*- C++
//-*-===//
//
// The sprt_attention* entry points (Attention.cu, AttentionGrad.cu,
// AttentionBlock.cu) first offer their call here; when the cuDNN path is
// selected (sprt_attention_select) and cuDNN can run the call's shape, it
// runs there and the call returns true; otherwise nothing was issued and
// the native kernel runs.
//
// The cuDNN path stages the f32 tensors into bf16 / f16 (the program's
// precision), with rotary applied to q and k on the way in and its
// transpose to dq and dk on the way out, builds a bias mask for what a
// diagonal band cannot say (document boundaries, ring blocks below the
// diagonal), and merges a ring block's result by log-sum-exp as the native
// block kernel does. The backward of a call with saved statistics (the
// _lse entry points, a ring block) reads the forward's output and
// statistics; the others recompute the forward first, as the native
// backward does. Dropout masks are cuDNN's own (Philox seeded from the call's
// seed, stream and offsets), the same in a call's forward and backward, not the
// CPU backend's.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_CUDNNATTENTION_H
#define SPRT_CUDA_CUDNNATTENTION_H

#include <cstdint>

namespace sprt::cuda {

/// One attention call's arguments. Positions of query row i (local) are
/// qPos[(i + qPosRow) * B + b] (NULL: the global row qOffset + i), of key
/// row j kPos[(j + kPosRow) * B + b] (NULL: kOffset + j); the document mask
/// reads the queries' positions. q, k, v (and every other tensor of the
/// call) are f32, or, when `stored`, the program's bf16 / f16 as stored.
struct AttnCall {
  const void *q, *k, *v;
  const int64_t *qPos, *kPos;
  int64_t qPosRow, kPosRow;
  int64_t Sq, Sk, qOffset, kOffset, B, heads, kvHeads, D;
  bool causal, documentCausal;
  int64_t rotaryDim;
  double theta, rate;
  uint64_t seed, stream;
  int64_t batchOffset, headOffset;
  bool stored = false;
};

/// The call of sprt_attention_f32 (its grad, its typed variants): query
/// row i is global row qOffset + i, keys start at row 0, and both read
/// their positions from `positions`.
inline AttnCall sequenceCall(const void *q, const void *k, const void *v,
                             const int64_t *positions, int64_t Sq, int64_t Sk,
                             int64_t qOffset, int64_t B, int64_t heads,
                             int64_t kvHeads, int64_t D, int32_t causal,
                             int32_t documentCausal, int64_t rotaryDim,
                             double theta, double rate, uint64_t seed,
                             uint64_t stream, int64_t batchOffset,
                             int64_t headOffset, bool stored = false) {
  AttnCall c{q,
             k,
             v,
             positions,
             positions,
             qOffset,
             0,
             Sq,
             Sk,
             qOffset,
             0,
             B,
             heads,
             kvHeads,
             D,
             causal != 0,
             documentCausal != 0,
             rotaryDim,
             theta,
             rate,
             seed,
             stream,
             batchOffset,
             headOffset};
  c.stored = stored;
  return c;
}

/// The call of sprt_attention_block_f32 (and its grad): positions of query
/// and key rows from their own tensors, from row 0.
inline AttnCall blockCall(const void *q, const void *k, const void *v,
                          const int64_t *qPos, const int64_t *kPos, int64_t Sq,
                          int64_t Sk, int64_t qOffset, int64_t kOffset,
                          int64_t B, int64_t heads, int64_t kvHeads, int64_t D,
                          int32_t causal, int32_t documentCausal,
                          int64_t rotaryDim, double theta, double rate,
                          uint64_t seed, uint64_t stream, int64_t batchOffset,
                          int64_t headOffset) {
  return AttnCall{q,
                  k,
                  v,
                  qPos,
                  kPos,
                  0,
                  0,
                  Sq,
                  Sk,
                  qOffset,
                  kOffset,
                  B,
                  heads,
                  kvHeads,
                  D,
                  causal != 0,
                  documentCausal != 0,
                  rotaryDim,
                  theta,
                  rate,
                  seed,
                  stream,
                  batchOffset,
                  headOffset};
}

/// Whether sprt_attention_select chose cuDNN (a call may still run
/// natively: a shape cuDNN refuses).
bool cudnnSelected();
/// sprt_attention_f32 on cuDNN: out [Sq, B, heads D].
bool cudnnAttention(const AttnCall &c, float *out);
/// sprt_attention_grad_f32 on cuDNN (dk, dv added to when accumulateDkv).
bool cudnnAttentionGrad(const AttnCall &c, const float *dout, float *dq,
                        float *dk, float *dv, bool accumulateDkv);
/// sprt_attention_block_f32 on cuDNN (merged into out, lse when
/// accumulate).
bool cudnnAttentionBlock(const AttnCall &c, float *out, float *lse,
                         bool accumulate);
/// sprt_attention_typed on cuDNN, `c.stored`: q, k, v, out in `dtype`,
/// read and written by cuDNN directly where no rotation is applied (false
/// when dtype is not the selected bf16 / f16).
bool cudnnAttentionStored(const AttnCall &c, void *out, int32_t dtype);
/// sprt_attention_grad_typed on cuDNN, `c.stored` (dq, dk, dv written).
bool cudnnAttentionGradStored(const AttnCall &c, const void *dout, void *dq,
                              void *dk, void *dv, int32_t dtype);
/// sprt_attention_lse_typed on cuDNN, `c.stored`: out as stored, lse
/// from cuDNN's statistics.
bool cudnnAttentionStoredLse(const AttnCall &c, void *out, float *lse,
                             int32_t dtype);
/// sprt_attention_grad_lse_typed on cuDNN, `c.stored`: its backward given
/// the saved out and lse, no forward (dq, dk, dv written).
bool cudnnAttentionGradStoredLse(const AttnCall &c, const void *dout,
                                 const void *out, const float *lse, void *dq,
                                 void *dk, void *dv, int32_t dtype);
/// sprt_attention_block_grad_f32 on cuDNN (added to dq, dk, dv).
bool cudnnAttentionBlockGrad(const AttnCall &c, const float *dout,
                             const float *out, const float *lse, float *dq,
                             float *dk, float *dv);

} // namespace sprt::cuda

#endif // SPRT_CUDA_CUDNNATTENTION_H
