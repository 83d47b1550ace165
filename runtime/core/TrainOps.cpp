//===- TrainOps.cpp - backward ops that need the shard's position, and the
//                    optimizer step -----------------------------------===//

#include "Collectives.h"
#include "Failure.h"
#include "Mesh.h"
#include "MicroBatch.h"
#include "SeqSplit.h"
#include "Trace.h"
#include "Workspace.h"

#include "sprt/device.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <string>

using namespace sprt;

extern "C" void sprt_op_embedding_grad(const int64_t *ids, const float *dy,
                                       float *dtable, int64_t T, int64_t V,
                                       int64_t H, int32_t vocabAxis) {
  sprt_embedding_grad_f32(ids, dy, dtable, T, V, H,
                          sprt_axis_coord(vocabAxis) * V);
}

extern "C" void sprt_op_embedding_grad_typed(const int64_t *ids, const void *dy,
                                             int32_t dyDtype, void *dtable,
                                             int32_t dtableDtype, int64_t T,
                                             int64_t V, int64_t H,
                                             int32_t vocabAxis) {
  sprt_embedding_grad_typed(ids, dy, dyDtype, dtable, dtableDtype, T, V, H,
                            sprt_axis_coord(vocabAxis) * V);
}

extern "C" void sprt_op_label_logit_grad(const int64_t *labels, const float *dz,
                                         float *dlogits, int64_t T, int64_t V,
                                         int32_t vocabAxis,
                                         int64_t ignoreIndex) {
  sprt_label_logit_grad_f32(labels, dz, dlogits, T, V,
                            sprt_axis_coord(vocabAxis) * V, ignoreIndex);
}

extern "C" void sprt_op_attention_grad(const float *dout, const float *q,
                                       const float *k, const float *v,
                                       const int64_t *positions, float *dq,
                                       float *dk, float *dv,
                                       const sprt_attention_args *args) {
  const sprt_attention_args &a = *args;
  // One kernel call per run of q's rows: dq per run, dk and dv written by
  // the first and accumulated by the next.
  SeqPieces pieces = seqPieces(a.S, a.seq_axis, -1);
  const int64_t rowElems = a.B * a.heads * a.head_dim;
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  int32_t accumulate = 0;
  for (const SeqPiece &p : pieces) {
    sprt_attention_grad_f32(
        dout + p.localStart * rowElems, q + p.localStart * rowElems, k, v,
        positions, dq + p.localStart * rowElems, dk, dv, p.rows,
        pieces.globalRows, p.globalStart, a.B, a.heads, a.kv_heads, a.head_dim,
        a.causal, documentMask(a.document_causal), a.rotary_dim, a.theta,
        a.dropout_rate, sprt_dropout_key(), uint64_t(a.stream), rows.globalRows,
        rows.offset, a.heads * sprt_axis_size(a.head_axis),
        a.heads * sprt_axis_coord(a.head_axis), accumulate);
    accumulate = 1;
  }
}

extern "C" void sprt_op_attention_grad_typed(const void *dout, const void *q,
                                             const void *k, const void *v,
                                             const int64_t *positions, void *dq,
                                             void *dk, void *dv,
                                             const sprt_attention_args *args,
                                             int32_t dtype) {
  const sprt_attention_args &a = *args;
  // dk and dv of several runs of q's rows would be summed in their storage
  // type: sp-legalize-precision keeps a zigzag-split attention in f32.
  SeqPieces pieces = seqPieces(a.S, a.seq_axis, -1);
  if (pieces.count == 0)
    return;
  if (pieces.count != 1)
    fatal("sprt_op_attention_grad_typed: the sequence is split in zigzag "
          "order over mesh axis " +
          std::to_string(a.seq_axis) +
          "; its key and value gradients are summed in f32 "
          "(sprt_op_attention_grad)");
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  const SeqPiece &p = pieces.piece[0];
  sprt_attention_grad_typed(
      dout, q, k, v, positions, dq, dk, dv, p.rows, pieces.globalRows,
      p.globalStart, a.B, a.heads, a.kv_heads, a.head_dim, a.causal,
      documentMask(a.document_causal), a.rotary_dim, a.theta, a.dropout_rate,
      sprt_dropout_key(), uint64_t(a.stream), rows.globalRows, rows.offset,
      a.heads * sprt_axis_size(a.head_axis),
      a.heads * sprt_axis_coord(a.head_axis), dtype);
}

