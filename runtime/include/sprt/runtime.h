/*===- sprt/runtime.h - libsprt: mesh, collectives, layout-aware ops ------===*
 *
 * What compiled seqpar code calls besides the plain kernels of
 * sprt/kernels.h: the mesh and its per-axis communicators, collectives along
 * one mesh axis (MPI on the CPU backend), and the ops whose result depends on
 * where this rank's shard sits in the global tensor (their `*_axis`
 * arguments name the mesh axis, by index, that splits the dimension, or -1).
 *
 * Tensors passed to collectives are row-major with rank <= 4, given as
 * (rank, d0, d1, d2, d3) in their LOCAL shape; unused dims are 1.
 *
 * Calls that need device memory beyond their operands and results take it
 * from the caller as their last two arguments (workspace, workspace_bytes):
 * the compiler plans it in the arena (dist's WorkspaceOpInterface computes
 * the same bytes). Each call computes what it needs, throws
 * std::invalid_argument naming the op and both sizes when workspace_bytes is
 * smaller, and uses exactly that much; NULL, 0 where it needs none.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_RUNTIME_H
#define SPRT_RUNTIME_H

#include "sprt/abi.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------ mesh ---------------------------------===*/

/* Sets up the mesh: `num_axes` axes of the given sizes, outermost first,
 * the last axis varying fastest over consecutive ranks (tp ranks adjacent).
 * MPI must be initialised and the world size must equal the product of the
 * sizes. Returns 0, or -1 with a message on stderr. */
int sprt_mesh_init(int32_t num_axes, const int64_t *sizes);
void sprt_mesh_finalize(void);
int32_t sprt_mesh_num_axes(void);
int64_t sprt_world_rank(void);
int64_t sprt_world_size(void);
/* This rank's coordinate on, and the size of, mesh axis `axis`. */
int64_t sprt_axis_coord(int32_t axis);
int64_t sprt_axis_size(int32_t axis);
/* Bytes this rank has sent on mesh axis `axis` (ring accounting). */
int64_t sprt_bytes_sent(int32_t axis);
void sprt_reset_bytes_sent(void);
/* Adds `bytes` to axis `axis`'s count: main() replaying a captured step,
 * whose collectives the host does not call again, counts what they sent
 * when captured. */
void sprt_count_bytes_sent(int32_t axis, int64_t bytes);

/* The seed of dropout masks (and everything else random in a run). */
void sprt_set_seed(uint64_t seed);
uint64_t sprt_get_seed(void);
/* While main() captures a step (a CUDA graph, sprt_graph_begin_capture):
 * the runtime notes the first reason the captured step could not stand for
 * later ones (a value it passes to kernels by value that changes from step
 * to step: packed position ids from the host); the end returns it, or NULL
 * when the step may be replayed. */
void sprt_capture_begin(void);
const char *sprt_capture_end(void);

/* The key the ops pass to the dropout kernels: 0. The kernels XOR in the
 * step's dropout salt (sprt/device.h's sprt_step_values: the run's seed
 * mixed with the step, which sprt_set_step stages and the compiled step
 * uploads), so each step draws new masks while a step's
 * backward (and any recomputed forward op) regenerates its forward's, and a
 * captured step replays with each step's masks. */
uint64_t sprt_dropout_key(void);

/*===-------------------------- collectives ------------------------------===*/

enum { SPRT_SUM = 0, SPRT_MAX = 1, SPRT_MIN = 2, SPRT_MEAN = 3 };

/* The ZIGZAG split of a dimension of global length L over an axis of size
 * n: L is cut into 2n chunks of L / (2n) rows and the rank at coordinate r
 * holds chunk r followed by chunk 2n - 1 - r (its "zigzag part"). The
 * collectives below take `zigzag`: 0 for the plain contiguous split (block
 * `coord` of n), non-zero for the zigzag split along `dim` over `axis`. */

/* out = concatenation along `dim` of every axis rank's `in` (in rank order);
 * with zigzag, `in` is this rank's zigzag part and out the whole tensor in
 * natural order. The shape is in's. Workspace: out's bytes (in's bytes
 * times the axis size) when zigzag is non-zero or the dims before `dim` are
 * not all 1 (the blocks are received there, then unpacked); else none. */
