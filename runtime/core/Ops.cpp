//===- Ops.cpp - forward ops that depend on where the shard sits ----------===//
//
// Compiled code knows which mesh axis splits which dimension; the rank's
// coordinate on that axis is known only at run time. These wrappers turn the
// two into the offsets the kernels take.
//
//===----------------------------------------------------------------------===//

#include "Failure.h"
#include "Mesh.h"
#include "MicroBatch.h"
#include "SeqSplit.h"

#include "sprt/device.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <string>
#include <vector>

using namespace sprt;

namespace {
/// The step's position ids set by sprt_set_position_ids (packed documents).
struct StepPositions {
  const int64_t *global = nullptr; // [step batch, seq], natural order
  int64_t batch = 0, seq = 0;
  int32_t batchAxis = -1;
  std::vector<int64_t> local; // the host copy of a shard
};
StepPositions stepPositions;
} // namespace

extern "C" void sprt_set_position_ids(const int64_t *positions,
                                      int64_t globalBatch, int64_t globalSeq,
                                      int32_t batchAxis) {
  stepPositions.global = positions;
  stepPositions.batch = globalBatch;
  stepPositions.seq = globalSeq;
  stepPositions.batchAxis = batchAxis;
}

int32_t sprt::documentMask(int32_t code, bool packed) {
  if (code == SPRT_DOCUMENTS_STEP_POSITIONS)
    return packed ? 1 : 0;
  return code != SPRT_DOCUMENTS_NONE ? 1 : 0;
}

int32_t sprt::documentMask(int32_t code) {
  return documentMask(code, stepPositions.global != nullptr);
}

extern "C" void sprt_op_position_ids(int64_t *out, int64_t S, int64_t B,
                                     int32_t seqAxis, int32_t zigzagAxis) {
  SeqPieces pieces = seqPieces(S, zigzagAxis, seqAxis);
  StepPositions &given = stepPositions;
  if (!given.global) {
    for (const SeqPiece &p : pieces)
      sprt_position_ids_i64(out + p.localStart * B, p.rows, B, p.globalStart);
    return;
  }
  refuseCapture("sprt_op_position_ids copies the step's packed position ids "
                "from the host");
  // The current micro-batch's rows of the step's batch.
  const BatchGeometry rows = batchGeometry(B, given.batchAxis);
  if (pieces.globalRows != given.seq || rows.globalRows != given.batch)
    fatal("sprt_op_position_ids: the program's sequence of " +
          std::to_string(pieces.globalRows) + " rows and batch of " +
          std::to_string(B) + " local rows" +
          (microBatchCount() > 1
               ? " (" + std::to_string(microBatchCount()) + " micro-batches)"
               : std::string()) +
          " do not match the data's [" + std::to_string(given.batch) + ", " +
          std::to_string(given.seq) + "] position ids");
  const int64_t b0 = rows.offset;
  given.local.assign(size_t(S * B), 0);
  for (const SeqPiece &p : pieces)
    for (int64_t i = 0; i < p.rows; ++i)
      for (int64_t j = 0; j < B; ++j)
        given.local[size_t((p.localStart + i) * B + j)] =
            given.global[(b0 + j) * given.seq + p.globalStart + i];
  sprt_memcpy_to_device(out, given.local.data(),
                        int64_t(given.local.size() * sizeof(int64_t)),
                        sprt_current_stream());
}

extern "C" void sprt_op_embedding(const int64_t *ids, const float *table,
                                  float *out, int64_t T, int64_t V, int64_t H,
                                  int32_t vocabAxis) {
  sprt_embedding_f32(ids, table, out, T, V, H, sprt_axis_coord(vocabAxis) * V);
}

extern "C" void sprt_op_embedding_typed(const int64_t *ids, const void *table,
                                        void *out, int64_t T, int64_t V,
                                        int64_t H, int32_t vocabAxis,
                                        int32_t dtype) {
  sprt_embedding_typed(ids, table, out, T, V, H, sprt_axis_coord(vocabAxis) * V,
                       dtype);
}