extern "C" void sprt_op_attention_grad_lse(const float *dout, const float *q,
                                           const float *k, const float *v,
                                           const int64_t *positions,
                                           const float *out, const float *lse,
                                           float *dq, float *dk, float *dv,
                                           const sprt_attention_args *args) {
  const sprt_attention_args &a = *args;
  // One kernel call per run of q's rows: dq per run, dk and dv written by
  // the first and accumulated by the next.
  SeqPieces pieces = seqPieces(a.S, a.seq_axis, -1);
  const int64_t rowElems = a.B * a.heads * a.head_dim, lseRow = a.B * a.heads;
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  int32_t accumulate = 0;
  for (const SeqPiece &p : pieces) {
    sprt_attention_grad_lse_f32(
        dout + p.localStart * rowElems, q + p.localStart * rowElems, k, v,
        positions, out + p.localStart * rowElems, lse + p.localStart * lseRow,
        dq + p.localStart * rowElems, dk, dv, p.rows, pieces.globalRows,
        p.globalStart, a.B, a.heads, a.kv_heads, a.head_dim, a.causal,
        documentMask(a.document_causal), a.rotary_dim, a.theta, a.dropout_rate,
        sprt_dropout_key(), uint64_t(a.stream), rows.globalRows, rows.offset,
        a.heads * sprt_axis_size(a.head_axis),
        a.heads * sprt_axis_coord(a.head_axis), accumulate);
    accumulate = 1;
  }
}

extern "C" void sprt_op_attention_grad_lse_typed(
    const void *dout, const void *q, const void *k, const void *v,
    const int64_t *positions, const void *out, const float *lse, void *dq,
    void *dk, void *dv, const sprt_attention_args *args, int32_t dtype) {
  const sprt_attention_args &a = *args;
  SeqPieces pieces = seqPieces(a.S, a.seq_axis, -1);
  if (pieces.count == 0)
    return;
  if (pieces.count != 1)
    fatal("sprt_op_attention_grad_lse_typed: the sequence is split in zigzag "
          "order over mesh axis " +
          std::to_string(a.seq_axis) +
          "; its key and value gradients are summed in f32 "
          "(sprt_op_attention_grad_lse)");
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  const SeqPiece &p = pieces.piece[0];
  sprt_attention_grad_lse_typed(
      dout, q, k, v, positions, out, lse, dq, dk, dv, p.rows, pieces.globalRows,
      p.globalStart, a.B, a.heads, a.kv_heads, a.head_dim, a.causal,
      documentMask(a.document_causal), a.rotary_dim, a.theta, a.dropout_rate,
      sprt_dropout_key(), uint64_t(a.stream), rows.globalRows, rows.offset,
      a.heads * sprt_axis_size(a.head_axis),
      a.heads * sprt_axis_coord(a.head_axis), dtype);
}

/// Copies n f32 elements from device to device memory.
static void copyFloats(float *dst, const float *src, int64_t n) {
  int64_t bytes = n * int64_t(sizeof(float));
  sprt_copy_2d(dst, bytes, src, bytes, bytes, 1, sprt_current_stream());
}

extern "C" void sprt_set_step(int64_t step) {
  mesh().step = step;
  mesh().stepping = true;
  mesh().optimizerStep = step;
  // Direct callers of the ops see the step's masks at once on the CPU
  // backend, whose host copy the kernels read; the compiled step uploads it.
  sprt_step_values_host()->dropout_salt = stepDropoutSalt();
  // A step begins with one micro-batch until the compiled step says
  // otherwise.
  mesh().microBatch = 0;
  mesh().microBatches = 1;
}
extern "C" int64_t sprt_get_step(void) { return mesh().step; }

/// Checks a hyperparameter table of n slots fits the step's values.
static void checkSlots(const char *fn, int64_t n) {
  if (n < 0 || n > SPRT_MAX_HYPERPARAMETERS)
    fatal(std::string(fn) + ": " + std::to_string(n) +
          " hyperparameters; the step's values hold at most " +
          std::to_string(int(SPRT_MAX_HYPERPARAMETERS)));
}

extern "C" void sprt_stage_step_values(const double *hyperparameters,
                                       int64_t n) {
  checkSlots("sprt_stage_step_values", n);
  sprt_step_values *host = sprt_step_values_host();
  for (int64_t i = 0; i < n; ++i)
    host->hyperparameters[i] = hyperparameters[i];
  host->optimizer_step = mesh().optimizerStep;
  host->dropout_salt = stepDropoutSalt();
}

extern "C" void sprt_upload_step_values(const double *hyperparameters,
                                        int64_t n) {
  sprt_stage_step_values(hyperparameters, n);
  sprt_step_values *host = sprt_step_values_host();
  sprt_step_values *device = sprt_step_values_device();
  if (device != host) // the CPU backend's are one
    sprt_memcpy_to_device(device, host, int64_t(sizeof(sprt_step_values)),
                          sprt_current_stream());
}

extern "C" const double *sprt_step_hyperparameter(int32_t slot) {
  if (slot < 0 || slot >= SPRT_MAX_HYPERPARAMETERS)
    fatal("sprt_step_hyperparameter: slot " + std::to_string(slot) +
          " is outside the step's values (0 to " +
          std::to_string(int(SPRT_MAX_HYPERPARAMETERS) - 1) + ")");
  return &sprt_step_values_device()->hyperparameters[slot];
}

extern "C" const int64_t *sprt_step_optimizer_step(void) {
  return &sprt_step_values_device()->optimizer_step;
}

extern "C" void sprt_op_scale(const float *x, float *y, int64_t n, double s) {
  if (x != y)
    copyFloats(y, x, n);
  sprt_scale_f32(y, n, s);
}