void sprt_all_gather(const void *in, void *out, int64_t elem_bytes,
                     int32_t rank, int64_t d0, int64_t d1, int64_t d2,
                     int64_t d3, int32_t dim, int32_t axis, int32_t zigzag,
                     void *workspace, int64_t workspace_bytes);
/* out = block `coord` along `dim` of the sum over the axis of `in` (f32);
 * with zigzag, out is this rank's zigzag part of the sum. The shape is in's.
 * Workspace: in's bytes when zigzag is non-zero or the dims before `dim`
 * are not all 1 (each rank's part packed); else none. */
void sprt_reduce_scatter_f32(const float *in, float *out, int32_t rank,
                             int64_t d0, int64_t d1, int64_t d2, int64_t d3,
                             int32_t dim, int32_t axis, int32_t zigzag,
                             void *workspace, int64_t workspace_bytes);
/* out = reduction over the axis of `in`, n f32 elements. */
void sprt_all_reduce_f32(const float *in, float *out, int64_t n, int32_t kind,
                         int32_t axis);
/* out = block `coord` along `dim` of `in` (no communication); with zigzag,
 * this rank's zigzag part. The shape is in's. No workspace. */
void sprt_local_slice(const void *in, void *out, int64_t elem_bytes,
                      int32_t rank, int64_t d0, int64_t d1, int64_t d2,
                      int64_t d3, int32_t dim, int32_t axis, int32_t zigzag);
/* Splits `in` along split_dim into axis-size blocks, sends block j to rank
 * j, concatenates the received blocks along concat_dim. The shape is in's.
 * Workspace: in's bytes when in's dims before split_dim are not all 1 (the
 * blocks sent are packed), plus in's bytes when out's dims before
 * concat_dim are not all 1 (the blocks received are unpacked). */
void sprt_all_to_all(const void *in, void *out, int64_t elem_bytes,
                     int32_t rank, int64_t d0, int64_t d1, int64_t d2,
                     int64_t d3, int32_t split_dim, int32_t concat_dim,
                     int32_t axis, void *workspace, int64_t workspace_bytes);
/* Sends to / receives from the rank `offset` steps along the axis. A send
 * never waits for its recv: it copies `in` into a staging buffer of the
 * runtime's and starts the send from there; a recv returns once its data
 * arrived. sprt_complete_sends waits for every send started (a step's are
 * complete when it returns), sprt_pending_sends counts those not yet
 * completed. sprt_flush_sends issues now the sends started along the axis
 * that a communicator queues (NCCL's, which issues them with the next recv,
 * wait or collective, all in one group: see runtime/comm/NcclComm.cpp): a
 * pipeline stage's warm-up forwards, which no recv follows, call it after
 * each send, so that the next stage need not wait for the whole warm-up
 * (Megatron-LM issues these sends alone too). On MPI every send has
 * started already and it does nothing. */
void sprt_send(const void *in, int64_t bytes, int64_t offset, int32_t axis);
void sprt_recv(void *out, int64_t bytes, int64_t offset, int32_t axis);
void sprt_complete_sends(void);
int64_t sprt_pending_sends(void);
void sprt_flush_sends(int32_t axis);

/* Non-blocking forms (never zigzag): start, then wait on the returned
 * handle. The all-gather's workspace (as sprt_all_gather's with zigzag 0)
 * is used until the wait. */
int64_t sprt_all_gather_start(const void *in, void *out, int64_t elem_bytes,
                              int32_t rank, int64_t d0, int64_t d1, int64_t d2,
                              int64_t d3, int32_t dim, int32_t axis,
                              void *workspace, int64_t workspace_bytes);
int64_t sprt_all_reduce_start_f32(const float *in, float *out, int64_t n,
                                  int32_t kind, int32_t axis);
/* out = block `coord` of n / axis-size elements of the sum over the axis of
 * the n f32 elements of `in` (the leading dimension split). */
int64_t sprt_reduce_scatter_start_f32(const float *in, float *out, int64_t n,
                                      int32_t axis);
void sprt_wait(int64_t handle);
/* The coalesced reductions below, started: the operands are packed into
 * the workspace (also a single one: they may be reused once this returns),
 * and sprt_wait(handle) completes the reduction and writes the results. The
 * workspace is used until then: the operands' bytes (the all-reduce's
 * bucket, reduced in place) and, for the reduce-scatter, one axis-size-th
 * more. The all-reduce sums only. */