/// Calls piece(byteOffset, shape, global, offset) for each run of global
/// rows of dim 0 of a dropout's local [d0, d1, d2] tensor (of `rank`): the
/// run's byte offset in the local tensor of `dtype` and its geometry for
/// the backend's dropout.
template <typename Piece>
static void forEachDropoutPiece(int32_t rank, int64_t d0, int64_t d1,
                                int64_t d2, int32_t a0, int32_t a1, int32_t a2,
                                int32_t z0, int32_t dtype, Piece piece) {
  int64_t shape[3] = {d0, d1, d2}, global[3], offset[3];
  int32_t axes[3] = {a0, a1, a2};
  for (int i = 0; i < 3; ++i) {
    global[i] = shape[i] * sprt_axis_size(axes[i]);
    offset[i] = shape[i] * sprt_axis_coord(axes[i]);
  }
  // [s, b, h]: the batch rows of the current micro-batch in the step's.
  if (rank == 3) {
    const BatchGeometry rows = batchGeometry(d1, a1);
    global[1] = rows.globalRows;
    offset[1] = rows.offset;
  }
  // Dim 0 in contiguous runs of global rows: one kernel call per run.
  SeqPieces pieces = seqPieces(d0, z0, a0);
  global[0] = pieces.globalRows;
  // The bytes of a row of dims 1 and 2.
  const int64_t rowBytes = d1 * d2 * (dtype == SPRT_DTYPE_F32 ? 4 : 2);
  for (const SeqPiece &p : pieces) {
    shape[0] = p.rows;
    offset[0] = p.globalStart;
    piece(p.localStart * rowBytes, shape, global, offset);
  }
}

/// `p` advanced by `bytes`.
static const void *advance(const void *p, int64_t bytes) {
  return p ? static_cast<const char *>(p) + bytes : nullptr;
}
static void *advance(void *p, int64_t bytes) {
  return p ? static_cast<char *>(p) + bytes : nullptr;
}

/// sprt_op_dropout_typed, added to `residual` when it is not null
/// (sprt_op_dropout_add_typed).
static void dropoutPieces(const void *x, const void *residual, void *y,
                          int32_t rank, int64_t d0, int64_t d1, int64_t d2,
                          int32_t a0, int32_t a1, int32_t a2, int32_t z0,
                          double rate, int64_t stream, int32_t dtype) {
  forEachDropoutPiece(rank, d0, d1, d2, a0, a1, a2, z0, dtype,
                      [&](int64_t at, const int64_t *shape,
                          const int64_t *global, const int64_t *offset) {
                        if (residual)
                          sprt_dropout_add_typed(
                              advance(x, at), advance(residual, at),
                              advance(y, at), rank, shape, global, offset, rate,
                              sprt_dropout_key(), uint64_t(stream), dtype);
                        else
                          sprt_dropout_typed(advance(x, at), advance(y, at),
                                             nullptr, rank, shape, global,
                                             offset, rate, sprt_dropout_key(),
                                             uint64_t(stream), dtype);
                      });
}

// The residual sum with dropout and its norm, run by run of dim 0 (each
// run whole rows of the norm).
extern "C" void sprt_op_dropout_add_layer_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, const void *bias, int32_t bias_dtype, void *sum,
    void *y, int32_t y_dtype, int32_t rank, int64_t d0, int64_t d1, int64_t d2,
    int32_t a0, int32_t a1, int32_t a2, int32_t z0, double rate, int64_t stream,
    int32_t dtype, double eps) {
  const int64_t yBytes = y_dtype == SPRT_DTYPE_F32 ? 4 : 2,
                sumBytes = dtype == SPRT_DTYPE_F32 ? 4 : 2;
  forEachDropoutPiece(rank, d0, d1, d2, a0, a1, a2, z0, dtype,
                      [&](int64_t at, const int64_t *shape,
                          const int64_t *global, const int64_t *offset) {
                        sprt_dropout_add_layer_norm_typed(
                            advance(x, at), advance(residual, at), weight,
                            weight_dtype, bias, bias_dtype, advance(sum, at),
                            advance(y, at / sumBytes * yBytes), y_dtype, rank,
                            shape, global, offset, rate, sprt_dropout_key(),
                            uint64_t(stream), dtype, eps);
                      });
}

