//===- Passes.td - seqpar distribution passes --------------*- tablegen -*-===//

#ifndef SEQPAR_DIALECT_DIST_TRANSFORMS_PASSES_TD
#define SEQPAR_DIALECT_DIST_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Partitioning
//===----------------------------------------------------------------------===//

def SpOptimizerPass : Pass<"sp-optimizer", "::mlir::ModuleOp"> {
  let summary = "The optimizer step of @train_step, in the IR";
  let description = [{
    After tfm-autodiff and sp-sync-grads, appends to `@train_step` the
    global gradient norm and the update of every parameter shard, and makes
    the step return `(loss, grad_norm, grad...)`. The norm counts every
    element once whatever its layout: the gradients of one layout share one
    `tfm.sum_squares` (a multi-tensor sum, in the gradients' order), which
    is partial and all-reduced over the axes that split them when they are
    split, counted as is when replicated. With `grad-clip` > 0 every gradient is scaled by
    `min(1, grad-clip / (norm + 1e-6))` (torch's clip_grad_norm_). `adamw`
    is torch.optim.AdamW (fp32 moments kept by the runtime per shard),
    `sgd` plain SGD. The gradients stay results so the runtime can dump
    them (before the update). Under ZeRO-1 (`tfm.zero`) a gradient split
    `S(0)` over the data and / or context axis is this rank's slice (nested
    in mesh order): its update applies to that slice and the parameter is
    all-gathered back (`dist.all_gather_param`), the innermost axis first
    within this rank's block of the outer one (`within`), then the outer.
    A step that already has an update (or the
    `tfm.optimizer` mark the pass sets) is an error: the pass runs once.
    The hyperparameters (`lr`, `beta1`, `beta2`, `eps`, `weight-decay`,
    `grad-clip`) are inputs of the step, one `tfm.hyperparameter` each (only
    those the optimizer uses), which the runtime sets per step; the options
    are their defaults.

    Sharded master weights (Megatron's distributed optimizer): under ZeRO-1
    (`tfm.zero`) with a bf16 / f16 model (`tfm.precision`), a parameter
    whose gradient is a ZeRO slice and whose every read is converted to the
    model's precision (tfm-master-weights' f32 master weight) becomes a
    bf16 / f16 parameter read directly (the converts go), its update gets
    `master` (the runtime keeps the f32 master slice with the moments and
    stores its rounding into the parameter's slice) and the bf16 / f16
    parameter is all-gathered: 2 + 12/(dp x cp) bytes per parameter with
    AdamW instead of 4 + 8/(dp x cp), and half the gathered bytes. Other parameters keep
    their f32 master weight. `master-weights=replicated` keeps them all.

    Without ZeRO-1, `master-weights=sharded` does the same for every
    parameter so read, each master whole (Megatron-LM's optimizer without
    its distributed optimizer): the parameters are stored in bf16 / f16 and
    no step converts them, 2 + 12 bytes per parameter with AdamW instead of
    4 + 8 plus the step's bf16 / f16 copies. The updates compute what the
    f32 parameters' did, so the step's results are the same bits.
    `master-weights=auto` (the default) is `sharded` under ZeRO-1 and
    `replicated` without it.
  }];
  let options = [
    Option<"optimizer", "optimizer", "::seqpar::OptimizerKind",
           "::seqpar::OptimizerKind::adamw", "The optimizer",
           "::seqpar::optimizerKindValues()">,
    Option<"lr", "lr", "double", "1e-3", "Learning rate">,
    Option<"beta1", "beta1", "double", "0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "double", "0.999", "AdamW beta2">,
    Option<"eps", "eps", "double", "1e-8", "AdamW epsilon">,
    Option<"weightDecay", "weight-decay", "double", "0.0",
           "Decoupled weight decay (AdamW) or L2 (SGD)">,
Option<"masterWeights", "master-weights", "::seqpar::MasterWeights",
           "::seqpar::MasterWeights::automatic",
           "With a bf16 / f16 model (tfm.precision): sharded stores the "
           "parameters in bf16 / f16 and keeps their f32 master weights as "
           "optimizer state (updates with `master`; the ZeRO slices under "
           "tfm.zero, whole without it), replicated keeps the f32 master "
           "weights as the parameters, auto is sharded under tfm.zero and "
           "replicated without it",
           "::seqpar::masterWeightsValues()">,
        Option<"gradClip", "grad-clip", "double", "0.0",
           "Clip the global gradient norm to this (0: off)">,
  ];
}

def SpOverlapGradReductionsPass
    : Pass<"sp-overlap-grad-reductions", "::mlir::ModuleOp"> {
  let summary = "Starts each gradient bucket's reduction as soon as its "
                "gradients are computed, overlapping the rest of the backward";
  let description = [{
    Runs on the train steps after sp-sync-grads and sp-optimizer. Each
    gradient bucket, a `dist.all_reduce_coalesced` sum or a
    `dist.reduce_scatter_coalesced` (ZeRO-1), moves up to right after the
    last of its operands is computed (with the `tfm.convert`s that narrow
    its operands for a bf16 reduction and have no other reader, each right
    after its own operand) and becomes `async`: the runtime starts it there
    and it completes before the first op reading one of its results (the
    optimizer, at the end of the step), so the buckets of the last layers
    travel while the backward computes the first ones (Megatron-LM's
    overlap_grad_reduce, PyTorch DDP's bucketed all-reduce). Values and
    results are unchanged; the planner keeps each async bucket's workspace
    live until its wait point. A bucket whose gradients are all computed
    last (the tied embedding's) starts there, and one that cannot move is
    still made async.

    ```mlir
    %g1 = tfm.linear_grad_weight ...     // the last gradient of the bucket
    %r:2 = dist.all_reduce_coalesced %g0, %g1 on @mesh["dp"] sum async : ...
    %dx = tfm.linear_grad_input ...      // the backward goes on
    ...
    %n = tfm.sum_squares %r#0 ...        // waits for the bucket here
    ```
  }];
}

def SpPartitionPass : Pass<"sp-partition", "::mlir::ModuleOp"> {
  let summary = "Megatron tensor parallelism, optionally with sequence "
                "parallelism, as layouts and collectives";
  let description = [{
    Rewrites the single-device `@forward` of a tfm module into the per-rank
    SPMD program of Megatron-LM on a mesh `["tp" = tp] roles [tensor]`
    (`["dp" = dp, "tp" = tp] roles [data, tensor]` with data parallelism),
    adding the `dist.mesh @mesh`; `tensor-axis` and `data-axis` rename the
    axes. With dp > 1 every activation (and the token ids and labels) is
    split along the batch over the data axis, and the loss is the mean of the replicas' losses. Linear layers are classified by their place in the
    dataflow: a linear whose input is whole and whose result feeds
    attention heads, an activation or the loss is column-parallel (weight
    split on its output features; GPT-2's fused `[q | k | v]` weight in
    three blocks); a linear whose input is split on its features is
    row-parallel (weight split on its input features, partial result). The
    token embedding is vocab-parallel and the LM head column-parallel over
    the vocabulary, followed by the vocab-parallel cross-entropy. Attention
    runs on heads/tp local heads; kv heads are split when tp divides them and
    otherwise replicated, repeated, and sliced so that each rank keeps the kv
    head its query heads read.

    With `sequence-parallel=false` row-parallel outputs are all-reduced. With
    `sequence-parallel=true` the residual stream (norms, dropout, residual
    adds) is split along the sequence: row-parallel outputs and the
    embedding are reduce-scattered along the sequence, and norm outputs are
    all-gathered before each column-parallel linear.

    With `cp=C > 1` (context parallelism) a mesh axis of role context splits
    the sequence of every token-derived value in zigzag (`S(0, zigzag)`:
    chunks r and 2C-1-r of 2C on cp rank r, so causal attention costs every
    rank the same); under sequence parallelism tp then splits each cp rank's
    part. With `cp-attention=allgather` (Llama 3's) the keys and values
    (after the kv-head split, so only kv heads move) and the positions are
    all-gathered over cp before attention; the queries stay local, and the
    backward reduce-scatters dK and dV (the all-gather's transpose). With
    `cp-attention=ring` q, k, v and positions stay this rank's zigzag parts
    and `dist.ring_attention` moves the K/V blocks around the cp ring (its
    backward `dist.ring_attention_grad`, K/V and their gradients around the
    ring again). The
    loss is each rank's mean, averaged over cp and dp; parameters are
    replicated over cp and sp-sync-grads all-reduces their gradients over
    it. The sequence must divide by 2C (and by 2C x tp under SP).

    Parameters keep their global shape and gain their layout; every value's
    type carries its layout. sp-verify runs at the end. A dimension that
    cannot be split is reported at the op that needs the split.
  }];
  let dependentDialects = ["::seqpar::dist::DistDialect"];
  let options = [
    Option<"tp", "tp", "int64_t", "1", "Tensor-parallel degree">,
    Option<"cp", "cp", "int64_t", "1",
           "Context-parallel degree: the sequence split through attention">,
    Option<"cpAttention", "cp-attention", "::seqpar::CpAttention",
           "::seqpar::CpAttention::allgather",
           "How attention sees the whole sequence under cp > 1: allgather "
           "(keys and values all-gathered over cp) or ring "
           "(dist.ring_attention)", "::seqpar::cpAttentionValues()">,
    Option<"contextAxis", "context-axis", "std::string", "\"cp\"",
           "Name of the mesh axis with role context (present when cp > 1)">,
    Option<"dp", "dp", "int64_t", "1",
           "Data-parallel degree: replicas, each on its slice of the batch">,
    Option<"sequenceParallel", "sequence-parallel", "bool", "false",
           "Split norms, dropout and residual adds along the sequence">,
    Option<"tensorAxis", "tensor-axis", "std::string", "\"tp\"",
           "Name of the mesh axis with role tensor (the passes after "
           "sp-partition find it by its role)">,
    Option<"dataAxis", "data-axis", "std::string", "\"dp\"",
           "Name of the mesh axis with role data (present when dp > 1)">,
    Option<"pp", "pp", "int64_t", "1",
           "Pipeline-parallel degree: the mesh's outermost axis, of role "
           "pipeline (sp-pipeline splits the forward into its stages)">,
    Option<"pipelineAxis", "pipeline-axis", "std::string", "\"pp\"",
           "Name of the mesh axis with role pipeline (present when pp > 1)">,
  ];
}

def SpPipelinePass : Pass<"sp-pipeline", "::mlir::ModuleOp"> {
  let summary = "Splits the partitioned forward into one function per "
                "pipeline stage";
  let description = [{
    Runs right after sp-partition. On a mesh with an axis of role pipeline
    of size P > 1, the one `tfm.forward` function `@f` becomes P functions
    `@f_stage<k>` (`tfm.forward`, `tfm.pipeline_stage = k`,
    `tfm.pipeline_stages = P`), each with the forward's arguments and its
    loss result: the last stage returns the loss, the others a zero loss
    (`tfm.fill 0.0`). Without a pipeline axis (or with one of size 1) the
    pass does nothing.

    Layers are split contiguously over the stages. A parameter's layer is
    the first integer component of its name (`transformer.h.3.ln_1.weight`:
    3); a parameter without one read before the first layer's ops (the
    embeddings) belongs to stage 0, one read after them (the final norm, the
    LM head) to the last stage. Every op goes to the latest of its operands'
    stages and the stages of the parameters it reads, so the loss lands on
    the last stage and a tied LM head (reading the embedding) on the stage
    of its input. `layers` gives the number of layers of each stage (P
    entries >= 1 summing to the number of layers); empty, the split
    minimizes the largest stage cost (parameter elements plus the bytes of
    the results of the stage's ops, per rank as the partitioned types give
    them; the embeddings counted on stage 0, the head and loss on the last),
    each stage holding at least one layer, ties broken towards earlier
    boundaries (from the last one back). More stages than layers is an
    error.

    A value computed on stage j and read on stage k > j is sent at the end
    of stage j (`dist.send ... offset 1` on the pipeline axis) and received
    at the beginning of stage j + 1 (`dist.recv ... offset -1`, its exact
    type, layout included), relayed stage by stage up to k; the values
    crossing one boundary go in the order the forward defines them. Values
    that read nothing but arguments and other such values (positions,
    hyperparameters, fills) are cloned into each stage that reads them, and
    each stage reads the parameters it uses with its own `tfm.get_param` (a
    tied embedding is read on the first and the last stage).
  }];
  let dependentDialects = ["::seqpar::dist::DistDialect"];
  let options = [
    ListOption<"layers", "layers", "int64_t",
               "The layers of each stage, comma-separated (P entries >= 1 "
               "summing to the number of layers); empty: balanced">,
  ];
}

def SpMicroBatchesPass : Pass<"sp-micro-batches", "::mlir::ModuleOp"> {
  let summary = "Loops the train step over micro-batches, summing their "
                "gradients";
  let description = [{
    Gradient accumulation. The train step of one micro-batch (tfm-autodiff's,
    before sp-sync-grads) becomes a step over `micro-batches` = M of them:
    its token ids and labels become `[M, s, b]` (same layouts, one dimension
    higher). Its forward and backward become the body of one
    `tfm.micro_batch_loop`, which runs them once per micro-batch in order
    (micro-batch i's backward before micro-batch i + 1's forward, so one
    micro-batch's activations are live at a time), the body's arguments
    being micro-batch i of the ids and labels; the loop sums the loss and
    every gradient it yields in micro-batch order (f32: the gradients the
    train pipeline returns are f32); sp-sync-grads then reduces the sums
    once. The IR, and so the compile time, does not grow with M.

    On pipeline stage k of P (sp-pipeline's step) the loop has `lag` w =
    min(P - 1 - k, M): its backward part (from the seed of the backward)
    runs w micro-batches behind its forward part, the 1F1B order (w warm-up
    forwards, then one forward and one backward per micro-batch, then w
    cool-down backwards), and the arena keeps the w + 1 micro-batches'
    activations in flight in copies of their own. The last stage (w = 0)
    runs forward and backward of each micro-batch together. A stage's loop
    is not peeled. The IR does not grow with M there either.

    M is bounded: M times the step's global batch is at most 2^20
    sequences; beyond, the pass fails naming the option and the bound.

    The loss stays the mean over every non-ignored token of the step: a
    `tfm.label_count` of the labels argument counts the whole `[M, s, b]`
    labels (and its reductions follow unchanged), so each micro-batch's
    cross-entropy is its tokens' share of the step's mean and the shares
    sum to it, whatever labels are ignored where. Ops that read no
    micro-batch's data (parameter reads, hyperparameters, that count) run
    once for all. `micro-batches=1` leaves the step unchanged.

    With `peel-last` (the train pipeline sets it when
    sp-overlap-grad-reductions runs), on a step without pipeline stages, the
    loop runs micro-batches 0 to M - 2
    (`count = M - 1`) and micro-batch M - 1 follows it as straight-line ops
    (reading it with `tfm.micro_batch`, marked `tfm.in_micro_batch = M - 1`),
    each of its summed values added to the loop's sum right after it is
    computed: the same sums in the same order, bit for bit, and the IR is
    still independent of M (two copies of the body). Each gradient's final
    sum is then an op of the step's block, so its reduction can start there,
    during the rest of the last micro-batch's backward.
  }];
  let options = [
    Option<"microBatches", "micro-batches", "int64_t", "1",
           "The number of micro-batches per step (>= 1)">,
    Option<"peelLast", "peel-last", "bool", "false",
           "Run the last micro-batch after the loop, as straight-line ops "
           "(for sp-overlap-grad-reductions)">,
  ];
}

def SpSyncGradsPass : Pass<"sp-sync-grads", "::mlir::ModuleOp"> {
  let summary = "Reduces parameter gradients to their parameters' layouts";
  let description = [{
    For every function result marked `tfm.grad_of = @p` (from tfm-autodiff),
    inserts exactly the reductions the layouts require: a gradient that is
    partial (P) on a mesh axis where its parameter is not is all-reduced
    over that axis. That covers norm weights (and every replicated weight)
    that saw sequence shards, all-reduced over tp, and every gradient over
    dp. Axes other than "dp" are reduced first: the contributions of every
    copy of a weight (its tie group, summed by autodiff) are complete
    before the data-parallel reduction (Megatron-LM #844). Gradients are
    coalesced into buckets of at most `bucket-bytes` per axis, one
    `dist.all_reduce_coalesced` per bucket. With `zero=1` (a distributed
    optimizer, ZeRO-1; the function is marked `tfm.zero`) the data and
    context axes (by role; Megatron's data-parallel group with context
    parallelism) are reduced last, in mesh order, and a gradient partial
    over them is reduce-scattered (`dist.reduce_scatter_coalesced`) over
    each in turn along its first dimension, nested (dp = S(0), then
    cp = S(0) on dp's slice): when its first (local) dimension divides by
    their ranks together, else over the data axis alone when that divides
    it (all-reduced over the context axis), else all-reduced; one warning
    per kind names those not sliced over all of them. sp-optimizer then
    updates one slice per rank and all-gathers the parameter back. With `grad-reduce-dtype=bf16` each bucket
    is reduced in bf16 (as Megatron-LM offers): each f32 gradient is
    converted (`tfm.convert`, rounding) to bf16 before its reduction, the
    coalesced op sums bf16 (half the bytes on the wire; `bucket-bytes`
    counts them) and each result is converted back to f32 for the
    optimizer. A gradient that is a `tfm.convert` widening a bf16 value (one
    reduced over tp before dp, a master weight's gradient) is reduced from
    that value, and the convert erased if nothing else reads it. Any other
    value than f32 or bf16 is an error.
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", "25 * 1024 * 1024",
           "The most bytes one coalesced all-reduce carries">,
    Option<"zero", "zero", "int64_t", "0",
           "1: a distributed optimizer (ZeRO-1): gradients are "
           "reduce-scattered over dp and cp along their first dimension, so "
           "each rank updates (and keeps optimizer state for) one slice">,
    Option<"gradReduceDtype", "grad-reduce-dtype", "::seqpar::GradReduceDtype",
           "::seqpar::GradReduceDtype::f32",
           "The element type of the reductions: f32 (default), or bf16 "
           "(each bucket converted to bf16, reduced in bf16, converted back "
           "to f32)", "::seqpar::gradReduceDtypeValues()">,
  ];
}

def SpVerifyPass : Pass<"sp-verify", "::mlir::ModuleOp"> {
  let summary = "Recomputes every layout and rejects inconsistent SPMD IR";
  let description = [{
    For every op, recomputes from its operands' layouts the layouts its
    results must have, on every axis of the mesh, and compares them with the
    types: a norm or nonlinearity of a partial value, a GEMM contracting a
    split dimension with a whole weight, attention over a split sequence, a
    bias added to a partial sum, a parameter shard of the wrong size, or a
    partial or split value returned are rejected with a diagnostic naming
    the value and the axis. Collectives check their own transitions. A step
    with an optimizer (update ops or `tfm.optimizer`) must update every
    parameter it returns a gradient for exactly once, with that gradient:
    a second update, a missing one, or an update of a parameter without a
    gradient is an error naming the parameter (and both update sites).
    In a train step with tfm-autodiff's record (`tfm.grad_uses`) it proves,
    along the dataflow, that each parameter's returned gradient is the sum
    of the contributions (`tfm.contributes`) of every use of the parameter
    and of its tie group, each counted once per micro-batch, summed over
    every axis where it was partial (GPT-NeoX #1257), with tie groups
    summed before any data-axis reduction (Megatron-LM #844): see
    docs/design.md, "Gradient accounting proof". A recorded arena plan is
    checked too.
  }];
}

def SpFuseCollectiveMatmulPass
    : Pass<"sp-fuse-collective-matmul", "::mlir::ModuleOp"> {
  let summary = "Fuses the sequence all-gathers and reduce-scatters with "
                "their GEMMs";
  let description = [{
    Replaces `tfm.linear(dist.all_gather(x) along dim 0)`, where the
    gathered value feeds only that linear, by `dist.all_gather_matmul`: the
    sequence shards are gathered in `chunks` pieces (the most, at most
    `chunks`, that divide the local sequence) and the GEMM of each piece
    runs while the next is in flight; the whole gathered input is never
    stored. The ranks send the same bytes as before. A gathered value read
    by several ops (Llama's gate and up projections) is left alone.
    Likewise a bias-free row-parallel `tfm.linear` whose partial result only
    a `dist.reduce_scatter` along dim 0 reads becomes
    `dist.matmul_reduce_scatter`, taking in the `tfm.bias_add` that alone
    reads the scattered result: each chunk's GEMMs overlap the previous
    chunk's reduction. Runs after tfm-autodiff and fuses the backward's
    collectives of each column GEMM too: its input gradient
    (`tfm.linear_grad_input`, the forward GEMM with the other weight layout)
    with the `dist.reduce_scatter` along dim 0 that alone reads it, as
    `dist.matmul_reduce_scatter` with the weight layout flipped; and a
    `dist.all_gather` along dim 0 read only by `tfm.linear_grad_weight` ops
    (as their input, one weight layout, every dy available at the first)
    as one `dist.all_gather_matmul_grad_weight` feeding all of them (Llama's
    q, k and v). The row GEMM's gathered output gradient, read by both of
    its gradients, is left alone.
  }];
  let options = [
    Option<"chunks", "chunks", "int64_t", "2",
           "Pieces each gather is split into (1: no overlap)">,
  ];
}

def SpLegalizePrecisionPass
    : Pass<"sp-legalize-precision", "::mlir::ModuleOp"> {
  let summary = "Makes every op with bf16/f16 tensors compute in f32, "
                "except those that only move bytes";
  let description = [{
    The precision policy stores tensors in bf16 or f16 and computes in f32:
    the runtime's compute kernels take f32 buffers. For every op of every
    function with a bf16 or f16 tensor operand or result, except the ops
    that move bytes without arithmetic (the `MovesBytes` trait:
    `tfm.convert`, `tfm.get_param`, `dist.all_gather`, `dist.local_slice`,
    `dist.all_to_all`, `dist.send`, `dist.recv`, whose runtime calls take
    the element size), each bf16/f16 operand is converted to f32 right
    before the op (one `tfm.convert` per value and op, same shape and
    layout), the op's bf16/f16 results become f32, and each is converted
    back to its type right after the op, for all its other uses. So every
    op's result is rounded to its storage type, as PyTorch's bf16 modules
    do, and the reductions (all_reduce, reduce_scatter, the coalesced and
    the fused GEMM collectives) sum in f32. The converts take the op's
    location, and its `tfm.recomputed` mark (they are recompute's work).
    An optimizer update (ParamUpdateOpInterface) writes its parameter in
    place in the parameter's type and is left as it is: the policy keeps f32
    master weights, and convert-sp-to-runtime refuses a bf16 update.
    `dist.ring_attention_grad` reads its forward's output unrounded (the
    f32 result of `dist.ring_attention`, kept like the f32 `lse` beside it):
    its D = rowsum(dout * out) must come from the output the lse describes,
    or each row's softmax gradient shifts by the output's rounding error.
    Function arguments and results and the ops' attributes are unchanged;
    an f32 program is unchanged, and a second run changes nothing.
    The GEMMs (`tfm.linear`, `tfm.linear_grad_input`,
    `tfm.linear_grad_weight`: StoragePrecisionOpInterface) are not wrapped:
    their kernels read each operand as stored and write each result in its
    type, rounded once, which are the same numbers without the f32 copies
    (an operand made f32 by a wrapped op is read as f32). Only a partial
    result of theirs becomes f32, as above. `storage-gemms=false` wraps
    them like every other op (the baseline the memory benchmark compares
    with). Likewise the elementwise maps (MapsElementsAsStored: `tfm.add`,
    `tfm.mul`, `tfm.gelu`, `tfm.silu`, `tfm.relu`, `tfm.dropout` and the
    activations' gradients `tfm.gelu_grad`, `tfm.silu_grad`,
    `tfm.relu_grad`) are not wrapped unless a tensor of theirs is partial:
    their typed kernels widen
    each element, map it in f32 and round it once, the numbers of the f32
    kernel between conversions. `storage-elementwise=false` wraps them.
    The row reductions and their backward (`tfm.layer_norm`,
    `tfm.rms_norm`, `tfm.cross_entropy` and their gradients:
    ReducesRowsAsStored) and the bias gradient (`tfm.bias_grad`) are kept
    like the GEMMs: their kernels widen each row, compute it as the f32
    kernel does and round each result once from its f32 value; a norm's
    weight gradient or a bias gradient that is partial is written in f32
    and narrowed after its reduction. `storage-rows=false` wraps them.
    Attention and its backward (`tfm.attention`, `tfm.attention_grad`:
    AttendsAsStored) read q, k, v and dout and write their results as
    stored, all their tensors or none: one that has a partial tensor (the
    key and value gradients of cp's all-gathered sequence) or a sequence
    split in zigzag order is wrapped whole. The head reshapes around them
    (`tfm.qkv_split`, `tfm.qkv_concat`, `tfm.repeat_heads`) move bytes.
    `storage-attention=false` wraps attention.
    Runs before sp-plan-buffers (the converts' results need arena space);
    convert-sp-to-runtime rejects a bf16/f16 tensor on any other op.
  }];
  let options = [
    Option<"storageGemms", "storage-gemms", "bool", /*default=*/"true",
           "The GEMMs read and write bf16 / f16 tensors as stored "
           "(StoragePrecisionOpInterface); false: they compute on f32 "
           "copies like every other op">,
    Option<"storageElementwise", "storage-elementwise", "bool",
           /*default=*/"true",
           "The elementwise maps (MapsElementsAsStored) read and write "
           "bf16 / f16 tensors as stored; false: they compute on f32 copies">,
    Option<"storageRows", "storage-rows", "bool", /*default=*/"true",
           "The norms, the cross-entropy, their backward and the bias "
           "gradients (ReducesRowsAsStored) read and write bf16 / f16 "
           "tensors as stored; false: they compute on f32 copies">,
    Option<"storageAttention", "storage-attention", "bool",
           /*default=*/"true",
           "Attention and its backward (AttendsAsStored) read and write "
           "bf16 / f16 tensors as stored where none is partial or split in "
           "zigzag order; false: they compute on f32 copies">,
  ];
  let dependentDialects = ["::seqpar::tfm::TfmDialect"];
}

//===----------------------------------------------------------------------===//
// Activation memory
//===----------------------------------------------------------------------===//

def SpRecomputePass : Pass<"sp-recompute", "::mlir::ModuleOp"> {
  let summary = "Activation recompute: the backward recomputes forward "
                "values instead of keeping them";
  let description = [{
    Runs on the train step tfm-autodiff built (the forward ops, then the
    backward from the op marked `tfm.backward_begins`). The policy picks a
    set of forward ops whose results the backward must not keep; each
    backward read of such a result reads a copy of its op instead, placed
    right before the first backward op that needs it and marked
    `tfm.recomputed`. A copy reads the copies of the other picked ops it
    needs (in forward order, made once and shared by every later backward
    read) and the forward's values for everything else, which stay kept.
    Parameters are read again (`tfm.get_param` is never copied). Only ops
    of the transformer layers (from their Hugging Face locations) are
    picked: the embedding, the final norm and the LM head keep what they
    keep. The module gets `tfm.recompute = "<policy>"`.

    - `none`: nothing is recomputed (only the module attribute is set).
    - `selective`: Megatron-Core's `layernorm` and activation recompute
      modules: normalisation outputs (layer_norm, rms_norm), activation
      outputs (gelu, silu, relu) and the GLU product (a `tfm.mul` of an
      activation output, Llama's act(gate) * up) are recomputed, one copy
      per op, from inputs the backward keeps anyway. The attention core
      needs nothing more: `tfm.attention`'s backward already reads only q,
      k and v and recomputes the probabilities and the dropout mask inside
      its kernel (flash-style), which is the paper's selective recompute.
    - `full`: Megatron's full (uniform, one layer per checkpoint)
      recompute: each layer keeps only its input, the residual stream
      entering it (a value of the layer read by a forward op of another
      layer, or outside the layers, is the next one's input and is kept).
      Every other op of the layer whose result the backward needs, directly
      or through another op of the layer, is recomputed, all at once before
      the first backward op that needs any of them, re-issuing the
      layer's sequence all-gathers and reduce-scatters; ops only the
      layer's output depends on (its last GEMM, reduce-scatter and dropout
      before the residual add) are not, as the backward does not need them.

    Dropout (and attention dropout) draw their masks from the run's seed,
    the op's `stream` attribute and the global element index only, so a
    copy draws the same mask as the original: gradients equal policy
    none's. A module without a train step, or one already recomputed (it
    has `tfm.recompute`), is an error.
  }];
  let options = [
    Option<"policy", "policy", "::seqpar::RecomputePolicy",
           "::seqpar::RecomputePolicy::none",
           "What the backward recomputes: none, selective or full",
           "::seqpar::recomputePolicyValues()">,
  ];
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def SpPlanBuffersPass : Pass<"sp-plan-buffers", "::mlir::ModuleOp"> {
  let summary = "One arena per rank: offsets from liveness";
  let description = [{
    Gives every tensor each function computes an offset in one arena per
    rank, so that values live at the same time never share a byte (a value
    is live from the op that writes it to the last op that reads it; the
    function's results to its end). The result of an in-place kernel
    (`dist.all_reduce`, `dist.all_reduce_coalesced`, `tfm.scale`) shares
    the bytes of a same-sized operand whose last reader it is. Values are
    packed first fit, in
    decreasing size and in decreasing lifetime, keeping the smaller arena;
    offsets are multiples of 64 bytes. Records `dist.arena_offsets` (one per
    result) on each op and `dist.arena_bytes` (the arena's size) and
    `dist.arena_max_live` (the most bytes live at any op, a lower bound of
    every plan) on the function. The workspace an op's runtime kernel
    needs beyond its operands and results (`WorkspaceOpInterface`: the
    fused collective GEMMs' chunks, the coalesced collectives' buckets, the
    pack buffers of a collective on a strided dimension) is placed the same
    way, live only at its op, and recorded as `dist.workspace_offset`.
    The plan is checked before it is kept;
    sp-verify and convert-sp-to-runtime check it again, so a hand-edited
    overlap is an error at the op.
  }];
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

def SpReportPass : Pass<"sp-report", "::mlir::ModuleOp"> {
  let summary = "Prints per-layer activation memory or communication as JSON";
  let description = [{
    `memory`: per layer and in total, the activation bytes each rank keeps
    for the backward pass, from the ops' SavedForBackwardOpInterface
    declarations (the fused collective GEMMs keep what their linear keeps),
    in two accountings: what seqpar's train step keeps, in the IR's element
    types (`ir_bytes`; the softmax output and dropout masks are recomputed
    by seqpar's backward, so they are not counted), and Korthikanti et al.
    2022's (`paper_bytes`: 2-byte activations, 1-byte dropout masks,
    softmax and masks kept, no recompute). `paper_minus_ir_by_kind` names
    the kinds of kept tensor where the two differ, with the paper's bytes
    minus the IR's (the recomputed ones; those the IR keeps at another
    width than the paper's). On a module with a train step
    the report adds `train_step_kept_bytes`: the bytes of the forward values
    its backward really reads, which equals `ir_bytes` without recompute.
    The input of a column-parallel GEMM that was all-gathered along the
    sequence is kept as the sequence shard and re-gathered in the backward
    (the paper's choice), so its shard is counted.

    `recompute` is the module's policy (`tfm.recompute`, set by
    sp-recompute; none without it). `paper_bytes_recompute` is the paper's
    accounting under the policy `paper_recompute`: the `recompute` option if
    given, else the module's policy. `selective` drops the attention core's
    internal tensors (softmax output, attention dropout mask and output:
    34 sbh/t per layer with SP), `full` keeps only each layer's input (the
    floating-point values it reads from outside the layer: 2 sbh/t with SP).

    `flops` counts the program function's (the train step, else the
    forward) GEMMs and attention (Flops.h; elementwise ops count 0) in the
    forward, the backward, and the ops recompute cloned into the backward
    (`tfm.recomputed`); `extra_flops_fraction` is the last over the whole
    step. `per_rank_peak_bytes` is one rank's planned device memory
    (RankMemory.h): parameters, optimizer_state, tokens and the arena
    (`arena_bytes`, sp-plan-buffers' plan when the function has one, else
    planned here on a copy: `arena_planned_by`), their sum `total`, and the
    arena bytes live at the op where the most are (`peak_live_bytes`, at
    `peak_at`) split into activations (forward values), gradients (backward
    values) and workspaces; `activations_peak_bytes` is the most bytes of
    forward values live at any op (the activations' own peak, which
    recompute lowers, where the backward begins).

    `comm`: per layer, every collective with its axis, dimension and the
    bytes each rank sends in a ring implementation (all_gather and
    reduce_scatter (n-1)/n of the full tensor, all_reduce twice that), and
    totals.

    Layers are read from op locations (`transformer.h.<i>`,
    `gpt_neox.layers.<i>`, `model.layers.<i>`); other ops are reported under
    `outside_layers`. The JSON goes to stdout (or `output`).
  }];
  let options = [
    Option<"memory", "memory", "bool", "false", "Report activation memory">,
    Option<"comm", "comm", "bool", "false", "Report communication">,
    Option<"output", "output", "std::string", "\"-\"",
           "Where to write the JSON (default: stdout)">,
    Option<"recompute", "recompute", "::seqpar::PaperRecompute",
           "::seqpar::PaperRecompute::step",
           "The memory report's paper column under this policy: none, "
           "selective or full (default step: the module's tfm.recompute)",
           "::seqpar::paperRecomputeValues()">,
  ];
}

#endif // SEQPAR_DIALECT_DIST_TRANSFORMS_PASSES_TD