int64_t sprt_all_reduce_coalesced_start(int32_t count, const void *const *ins,
                                        void *const *outs, const int64_t *sizes,
                                        int32_t dtype, int32_t kind,
                                        int32_t axis, void *workspace,
                                        int64_t workspace_bytes);
int64_t sprt_reduce_scatter_coalesced_start(int32_t count,
                                            const void *const *ins,
                                            void *const *outs,
                                            const int64_t *sizes, int32_t dtype,
                                            int32_t axis, void *workspace,
                                            int64_t workspace_bytes);

/* y = linear(all_gather(x) along the leading dimension): x is `rows` rows of
 * K (this rank's block), y the axis size times as many rows of N, weights as
 * in sprt_linear_f32. The rows are gathered in `chunks` pieces (dividing
 * rows), each piece's GEMMs overlapping the transfer of the next.
 * Workspace: min(chunks, 2) x axis size x (rows / chunks) x K f32. */
void sprt_all_gather_linear_f32(const float *x, const float *w,
                                const float *bias, float *y, int64_t rows,
                                int64_t K, int64_t N, int32_t weight_in_out,
                                int64_t chunks, int32_t axis, void *workspace,
                                int64_t workspace_bytes);
/* As sprt_all_gather_linear_f32 for an input x of x_dtype (SPRT_DTYPE_*): a
 * bf16 / f16 input is gathered in its own precision (half the bytes) and
 * each gathered chunk widened (exactly) to f32 before its GEMMs, so y equals
 * sprt_all_gather_linear_f32 of the widened input.
 * Workspace: min(chunks, 2) x axis size x (rows / chunks) x K elements of
 * x_dtype, plus (bf16 / f16) axis size x (rows / chunks) x K f32. */
void sprt_all_gather_linear_widened_f32(
    const void *x, int32_t x_dtype, const float *w, const float *bias, float *y,
    int64_t rows, int64_t K, int64_t N, int32_t weight_in_out, int64_t chunks,
    int32_t axis, void *workspace, int64_t workspace_bytes);
/* As sprt_all_gather_linear_f32 with each tensor in its own dtype
 * (SPRT_DTYPE_*; bias_dtype is not read when bias is NULL): x is gathered
 * as stored (a bf16 / f16 one in half the bytes of f32) and each gathered
 * chunk's GEMMs are sprt_linear_typed, reading x, w and the bias as
 * stored, accumulating in f32 and rounding y once to y_dtype. With every
 * dtype F32 it is sprt_all_gather_linear_f32.
 * Workspace: min(chunks, 2) x axis size x (rows / chunks) x K elements of
 * x_dtype. */
void sprt_all_gather_linear_typed(const void *x, int32_t x_dtype, const void *w,
                                  int32_t w_dtype, const void *bias,
                                  int32_t bias_dtype, void *y, int32_t y_dtype,
                                  int64_t rows, int64_t K, int64_t N,
                                  int32_t weight_in_out, int64_t chunks,
                                  int32_t axis, void *workspace,
                                  int64_t workspace_bytes);
/* pre = linear(all_gather(x)) and y = GELU(pre) (dist.all_gather_matmul_
 * gelu): as sprt_all_gather_linear_typed, each gathered chunk's GEMMs being
 * sprt_linear_gelu_typed (pre and y of y_dtype; tanh_approx as there), so
 * the rows of each chunk get their bias and GELU as they are written. pre
 * may be NULL (not written). Where x is bf16 / f16 and w, the bias and y
 * are f32, each gathered chunk is widened (exactly) first, as in
 * sprt_all_gather_linear_widened_f32, whose workspace it then takes; else
 * sprt_all_gather_linear_typed's. */
void sprt_all_gather_linear_gelu_typed(
    const void *x, int32_t x_dtype, const void *w, int32_t w_dtype,
    const void *bias, int32_t bias_dtype, void *pre, void *y, int32_t y_dtype,
    int64_t rows, int64_t K, int64_t N, int32_t weight_in_out,
    int32_t tanh_approx, int64_t chunks, int32_t axis, void *workspace,
    int64_t workspace_bytes);
/* y = reduce_scatter(linear(x)) along the leading dimension (+ bias once,
 * after the sum): x is the axis size times `rows` rows of K, y this rank's
 * `rows` rows of N. The GEMM of each of `chunks` pieces (dividing rows)
 * overlaps the reduction of the previous.
 * Workspace: min(chunks, 2) x axis size x (rows / chunks) x N f32. */