extern "C" void sprt_op_dropout_add_rms_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, void *sum, void *y, int32_t y_dtype, int32_t rank,
    int64_t d0, int64_t d1, int64_t d2, int32_t a0, int32_t a1, int32_t a2,
    int32_t z0, double rate, int64_t stream, int32_t dtype, double eps) {
  const int64_t yBytes = y_dtype == SPRT_DTYPE_F32 ? 4 : 2,
                sumBytes = dtype == SPRT_DTYPE_F32 ? 4 : 2;
  forEachDropoutPiece(rank, d0, d1, d2, a0, a1, a2, z0, dtype,
                      [&](int64_t at, const int64_t *shape,
                          const int64_t *global, const int64_t *offset) {
                        sprt_dropout_add_rms_norm_typed(
                            advance(x, at), advance(residual, at), weight,
                            weight_dtype, advance(sum, at),
                            advance(y, at / sumBytes * yBytes), y_dtype, rank,
                            shape, global, offset, rate, sprt_dropout_key(),
                            uint64_t(stream), dtype, eps);
                      });
}

extern "C" void sprt_op_dropout_typed(const void *x, void *y, int32_t rank,
                                      int64_t d0, int64_t d1, int64_t d2,
                                      int32_t a0, int32_t a1, int32_t a2,
                                      int32_t z0, double rate, int64_t stream,
                                      int32_t dtype) {
  dropoutPieces(x, nullptr, y, rank, d0, d1, d2, a0, a1, a2, z0, rate, stream,
                dtype);
}

extern "C" void sprt_op_dropout_add_typed(const void *x, const void *residual,
                                          void *y, int32_t rank, int64_t d0,
                                          int64_t d1, int64_t d2, int32_t a0,
                                          int32_t a1, int32_t a2, int32_t z0,
                                          double rate, int64_t stream,
                                          int32_t dtype) {
  dropoutPieces(x, residual, y, rank, d0, d1, d2, a0, a1, a2, z0, rate, stream,
                dtype);
}

extern "C" void sprt_op_dropout(const float *x, float *y, int32_t rank,
                                int64_t d0, int64_t d1, int64_t d2, int32_t a0,
                                int32_t a1, int32_t a2, int32_t z0, double rate,
                                int64_t stream) {
  sprt_op_dropout_typed(x, y, rank, d0, d1, d2, a0, a1, a2, z0, rate, stream,
                        SPRT_DTYPE_F32);
}

extern "C" void sprt_op_attention(const float *q, const float *k,
                                  const float *v, const int64_t *positions,
                                  float *out, const sprt_attention_args *args) {
  const sprt_attention_args &a = *args;
  // q's rows in runs of global rows over the whole sequence of k and v.
  SeqPieces pieces = seqPieces(a.S, a.seq_axis, -1);
  const int64_t rowElems = a.B * a.heads * a.head_dim;
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  for (const SeqPiece &p : pieces)
    sprt_attention_f32(q + p.localStart * rowElems, k, v, positions,
                       out + p.localStart * rowElems, p.rows, pieces.globalRows,
                       p.globalStart, a.B, a.heads, a.kv_heads, a.head_dim,
                       a.causal, documentMask(a.document_causal), a.rotary_dim,
                       a.theta, a.dropout_rate, sprt_dropout_key(),
                       uint64_t(a.stream), rows.globalRows, rows.offset,
                       a.heads * sprt_axis_size(a.head_axis),
                       a.heads * sprt_axis_coord(a.head_axis));
}

extern "C" void sprt_op_attention_prepare(const sprt_attention_args *args,
                                          int32_t backward,
                                          int32_t packed_documents) {
  const sprt_attention_args &a = *args;
  // The runs sprt_op_attention computes.
  SeqPieces pieces = seqPieces(a.S, a.seq_axis, -1);
  for (const SeqPiece &p : pieces)
    sprt_attention_prepare(p.rows, pieces.globalRows, p.globalStart, 0, a.B,
                           a.heads, a.kv_heads, a.head_dim, a.causal,
                           documentMask(a.document_causal, packed_documents),
                           a.dropout_rate, backward);
}