extern "C" void sprt_op_scale_by(const float *x, float *y, int64_t n,
                                 int32_t slot) {
  if (x != y)
    copyFloats(y, x, n);
  sprt_scale_by_f32(y, n, sprt_step_hyperparameter(slot));
}

extern "C" void sprt_op_sum_squares(int32_t count, const float *const *xs,
                                    const int64_t *sizes, float *out) {
  sprt_sum_squares_list_f32(count, xs, sizes, out);
}

extern "C" void sprt_op_clip_scale(const float *sumSquares, double maxNorm,
                                   double lossScale, float *scale,
                                   float *norm) {
  // A non-finite norm makes the scale NaN: the optimizers skip the update,
  // and main() sees the norm and stops the run or counts the step
  // (--on-nonfinite).
  // With loss scaling an overflow in the scaled gradients is such a norm
  // (main() backs the scale off instead).
  sprt_clip_scale_f32(sumSquares, maxNorm, lossScale, scale, norm);
}

extern "C" void sprt_op_clip_scale_by(const float *sumSquares, double maxNorm,
                                      int32_t lossScaleSlot, float *scale,
                                      float *norm) {
  sprt_clip_scale_by_f32(sumSquares, maxNorm,
                         sprt_step_hyperparameter(lossScaleSlot), scale, norm);
}

/// This rank's slice of a distributed optimizer over `outer` and `inner`
/// (-1: none), nested: coord(outer) * size(inner) + coord(inner).
static int64_t sliceIndex(int32_t outer, int32_t inner) {
  return sprt_axis_coord(outer) * sprt_axis_size(inner) +
         sprt_axis_coord(inner);
}

/// The n elements this rank updates of a parameter of element type `dtype`
/// (SPRT_DTYPE_*): its slice along the first dimension with a distributed
/// optimizer, else the whole shard.
static void *sliceOf(void *param, int32_t dtype, int32_t outer, int32_t inner,
                     int64_t n) {
  int64_t bytes = dtype == SPRT_DTYPE_F32 ? 4 : 2;
  return static_cast<char *>(param) + sliceIndex(outer, inner) * n * bytes;
}

extern "C" void sprt_op_sgd(float *param, const float *grad, const float *scale,
                            int64_t n, int32_t lrSlot, double weightDecay,
                            int32_t shardAxis, int32_t innerAxis) {
  sprt_sgd_f32(param + sliceIndex(shardAxis, innerAxis) * n, grad, scale, n,
               sprt_step_hyperparameter(lrSlot), weightDecay);
}

extern "C" void sprt_op_adamw(float *param, const float *grad, float *m,
                              float *v, const float *scale, int64_t n,
                              int32_t lrSlot, double beta1, double beta2,
                              double eps, double weightDecay, int32_t shardAxis,
                              int32_t innerAxis) {
  sprt_adamw_f32(param + sliceIndex(shardAxis, innerAxis) * n, grad, m, v,
                 scale, n, sprt_step_hyperparameter(lrSlot), beta1, beta2, eps,
                 weightDecay, sprt_step_optimizer_step());
}

extern "C" void sprt_op_sgd_master(float *master, void *param,
                                   int32_t paramDtype, const float *grad,
                                   const float *scale, int64_t n,
                                   int32_t lrSlot, double weightDecay,
                                   int32_t shardAxis, int32_t innerAxis) {
  sprt_sgd_master_f32(
      master, sliceOf(param, paramDtype, shardAxis, innerAxis, n), paramDtype,
      grad, scale, n, sprt_step_hyperparameter(lrSlot), weightDecay);
}

extern "C" void sprt_op_adamw_master(float *master, void *param,
                                     int32_t paramDtype, const float *grad,
                                     float *m, float *v, const float *scale,
                                     int64_t n, int32_t lrSlot, double beta1,
                                     double beta2, double eps,
                                     double weightDecay, int32_t shardAxis,
                                     int32_t innerAxis) {
  sprt_adamw_master_f32(
      master, sliceOf(param, paramDtype, shardAxis, innerAxis, n), paramDtype,
      grad, m, v, scale, n, sprt_step_hyperparameter(lrSlot), beta1, beta2, eps,
      weightDecay, sprt_step_optimizer_step());
}

extern "C" void sprt_all_gather_param(void *data, int64_t n, int64_t elemBytes,
                                      int32_t axis, int32_t within) {
  TraceSpan span("all_gather_param", axis);
  int64_t size = sprt_axis_size(axis);
  int64_t block = n / size * elemBytes;
  countBytes(axis, block * (size - 1));
  // In place: this rank's slice is already where the gathered tensor has
  // it. The region is this rank's block of `within` (n elements each).
  char *whole =
      static_cast<char *>(data) + sprt_axis_coord(within) * n * elemBytes;
  mesh().comm(axis).allGather(whole + sprt_axis_coord(axis) * block, whole,
                              block);
}

extern "C" void sprt_copy_scalar_to_host(float *dst, const float *src) {
  sprt_memcpy_to_host(dst, src, int64_t(sizeof(float)), sprt_current_stream());
}