void sprt_linear_reduce_scatter_f32(const float *x, const float *w,
                                    const float *bias, float *y, int64_t rows,
                                    int64_t K, int64_t N, int32_t weight_in_out,
                                    int64_t chunks, int32_t axis,
                                    void *workspace, int64_t workspace_bytes);

/* As sprt_linear_reduce_scatter_f32 with x, w and the bias each in its own
 * dtype, read as stored: the GEMMs are sprt_linear_typed into f32 partial
 * sums, reduced in f32; y (f32) is the sum plus the bias widened to f32.
 * With every dtype F32 it is sprt_linear_reduce_scatter_f32.
 * Workspace: as sprt_linear_reduce_scatter_f32's, plus N f32 for a bf16 /
 * f16 bias. */
void sprt_linear_reduce_scatter_typed(const void *x, int32_t x_dtype,
                                      const void *w, int32_t w_dtype,
                                      const void *bias, int32_t bias_dtype,
                                      float *y, int64_t rows, int64_t K,
                                      int64_t N, int32_t weight_in_out,
                                      int64_t chunks, int32_t axis,
                                      void *workspace, int64_t workspace_bytes);

/* The weight gradients of `count` GEMMs reading all_gather(x) along the
 * leading dimension: dws[j] = linear_grad_weight(all_gather(x), dys[j])
 * with the weight layout of sprt_linear_grad_weight_f32. x is `rows` rows
 * of K (this rank's block), dys[j] the axis size times `rows` rows of N_j,
 * N_j = dy_sizes[j] / (axis size x rows) (dy_sizes[j], its elements, must
 * be a multiple). The rows are gathered in `chunks` pieces (dividing rows),
 * chunk i + 1 in flight while every dw accumulates (in fp32,
 * sprt_linear_grad_weight_acc_f32) the contribution of chunk i of every
 * rank: its rows of x against the matching rows of dy. The gathered input
 * is never held whole.
 * Workspace: min(chunks, 2) x axis size x (rows / chunks) x K f32. */
void sprt_all_gather_linear_grad_weight_f32(
    const float *x, int32_t count, const float *const *dys, float *const *dws,
    const int64_t *dy_sizes, int64_t rows, int64_t K, int32_t weight_in_out,
    int64_t chunks, int32_t axis, void *workspace, int64_t workspace_bytes);
/* As sprt_all_gather_linear_grad_weight_f32 for an input x of x_dtype,
 * gathered in its own precision and widened as in
 * sprt_all_gather_linear_widened_f32 (the same workspace). */
void sprt_all_gather_linear_grad_weight_widened_f32(
    const void *x, int32_t x_dtype, int32_t count, const float *const *dys,
    float *const *dws, const int64_t *dy_sizes, int64_t rows, int64_t K,
    int32_t weight_in_out, int64_t chunks, int32_t axis, void *workspace,
    int64_t workspace_bytes);

/* As sprt_all_gather_linear_grad_weight_f32 with x of x_dtype, gathered
 * as stored (not widened), and every dy of dy_dtype: each contribution is
 * sprt_linear_grad_weight_typed, reading both as stored and accumulating
 * in the f32 dws. With both dtypes F32 it is
 * sprt_all_gather_linear_grad_weight_f32.
 * Workspace: min(chunks, 2) x axis size x (rows / chunks) x K elements of
 * x_dtype. */
void sprt_all_gather_linear_grad_weight_typed(
    const void *x, int32_t x_dtype, int32_t count, const void *const *dys,
    int32_t dy_dtype, float *const *dws, const int64_t *dy_sizes, int64_t rows,
    int64_t K, int32_t weight_in_out, int64_t chunks, int32_t axis,
    void *workspace, int64_t workspace_bytes);

/*===-------------------- layout-aware forward ops -----------------------===*/

/* The position ids of the S local rows of a [S, B] shard whose sequence
 * is split in zigzag over zigzag_axis and, inside it, contiguously over
 * seq_axis (-1: not split): the rows' global indices (without zigzag,
 * coord(seq_axis) * S + s), or, after sprt_set_position_ids, the given
 * positions of those rows and of this rank's batch rows. */