/// The bytes of an element of `dtype` (SPRT_DTYPE_*).
static int64_t dtypeBytes(int32_t dtype) {
  return dtype == SPRT_DTYPE_F32 ? 4 : 2;
}

extern "C" void sprt_op_attention_typed(const void *q, const void *k,
                                        const void *v, const int64_t *positions,
                                        void *out,
                                        const sprt_attention_args *args,
                                        int32_t dtype) {
  const sprt_attention_args &a = *args;
  SeqPieces pieces = seqPieces(a.S, a.seq_axis, -1);
  const int64_t rowBytes = a.B * a.heads * a.head_dim * dtypeBytes(dtype);
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  for (const SeqPiece &p : pieces)
    sprt_attention_typed(
        static_cast<const char *>(q) + p.localStart * rowBytes, k, v, positions,
        static_cast<char *>(out) + p.localStart * rowBytes, p.rows,
        pieces.globalRows, p.globalStart, a.B, a.heads, a.kv_heads, a.head_dim,
        a.causal, documentMask(a.document_causal), a.rotary_dim, a.theta,
        a.dropout_rate, sprt_dropout_key(), uint64_t(a.stream), rows.globalRows,
        rows.offset, a.heads * sprt_axis_size(a.head_axis),
        a.heads * sprt_axis_coord(a.head_axis), dtype);
}

extern "C" void sprt_op_attention_lse(const float *q, const float *k,
                                      const float *v, const int64_t *positions,
                                      float *out, float *lse,
                                      const sprt_attention_args *args) {
  const sprt_attention_args &a = *args;
  SeqPieces pieces = seqPieces(a.S, a.seq_axis, -1);
  const int64_t rowElems = a.B * a.heads * a.head_dim, lseRow = a.B * a.heads;
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  for (const SeqPiece &p : pieces)
    sprt_attention_lse_f32(
        q + p.localStart * rowElems, k, v, positions,
        out + p.localStart * rowElems, lse + p.localStart * lseRow, p.rows,
        pieces.globalRows, p.globalStart, a.B, a.heads, a.kv_heads, a.head_dim,
        a.causal, documentMask(a.document_causal), a.rotary_dim, a.theta,
        a.dropout_rate, sprt_dropout_key(), uint64_t(a.stream), rows.globalRows,
        rows.offset, a.heads * sprt_axis_size(a.head_axis),
        a.heads * sprt_axis_coord(a.head_axis));
}

extern "C" void
sprt_op_attention_lse_typed(const void *q, const void *k, const void *v,
                            const int64_t *positions, void *out, float *lse,
                            const sprt_attention_args *args, int32_t dtype) {
  const sprt_attention_args &a = *args;
  SeqPieces pieces = seqPieces(a.S, a.seq_axis, -1);
  const int64_t rowBytes = a.B * a.heads * a.head_dim * dtypeBytes(dtype);
  const int64_t lseRow = a.B * a.heads;
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  for (const SeqPiece &p : pieces)
    sprt_attention_lse_typed(
        static_cast<const char *>(q) + p.localStart * rowBytes, k, v, positions,
        static_cast<char *>(out) + p.localStart * rowBytes,
        lse + p.localStart * lseRow, p.rows, pieces.globalRows, p.globalStart,
        a.B, a.heads, a.kv_heads, a.head_dim, a.causal,
        documentMask(a.document_causal), a.rotary_dim, a.theta, a.dropout_rate,
        sprt_dropout_key(), uint64_t(a.stream), rows.globalRows, rows.offset,
        a.heads * sprt_axis_size(a.head_axis),
        a.heads * sprt_axis_coord(a.head_axis), dtype);
}

extern "C" void sprt_op_label_logit(const float *logits, const int64_t *labels,
                                    float *out, int64_t T, int64_t V,
                                    int32_t vocabAxis, int64_t ignoreIndex) {
  sprt_label_logit_f32(logits, labels, out, T, V,
                       sprt_axis_coord(vocabAxis) * V, ignoreIndex);
}