void sprt_op_position_ids(int64_t *out, int64_t S, int64_t B, int32_t seq_axis,
                          int32_t zigzag_axis);
/* The step's position ids, [global_batch, global_seq] in natural order on
 * the host (packed documents: 0 at each document's start), the batch split
 * over batch_axis (-1: not split); read by sprt_op_position_ids until the
 * next call. global_batch is the whole step's (every micro-batch's rows,
 * sprt_set_micro_batch). NULL: the global row index again. The data stays
 * the caller's. */
void sprt_set_position_ids(const int64_t *positions, int64_t global_batch,
                           int64_t global_seq, int32_t batch_axis);
/* Embedding of a table whose vocabulary may be split over vocab_axis. */
void sprt_op_embedding(const int64_t *ids, const float *table, float *out,
                       int64_t T, int64_t V, int64_t H, int32_t vocab_axis);
/* sprt_op_embedding on a table and out stored in dtype (SPRT_DTYPE_*). */
void sprt_op_embedding_typed(const int64_t *ids, const void *table, void *out,
                             int64_t T, int64_t V, int64_t H,
                             int32_t vocab_axis, int32_t dtype);
/* Dropout of a local [d0, d1, d2] tensor (rank <= 3) whose dims are split
 * over axes a0, a1, a2 (-1: whole), with the run's seed; dim 0 may in
 * addition be split in zigzag over z0 (-1: none), a0 then splitting the
 * cp-local rows contiguously. Each element gets the mask of the same global
 * element in the one-rank run. Rank 3 is [s, b, h]: dim 1 is the current
 * micro-batch's rows of the step's batch (sprt_set_micro_batch). */
void sprt_op_dropout(const float *x, float *y, int32_t rank, int64_t d0,
                     int64_t d1, int64_t d2, int32_t a0, int32_t a1, int32_t a2,
                     int32_t z0, double rate, int64_t stream);
/* sprt_op_dropout on x and y of one element type `dtype`, read and written
 * as stored (sprt_dropout_typed). */
void sprt_op_dropout_typed(const void *x, void *y, int32_t rank, int64_t d0,
                           int64_t d1, int64_t d2, int32_t a0, int32_t a1,
                           int32_t a2, int32_t z0, double rate, int64_t stream,
                           int32_t dtype);
/* sprt_op_dropout_typed(x) added to residual (sprt_dropout_add_typed): y =
 * residual + dropout(x), tfm.dropout_add. */
void sprt_op_dropout_add_typed(const void *x, const void *residual, void *y,
                               int32_t rank, int64_t d0, int64_t d1, int64_t d2,
                               int32_t a0, int32_t a1, int32_t a2, int32_t z0,
                               double rate, int64_t stream, int32_t dtype);
/* sprt_op_dropout_add_typed into sum (x, residual and sum of `dtype`) and
 * the norm of the stored sum over the last dimension into y
 * (sprt_dropout_add_*norm_typed): tfm.add_layer_norm / add_rms_norm with
 * dropout. */
void sprt_op_dropout_add_layer_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, const void *bias, int32_t bias_dtype, void *sum,
    void *y, int32_t y_dtype, int32_t rank, int64_t d0, int64_t d1, int64_t d2,
    int32_t a0, int32_t a1, int32_t a2, int32_t z0, double rate, int64_t stream,
    int32_t dtype, double eps);
void sprt_op_dropout_add_rms_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, void *sum, void *y, int32_t y_dtype, int32_t rank,
    int64_t d0, int64_t d1, int64_t d2, int32_t a0, int32_t a1, int32_t a2,
    int32_t z0, double rate, int64_t stream, int32_t dtype, double eps);
/* Attention on local heads (split over args->head_axis) of a local batch
 * (split over args->batch_axis; of the current micro-batch), with the run's
 * seed. q and out have args->S rows. With args->seq_axis >= 0 (of size n) they
 * are this rank's zigzag part of the sequence and k, v (and positions,
 * [S * n, B]) the whole sequence, S * n rows in natural order; else k, v,
 * positions have S rows too. */
void sprt_op_attention(const float *q, const float *k, const float *v,
                       const int64_t *positions, float *out,
                       const sprt_attention_args *args);
/* sprt_attention_prepare for each run of q's rows sprt_op_attention (and
 * its gradient, with `backward`) would compute with these arguments, the
 * step's position ids being the data's packed documents with
 * `packed_documents` (sprt_set_position_ids, not yet called): the driver
 * calls it before step 1 for each attention of the step (the model JSON's
 * "attention"). */
void sprt_op_attention_prepare(const sprt_attention_args *args,
                               int32_t backward, int32_t packed_documents);
/* sprt_attention_prepare for each block sprt_op_ring_attention (and, with
 * `backward`, its gradient) would compute with these arguments, and the
 * ring's buffers at the size both use: the driver calls it before step 1 for
 * each ring attention of the step (the model JSON's "attention", "ring"). */
void sprt_op_ring_attention_prepare(const sprt_attention_args *args,
                                    int32_t backward, int32_t packed_documents);
/* sprt_op_attention on q, k, v and out stored in dtype (bf16 / f16;
 * sprt_attention_typed). */
void sprt_op_attention_typed(const void *q, const void *k, const void *v,
                             const int64_t *positions, void *out,
                             const sprt_attention_args *args, int32_t dtype);
/* sprt_op_attention (sprt_op_attention_typed) that also writes lse [S, B,
 * heads] (f32, this rank's query rows and heads; sprt_attention_lse_typed),
 * for sprt_op_attention_grad_lse: sprt_attention_lse_f32 (_typed) per run
 * of q's rows. */
void sprt_op_attention_lse(const float *q, const float *k, const float *v,
                           const int64_t *positions, float *out, float *lse,
                           const sprt_attention_args *args);
void sprt_op_attention_lse_typed(const void *q, const void *k, const void *v,
                                 const int64_t *positions, void *out,
                                 float *lse, const sprt_attention_args *args,
                                 int32_t dtype);
/* Ring attention (context parallelism's ring variant) over the context
 * axis args->seq_axis (size n): q, k, v, out [S, B, ...] and positions [S, B]
 * (NULL: global row indices) are this rank's zigzag part of a sequence of
 * S * n rows. K/V blocks travel around the axis by send/recv, the next
 * block's transfer overlapping this one's compute, and each block is merged
 * by log-sum-exp; lse [S, B, heads] is written for the backward. Equals
 * sprt_op_attention on the gathered sequence (masks, rotary, dropout). */
void sprt_op_ring_attention(const float *q, const float *k, const float *v,
                            const int64_t *positions, float *out, float *lse,
                            const sprt_attention_args *args);
/* Its backward from the forward's out and lse: dq, dk, dv (this rank's
 * zigzag rows, written); dK/dV accumulators travel around the ring with the
 * blocks and come back to their owner. */
void sprt_op_ring_attention_grad(const float *dout, const float *q,
                                 const float *k, const float *v,
                                 const int64_t *positions, const float *out,
                                 const float *lse, float *dq, float *dk,
                                 float *dv, const sprt_attention_args *args);
/* Label logits of logits whose vocabulary may be split over vocab_axis. */
void sprt_op_label_logit(const float *logits, const int64_t *labels, float *out,
                         int64_t T, int64_t V, int32_t vocab_axis,
                         int64_t ignore_index);

/* Backward counterparts of the layout-aware ops above (attention's: dq has
 * q's rows, dk and dv k's and v's, all written). */
void sprt_op_embedding_grad(const int64_t *ids, const float *dy, float *dtable,
                            int64_t T, int64_t V, int64_t H,
                            int32_t vocab_axis);
void sprt_op_embedding_grad_typed(const int64_t *ids, const void *dy,
                                  int32_t dy_dtype, void *dtable,
                                  int32_t dtable_dtype, int64_t T, int64_t V,
                                  int64_t H, int32_t vocab_axis);
void sprt_op_label_logit_grad(const int64_t *labels, const float *dz,
                              float *dlogits, int64_t T, int64_t V,
                              int32_t vocab_axis, int64_t ignore_index);
void sprt_op_attention_grad(const float *dout, const float *q, const float *k,
                            const float *v, const int64_t *positions, float *dq,
                            float *dk, float *dv,
                            const sprt_attention_args *args);
/* sprt_op_attention_grad on tensors stored in dtype (bf16 / f16;
 * sprt_attention_grad_typed). The sequence must not be split in zigzag
 * order (args->seq_axis -1): dk and dv would be summed over the pieces in
 * their storage type. The compiler keeps such an attention in f32. */
void sprt_op_attention_grad_typed(const void *dout, const void *q,
                                  const void *k, const void *v,
                                  const int64_t *positions, void *dq, void *dk,
                                  void *dv, const sprt_attention_args *args,
                                  int32_t dtype);

/* sprt_op_attention_grad (_typed) from the forward's out and lse
 * (sprt_op_attention_lse): the forward is not run again. dq, dk, dv are
 * written: sprt_attention_grad_lse_f32 per run of q's rows (dk and dv
 * summed over the runs); the typed call takes one run, as
 * sprt_op_attention_grad_typed. */
void sprt_op_attention_grad_lse(const float *dout, const float *q,
                                const float *k, const float *v,
                                const int64_t *positions, const float *out,
                                const float *lse, float *dq, float *dk,
                                float *dv, const sprt_attention_args *args);
void sprt_op_attention_grad_lse_typed(const void *dout, const void *q,
                                      const void *k, const void *v,
                                      const int64_t *positions, const void *out,
                                      const float *lse, void *dq, void *dk,
                                      void *dv, const sprt_attention_args *args,
                                      int32_t dtype);

/* All-reduces `count` tensors in one collective: ins[i] and outs[i] hold
 * sizes[i] elements of type dtype (SPRT_DTYPE_F32 or SPRT_DTYPE_BF16,
 * sprt/kernels.h; bf16: kind SPRT_SUM only, each pair of values added in f32
 * and rounded to bf16). Workspace: the sum of sizes elements (the bucket),
 * none when count is 1. */
void sprt_all_reduce_coalesced(int32_t count, const void *const *ins,
                               void *const *outs, const int64_t *sizes,
                               int32_t dtype, int32_t kind, int32_t axis,
                               void *workspace, int64_t workspace_bytes);

/*===---------------------------- training -------------------------------===*/

/* The optimizer step being taken (1-based), set by main() before each step;
 * it also sets the micro-batch back to (0, 1) and stages the step's dropout
 * salt in the host copy of the step's values. */
void sprt_set_step(int64_t step);
int64_t sprt_get_step(void);
/* The step's values that change from step to step, for the kernels to read
 * on the device (sprt/device.h's sprt_step_values): the compiled step calls
 * this first with its hyperparameter table (n slots, at most
 * SPRT_MAX_HYPERPARAMETERS; more end the job), which is staged in the host
 * copy with the optimizer's step count (the step less the skipped ones,
 * main()'s), and the host copy is copied to the device copy on the current
 * stream. */
void sprt_upload_step_values(const double *hyperparameters, int64_t n);
/* Its host half alone: what main() calls before replaying a captured step,
 * whose copy to the device was captured with it. */
void sprt_stage_step_values(const double *hyperparameters, int64_t n);
/* The device copies of hyperparameter slot `slot` and of the optimizer's
 * step count (a slot outside the table ends the job). */
const double *sprt_step_hyperparameter(int32_t slot);
const int64_t *sprt_step_optimizer_step(void);
/* Gradient accumulation: the ops called after this belong to micro-batch
 * `index` (0-based) of `count` in this step. The step's global batch is
 * `count` micro-batches of the program's global batch Bg, micro-batch i its
 * rows [i * Bg, (i + 1) * Bg): the batch rows the layout-aware ops draw for
 * (dropout masks of sprt_op_dropout's rank-3 [s, b, h] tensors and of
 * attention, sprt_set_position_ids' table) are those. An index outside
 * [0, count) or a count below 1 ends the job (fatal error). */
void sprt_set_micro_batch(int64_t index, int64_t count);
/* y = x * s (n elements). */
void sprt_op_scale(const float *x, float *y, int64_t n, double s);
/* y = x times the step's hyperparameter in slot `slot`, read on the device
 * (sprt_step_hyperparameter; sprt_scale_by_f32): the loss scale of the
 * gradient seed. */
void sprt_op_scale_by(const float *x, float *y, int64_t n, int32_t slot);
/* *out = the sum of squares of count tensors (xs[i] of sizes[i] elements):
 * sprt_sum_squares_list_f32. */
void sprt_op_sum_squares(int32_t count, const float *const *xs,
                         const int64_t *sizes, float *out);
/* From the total sum of squares of gradients of the loss times loss_scale:
 * *norm = sqrt / loss_scale, *scale = min(1, max_norm / (norm + 1e-6)), or 1
 * when max_norm is 0, divided by loss_scale; NaN when the norm is not
 * finite (sprt_clip_scale_f32). */
void sprt_op_clip_scale(const float *sum_squares, double max_norm,
                        double loss_scale, float *scale, float *norm);
/* sprt_op_clip_scale with the loss scale the step's hyperparameter in slot
 * loss_scale_slot, read on the device (sprt_step_hyperparameter), so that a
 * step captured as a CUDA graph replays with the scale of the step it runs
 * (sprt_clip_scale_by_f32). */
void sprt_op_clip_scale_by(const float *sum_squares, double max_norm,
                           int32_t loss_scale_slot, float *scale, float *norm);
/* Optimizer updates of n elements with the gradient times *scale, the
 * learning rate the step's hyperparameter in slot lr_slot
 * (sprt_step_hyperparameter: read on the device when the update runs). With a
 * distributed optimizer (shard_axis >= 0) the gradient and the state are
 * this rank's slice along the parameter's first dimension, sliced over
 * shard_axis and, nested in its block, over inner_axis (>= 0: ZeRO-1 over
 * the data and context axes; -1: none): the update applies at
 * param + (coord(shard_axis) * size(inner_axis) + coord(inner_axis)) * n. */
void sprt_op_sgd(float *param, const float *grad, const float *scale, int64_t n,
                 int32_t lr_slot, double weight_decay, int32_t shard_axis,
                 int32_t inner_axis);
void sprt_op_adamw(float *param, const float *grad, float *m, float *v,
                   const float *scale, int64_t n, int32_t lr_slot, double beta1,
                   double beta2, double eps, double weight_decay,
                   int32_t shard_axis, int32_t inner_axis);
/* Reduce-scatters `count` tensors along their first dimension in one
 * collective, summing: ins[i] holds sizes[i] elements of type dtype
 * (SPRT_DTYPE_F32 or SPRT_DTYPE_BF16, as sprt_all_reduce_coalesced), outs[i]
 * sizes[i] / n. Workspace: total + total / n elements (total the sum of
 * sizes), none when count is 1. */
void sprt_reduce_scatter_coalesced(int32_t count, const void *const *ins,
                                   void *const *outs, const int64_t *sizes,
                                   int32_t dtype, int32_t axis, void *workspace,
                                   int64_t workspace_bytes);
/* The same with the f32 master weight of the slice (n elements, optimizer
 * state) updated and its rounding stored into the bf16 / f16 parameter
 * (param_dtype: SPRT_DTYPE_*) at the slice's place (sprt_*_master_f32). */
void sprt_op_sgd_master(float *master, void *param, int32_t param_dtype,
                        const float *grad, const float *scale, int64_t n,
                        int32_t lr_slot, double weight_decay,
                        int32_t shard_axis, int32_t inner_axis);
void sprt_op_adamw_master(float *master, void *param, int32_t param_dtype,
                          const float *grad, float *m, float *v,
                          const float *scale, int64_t n, int32_t lr_slot,
                          double beta1, double beta2, double eps,
                          double weight_decay, int32_t shard_axis,
                          int32_t inner_axis);
/* Gathers over `axis`, in place, every rank's slice (along the first
 * dimension) of an n-element region of elem_bytes-byte elements: the
 * tensor at data, or with within >= 0 this rank's block of it over that
 * axis (data + coord(within) * n elements; -1: none). */
void sprt_all_gather_param(void *data, int64_t n, int64_t elem_bytes,
                           int32_t axis, int32_t within);

/* Copies one f32 from device memory to the host, on the current stream (the
 * step's scalar outputs: loss, gradient norm). */
void sprt_copy_scalar_to_host(float *dst, const float *src);

/*===----------------------------- tracing --------------------------------===*/

/* The compiled step calls these around the runtime calls of each op: with
 * --trace the op is a span named `name` (the op, "tfm.linear") of the
 * Hugging Face module `where` (runtime/core/Trace.h); otherwise they return
 * at once. Spans nest: sprt_trace_end ends the innermost one begun. */
void sprt_trace_begin(const char *name, const char *where);
void sprt_trace_end(void);

#ifdef __cplusplus
}
#endif

#endif /* SPRT_RUNTIME_H */
