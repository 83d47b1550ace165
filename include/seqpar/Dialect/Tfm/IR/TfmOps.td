//===- TfmOps.td - tfm operations --------------------------*- tablegen -*-===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFMOPS_TD
#define SEQPAR_DIALECT_TFM_IR_TFMOPS_TD

include "seqpar/Dialect/Common/SeqparEnums.td"
include "seqpar/Dialect/Common/SeqparInterfaces.td"
include "seqpar/Dialect/Tfm/IR/TfmDialect.td"
include "seqpar/Dialect/Tfm/IR/TfmInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// Every tfm op that computes values declares what its backward keeps.
class Tfm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tfm_Dialect, mnemonic, !listconcat([Seqpar_CheckedTensorSizes], traits, [
        DeclareOpInterfaceMethods<Tfm_SavedForBackwardOpInterface>])>;

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

def Tfm_ParamOp : Op<Tfm_Dialect, "param", [Symbol]> {
  let summary = "a named global weight of the model";
  let description = [{
    Declares a trainable parameter at module level. The symbol name is the
    parameter's Hugging Face name, so that a checkpoint can be loaded by name.
    The type is the global (unsharded) shape. `init` says how a fresh run
    initialises it: `normal(std)` (mean 0), `zeros` or `ones`.

    Parameters that must hold the same value (for example the two copies of a
    tied embedding on the first and last pipeline stages) share a `tie` group;
    their gradient contributions are summed before any data-parallel
    reduction.

    ```mlir
    tfm.param @"transformer.wte.weight" : tensor<50257x768xf32> init normal(0.02)
    tfm.param @"transformer.ln_f.bias" : tensor<768xf32> init zeros
    tfm.param @"lm_head.weight" : tensor<50257x768xf32> init normal(0.02) tie "wte"
    ```

    **Constraints**
    - the type is a ranked f32, bf16 or f16 tensor with static, positive dims;
    - `normal` has a standard deviation and it is > 0; `zeros` and `ones` have
      none;
    - a tie group, when given, is a non-empty name, and every parameter of the
      group in the same module has the same type and initialisation.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<Tfm_FloatTensor>:$type,
                       Tfm_InitKind:$init,
                       OptionalAttr<F64Attr>:$init_std,
                       OptionalAttr<StrAttr>:$tie_group);
  let assemblyFormat = [{
    $sym_name `:` $type `init` $init (`(` $init_std^ `)`)?
    (`tie` $tie_group^)? attr-dict
  }];
  let hasVerifier = 1;
}

def Tfm_GetParamOp : Tfm_Op<"get_param", [Pure, Tfm_NoBackward,
    Seqpar_MovesBytes,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "reads a parameter declared by tfm.param";
  let description = [{
    Returns the value of the named parameter.

    ```mlir
    %w = tfm.get_param @"transformer.wte.weight" : tensor<50257x768xf32>
    ```

    After partitioning, the parameter's type carries its layout with the
    global shape, and `tfm.get_param` returns this rank's shard: same layout,
    local shape.

    ```mlir
    tfm.param @w : tensor<768x3072xf32, #dist.layout<@mesh, tp = S(1)>> init normal(0.02)
    %w = tfm.get_param @w : tensor<768x768xf32, #dist.layout<@mesh, tp = S(1)>>
    ```

    **Constraints**
    - the symbol names a `tfm.param` in the enclosing symbol table;
    - the result has the parameter's element type, rank and encoding;
    - each result dimension equals the parameter's, or (with a layout)
      divides it (sp-verify checks the exact shard size against the mesh).
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Embeddings and positions
//===----------------------------------------------------------------------===//

def Tfm_PositionIdsOp : Tfm_Op<"position_ids", [Pure, Tfm_NoBackward]> {
  let summary = "the position of every token of the sequence";
  let description = [{
    Produces `[s, b]` integers where element `(i, j)` is `i`: the global
    sequence position of each token (GPT-2's learned positions, rotary
    embeddings). Packed sequences pass their own position ids instead.

    ```mlir
    %pos = tfm.position_ids : tensor<128x2xi64>
    ```

    **Constraints**
    - the result is a rank-2 `[s, b]` tensor of i32 or i64.
  }];
  let results = (outs Tfm_IndexTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tfm_MicroBatchOp : Tfm_Op<"micro_batch", [Pure, Tfm_NoBackward]> {
  let summary = "one micro-batch of the step's token ids or labels";
  let description = [{
    A train step over M micro-batches (sp-micro-batches) takes its token ids
    and labels as `[M, s, b]`; `tfm.micro_batch %x [i]` is micro-batch i,
    `[s, b]`. Its layout is the input's with every split dimension one lower
    (the micro-batch dimension itself is never split). The runtime reads it
    in place: no copy, no arena space.

    ```mlir
    %ids2 = tfm.micro_batch %ids [2] : tensor<4x128x2xi64> -> tensor<128x2xi64>
    ```

    **Constraints**
    - the input has rank >= 2 and `0 <= index < ` its dimension 0;
    - the result's shape is the input's without dimension 0, with the same
      element type;
    - (sp-verify) the input's layout does not split dimension 0 and the
      result's layout is the input's with each split dimension decreased by
      one.
  }];
  let arguments = (ins Tfm_IndexTensor:$input, I64Attr:$index);
  let results = (outs Tfm_IndexTensor:$result);
  let assemblyFormat = [{
    $input `[` $index `]` attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_MicroBatchLoopOp : Op<Tfm_Dialect, "micro_batch_loop", [
    Seqpar_CheckedTensorSizes, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "a train step's forward and backward run once per micro-batch, summed";
  let description = [{
    Gradient accumulation as a loop (sp-micro-batches): the inputs are the
    step's token ids and labels, `[M, s, b]`; the body runs once per
    micro-batch i = 0, 1, ..., M - 1 in order, its block arguments being
    micro-batch i of each input (`[s, b]`, read in place), and each result
    is the sum over the micro-batches of the value yielded for it, added in
    micro-batch order (the first micro-batch's value, then each next one
    added to the running sum: the sums an unrolled step computes). The body
    may read values defined before the loop (a label count of the whole
    step); what it defines lives for one micro-batch. Its size and the
    compile time do not depend on M. The runtime is told the micro-batch
    (`sprt_set_micro_batch(i, M)`) at the start of each iteration, so that
    dropout masks and position ids are those of its rows of the step.

    With `count = n` the loop runs micro-batches 0, 1, ..., n - 1 only (its
    results their sums); the step computes the others in straight-line code
    after it (sp-micro-batches peels the last micro-batch so that each
    gradient's final sum is an op of the step's block, after which its
    reduction can start: sp-overlap-grad-reductions).

    With `lag = w` the loop is a pipeline stage's 1F1B schedule: the body's
    forward part (the ops before the one marked `tfm.backward_begins`) and
    its backward part run `w` micro-batches apart. Iteration t = 0, 1, ...,
    M + w - 1 runs the forward of micro-batch t (if t < M), then the
    backward of micro-batch t - w (if t >= w): w warm-up forwards, one
    forward and one backward per step of the steady state, w cool-down
    backwards. A forward value the backward reads (an activation, the
    micro-batch's inputs) is that of the backward's micro-batch: the arena
    keeps min(w + 1, M) copies of it, micro-batch i's in copy i mod that
    (stashSlots). Each result sums its micro-batches in order, as without
    a lag. w = 0 is the plain loop.

    ```mlir
    %loss, %g = tfm.micro_batch_loop (%ids, %labels)
        : (tensor<4x128x2xi64>, tensor<4x128x2xi64>)
        -> (tensor<f32>, tensor<64x256xf32>) {
    ^bb0(%ids_i: tensor<128x2xi64>, %labels_i: tensor<128x2xi64>):
      ...
      tfm.yield %loss_i, %g_i : tensor<f32>, tensor<64x256xf32>
    }
    ```

    **Constraints**
    - at least one input, every input of rank >= 2 with the same dimension
      0 (the micro-batch count M >= 1);
    - the body has one block argument per input, of the input's type
      without dimension 0 and, with a layout, the input's layout with each
      split dimension one lower; dimension 0 is not split;
    - the yielded values have the results' types;
    - `count`, if present, is in `[1, M]`;
    - `lag`, if present, is in `[0, M]`, comes without `count`, and the
      body has exactly one op marked `tfm.backward_begins`.
  }];
  let arguments = (ins Variadic<Tfm_IndexTensor>:$inputs,
                       OptionalAttr<I64Attr>:$count,
                       OptionalAttr<I64Attr>:$lag);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let extraClassDeclaration = [{
    /// M: the micro-batches of the step (dimension 0 of the inputs).
    int64_t getStepMicroBatches() {
      return ::llvm::cast<::mlir::RankedTensorType>(getInputs()[0].getType())
          .getDimSize(0);
    }
    /// The micro-batches the loop runs: `count`, else M.
    int64_t getMicroBatches() {
      if (::std::optional<uint64_t> n = getCount())
        return static_cast<int64_t>(*n);
      return getStepMicroBatches();
    }
    /// w: how many micro-batches the backward part runs behind the
    /// forward part (0 without `lag`).
    int64_t getLagOrZero() {
      ::std::optional<uint64_t> w = getLag();
      return w ? static_cast<int64_t>(*w) : 0;
    }
    /// The body's first op of the backward part (marked
    /// tfm.backward_begins), null without a lag.
    ::mlir::Operation *getBackwardBegin();
    /// Whether `op` (in the body, or nested in an op of it) is in the
    /// backward part of a loop with a lag; `begin` is getBackwardBegin()
    /// (a scan of the body), for callers that ask about many ops.
    bool inBackwardPart(::mlir::Operation *op);
    bool inBackwardPart(::mlir::Operation *op, ::mlir::Operation *begin);
    /// How many copies of `v` the arena holds: min(lag + 1, M) for a value
    /// of the forward part that the backward part reads (a stash: each
    /// micro-batch's in its own copy until its backward), else 1.
    int64_t stashSlots(::mlir::Value v);
  }];
  let hasVerifier = 1;
}

def Tfm_YieldOp : Op<Tfm_Dialect, "yield", [Pure, Terminator,
    HasParent<"MicroBatchLoopOp">]> {
  let summary = "what one micro-batch adds to tfm.micro_batch_loop's results";
  let description = [{
    Ends the body of `tfm.micro_batch_loop`: the values of this micro-batch
    that the loop sums into its results.

    ```mlir
    tfm.yield %loss_i, %g_i : tensor<f32>, tensor<64x256xf32>
    ```

    **Constraints**
    - the operands have the parent loop's result types (checked by the
      loop).
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Tfm_EmbeddingOp : Tfm_Op<"embedding", [Pure, Tfm_Differentiable,
    Seqpar_MovesBytes]> {
  let summary = "looks up rows of an embedding table";
  let description = [{
    `result[i, j, :] = table[ids[i, j], :]`. When the table is split over the
    vocabulary on a mesh axis (layout S(0), Megatron's vocab-parallel
    embedding), each rank looks up only the ids in its range, writes zeros
    for the others, and the result is partial (P) over that axis. It moves
    rows (MovesBytes): a bf16 / f16 table is read as stored.

    ```mlir
    %x = tfm.embedding %ids, %wte
        : (tensor<128x2xi64>, tensor<50257x768xf32>) -> tensor<128x2x768xf32>
    ```

    **Constraints**
    - the table has rank 2 `[vocab, hidden]`;
    - the result shape is the ids' shape followed by `hidden`;
    - the result element type is the table's.
  }];
  let arguments = (ins Tfm_IndexTensor:$ids, Tfm_FloatTensor:$table);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$ids `,` $table attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalisation and dropout
//===----------------------------------------------------------------------===//

def Tfm_LayerNormOp : Tfm_Op<"layer_norm", [Pure, Tfm_Differentiable,
    Tfm_Normalization, Seqpar_ReducesRowsAsStored,
    Seqpar_StoragePrecisionOpInterface]> {
  let summary = "layer normalisation over the last dimension";
  let description = [{
    `y = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias`, with mean and
    (biased) variance over the last dimension. The bias is optional.

    ```mlir
    %y = tfm.layer_norm %x, %w, %b eps 1.0e-05
        : (tensor<128x2x768xf32>, tensor<768xf32>, tensor<768xf32>)
        -> tensor<128x2x768xf32>
    ```

    **Constraints**
    - `eps` > 0;
    - the weight (and bias, if present) has rank 1 and the size of the
      input's last dimension, and the input's element type;
    - the result type equals the input type.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$bias, F64Attr:$eps);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `eps` $eps attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_RmsNormOp : Tfm_Op<"rms_norm", [Pure, Tfm_Differentiable,
    Tfm_Normalization, Seqpar_ReducesRowsAsStored,
    Seqpar_StoragePrecisionOpInterface]> {
  let summary = "root-mean-square normalisation over the last dimension";
  let description = [{
    `y = x / sqrt(mean(x^2) + eps) * weight` over the last dimension (Llama).

    ```mlir
    %y = tfm.rms_norm %x, %w eps 1.0e-06
        : (tensor<128x2x4096xf32>, tensor<4096xf32>) -> tensor<128x2x4096xf32>
    ```

    **Constraints**
    - `eps` > 0;
    - the weight has rank 1, the size of the input's last dimension, and the
      input's element type;
    - the result type equals the input type.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$weight,
                       F64Attr:$eps);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight `eps` $eps attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_DropoutOp : Tfm_Op<"dropout", [SameOperandsAndResultType,
    Tfm_Differentiable, Seqpar_MapsElementsAsStored]> {
  let summary = "inverted dropout with a counter-based random stream";
  let description = [{
    Zeroes each element with probability `rate` and scales the others by
    `1 / (1 - rate)`. The mask is drawn from a counter-based generator keyed
    by (seed, `stream`, global element index), so a sharded run draws exactly
    the slice of the unsharded run's mask. A rate of 0 is the identity.

    ```mlir
    %y = tfm.dropout %x rate 1.0e-01 stream 3 : tensor<128x2x768xf32>
    ```

    **Constraints**
    - 0 <= `rate` < 1;
    - `stream` >= 0;
    - the result type equals the input type.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, F64Attr:$rate,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$stream);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `rate` $rate `stream` $stream attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear layers and attention
//===----------------------------------------------------------------------===//

def Tfm_LinearOp : Tfm_Op<"linear", [Pure, Tfm_Differentiable,
    DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface>]> {
  let summary = "matrix multiplication over the last dimension, optional bias";
  let description = [{
    `y = x W^T + b` for a `[out, in]` weight (torch.nn.Linear, the default
    `weight_layout = out_in`) or `y = x W + b` for an `[in, out]` weight
    (GPT-2's Conv1D, `in_out`). The bias is optional.

    ```mlir
    %y = tfm.linear %x, %w, %b weight_layout in_out
        : (tensor<128x2x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>)
        -> tensor<128x2x3072xf32>
    %z = tfm.linear %x, %w2
        : (tensor<128x2x768xf32>, tensor<3072x768xf32>) -> tensor<128x2x3072xf32>
    ```

    **Constraints**
    - the input has rank >= 1 and the weight rank 2;
    - the weight's `in` dimension equals the input's last dimension;
    - the bias, if present, has rank 1 and size `out`;
    - the result shape is the input's with the last dimension replaced by
      `out`;
    - input, weight, bias and result may each be f32, bf16 or f16: each
      operand is read exactly, the products are summed in f32 (onto the
      bias) and the result is rounded once to its type. The runtime's
      kernel reads and writes them as stored (no f32 copies:
      StoragePrecisionOpInterface).
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$bias,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`weight_layout` $weight_layout^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of input and output features of the weight.
    int64_t getInFeatures();
    int64_t getOutFeatures();
  }];
}

def Tfm_QkvSplitOp : Tfm_Op<"qkv_split", [Pure, Tfm_Differentiable,
    Seqpar_MovesBytes]> {
  let summary = "splits a fused QKV projection into queries, keys and values";
  let description = [{
    Takes the output of a fused QKV linear, `[..., (heads + 2 kv_heads) *
    head_dim]`, and returns q `[..., heads * head_dim]`, k and v
    `[..., kv_heads * head_dim]`. `packing` says how the fused features are
    ordered: `blocks` is `[q | k | v]` (GPT-2's c_attn), `heads` is
    `[head 0: q k v | head 1: q k v | ...]` (GPT-NeoX's query_key_value).
    The partitioner uses it to split the fused weight so that every rank
    holds whole heads. It moves elements (MovesBytes): bf16 / f16 tensors
    stay as stored.

    ```mlir
    %q, %k, %v = tfm.qkv_split %qkv packing blocks heads 12 kv_heads 12
        head_dim 64 : tensor<128x2x2304xf32>
        -> tensor<128x2x768xf32>, tensor<128x2x768xf32>, tensor<128x2x768xf32>
    ```

    **Constraints**
    - `heads`, `kv_heads` and `head_dim` are >= 1 and `heads` is a multiple of
      `kv_heads`;
    - `heads` packing needs `heads == kv_heads`;
    - the input's last dimension is `(heads + 2 * kv_heads) * head_dim`;
    - the results have the input's leading dimensions and element type, and
      last dimensions `heads * head_dim`, `kv_heads * head_dim` twice.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_QkvPacking:$packing,
                       I64Attr:$num_heads, I64Attr:$num_kv_heads,
                       I64Attr:$head_dim);
  let results = (outs Tfm_FloatTensor:$q, Tfm_FloatTensor:$k,
                      Tfm_FloatTensor:$v);
  let assemblyFormat = [{
    $input `packing` $packing `heads` $num_heads `kv_heads` $num_kv_heads
    `head_dim` $head_dim attr-dict `:` type($input) `->` type(results)
  }];
  let hasVerifier = 1;
}

def Tfm_AttentionOp : Tfm_Op<"attention", [Pure, Tfm_Differentiable,
    Seqpar_AttendsAsStored, Seqpar_StoragePrecisionOpInterface]> {
  let summary = "multi-head scaled dot-product attention with rotary and GQA";
  let description = [{
    Scaled dot-product attention of `[s, b, heads * head_dim]` queries over
    `[s, b, kv_heads * head_dim]` keys and values; query head `i` reads kv
    head `i / (heads / kv_heads)` (grouped-query attention; `kv_heads = 1` is
    multi-query). Scores are scaled by `1 / sqrt(head_dim)`; `causal` masks
    future positions. When `rotary_dim > 0`, the first `rotary_dim` features
    of each query and key head are rotated (rotate-half convention of
    GPT-NeoX and Llama) by `position * theta^(-2i / rotary_dim)`, with
    positions from the optional `positions` operand (`[s, b]`) or the global
    sequence index. `rotary_dim = int(head_dim * rotary_fraction)`.
    `dropout_rate` applies dropout to the attention probabilities with the
    random stream `dropout_stream`. `document_causal` (with `causal` and
    `positions`: packed documents, positions restarting at 0 in each) keeps
    attention inside a document: key `j` is visible to query row `i` iff
    `i - positions[i] <= j <= i` (global rows); with positions `0..s-1` this
    is the causal mask. On bf16 / f16 tensors the runtime reads q, k, v and
    writes the result as stored, computing in f32 and rounding once
    (AttendsAsStored; sp-legalize-precision's `storage-attention`).

    ```mlir
    %o = tfm.attention %q, %k, %v heads 32 kv_heads 8 head_dim 128
        {causal, rotary_dim = 128, rotary_theta = 5.0e+05}
        : tensor<128x2x4096xf32>, tensor<128x2x1024xf32>, tensor<128x2x1024xf32>
        -> tensor<128x2x4096xf32>
    ```

    **Constraints**
    - `heads`, `kv_heads` and `head_dim` are >= 1 and `heads` is a multiple of
      `kv_heads`;
    - q, k and v have rank 3, the same `[s, b]` leading dimensions and element
      type; q's last dimension is `heads * head_dim`, k's and v's
      `kv_heads * head_dim`;
    - `positions`, if present, is an `[s, b]` integer tensor;
    - `rotary_dim` is even and in `[0, head_dim]`; `rotary_theta` > 0 when
      `rotary_dim` > 0;
    - 0 <= `dropout_rate` < 1 and `dropout_stream` >= 0;
    - `document_causal` needs `causal` and `positions`;
    - the result type equals q's type;
    - `lse`, when present, is `[s, b, heads]` f32 with q's encoding.

    `lse` (added by tfm-save-attention-stats for the backward) is the
    natural logarithm of each query row's softmax denominator over the
    scaled, masked scores (before dropout); -inf for a row that sees no key.
    `tfm.attention_grad` given the result and `lse` (`saved`) computes the
    probabilities as `exp(score - lse)` instead of running the forward again.
  }];
  let arguments = (ins Tfm_FloatTensor:$q, Tfm_FloatTensor:$k,
                       Tfm_FloatTensor:$v, Optional<Tfm_IndexTensor>:$positions,
                       I64Attr:$num_heads, I64Attr:$num_kv_heads,
                       I64Attr:$head_dim, UnitAttr:$causal,
                       DefaultValuedAttr<I64Attr, "0">:$rotary_dim,
                       DefaultValuedAttr<F64Attr, "10000.0">:$rotary_theta,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_rate,
                       DefaultValuedAttr<I64Attr, "0">:$dropout_stream,
                       UnitAttr:$document_causal);
  let results = (outs Tfm_FloatTensor:$result,
                      Optional<Tfm_FloatTensor>:$lse);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`positions` $positions^)? `heads` $num_heads
    `kv_heads` $num_kv_heads `head_dim` $head_dim attr-dict `:`
    type($q) `,` type($k) `,` type($v) (`,` type($positions)^)? `->`
    type($result) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// A unary elementwise op y = f(x). Its backward is one line in
// TfmBackward.cpp: `return unaryBackward<FooGradOp>(*this, ctx);`, FooGradOp
// (TfmGradOps.td) computing dx from (dy, x).
class Tfm_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Tfm_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                    Tfm_Differentiable,
                                    Seqpar_MapsElementsAsStored], traits)> {
  let arguments = (ins Tfm_FloatTensor:$input);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// A binary elementwise op y = f(a, b) of one type. Its backward in
// TfmBackward.cpp gives binaryBackward each operand's gradient from dy.
class Tfm_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Tfm_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                    Commutative, Tfm_Differentiable,
                                    Seqpar_MapsElementsAsStored], traits)> {
  let arguments = (ins Tfm_FloatTensor:$lhs, Tfm_FloatTensor:$rhs);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Tfm_GeluOp : Tfm_Op<"gelu", [Pure, SameOperandsAndResultType,
    Tfm_Differentiable, Tfm_Activation, Seqpar_MapsElementsAsStored]> {
  let summary = "Gaussian error linear unit, exact or tanh-approximated";
  let description = [{
    `approximate = none` is `x * Phi(x)` (torch's default, GPT-NeoX
    `hidden_act = gelu`); `tanh` is GPT-2's `gelu_new`.

    ```mlir
    %y = tfm.gelu %x approximate tanh : tensor<128x2x3072xf32>
    ```

    **Constraints**
    - the result type equals the input type.
  }];
  let arguments = (ins Tfm_FloatTensor:$input,
                       Seqpar_GeluApproximation:$approximate);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `approximate` $approximate attr-dict `:` type($input)";
}

def Tfm_SiluOp : Tfm_UnaryOp<"silu", [Tfm_Activation]> {
  let summary = "sigmoid linear unit, x * sigmoid(x)";
  let description = [{
    ```mlir
    %y = tfm.silu %x : tensor<128x2x11008xf32>
    ```

    **Constraints**
    - the result type equals the input type.
  }];
}

def Tfm_ReluOp : Tfm_UnaryOp<"relu", [Tfm_Activation]> {
  let summary = "rectified linear unit, max(x, 0)";
  let description = [{
    ```mlir
    %y = tfm.relu %x : tensor<128x2x3072xf32>
    ```

    **Constraints**
    - the result type equals the input type.
  }];
}

def Tfm_MulOp : Tfm_BinaryOp<"mul"> {
  let summary = "elementwise product";
  let description = [{
    ```mlir
    %y = tfm.mul %a, %b : tensor<128x2x11008xf32>
    ```

    **Constraints**
    - both operands and the result have the same type (no broadcasting).
  }];
}

def Tfm_AddOp : Tfm_BinaryOp<"add"> {
  let summary = "elementwise sum (residual connections)";
  let description = [{
    ```mlir
    %y = tfm.add %a, %b : tensor<128x2x768xf32>
    ```

    **Constraints**
    - both operands and the result have the same type (no broadcasting).
  }];
}

def Tfm_ConvertOp : Tfm_Op<"convert", [Pure, Tfm_Differentiable,
    Seqpar_MovesBytes]> {
  let summary = "converts a tensor to another floating-point element type";
  let description = [{
    The precision policy's cast (tfm-precision, sp-master-weights,
    sp-legalize-precision): f32, bf16 and f16 in either direction, rounding
    to nearest even when narrowing (NaN stays NaN, overflow gives inf),
    exact when widening. Its gradient converts the incoming gradient back to
    the operand's element type.

    ```mlir
    %w16 = tfm.convert %w : tensor<768x768xf32> -> tensor<768x768xbf16>
    ```

    **Constraints**
    - the result has the operand's shape and layout (encoding); only the
      element type differs or not.
  }];
  let arguments = (ins Tfm_FloatTensor:$input);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tfm_BiasAddOp : Tfm_Op<"bias_add", [Pure, Tfm_Differentiable,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "adds a bias vector along the last dimension";
  let description = [{
    `y[..., i] = x[..., i] + bias[i]`. The partitioner uses it to add the
    bias of a row-parallel linear once, after the partial products are
    reduced.

    ```mlir
    %y = tfm.bias_add %x, %b : tensor<128x2x768xf32>, tensor<768xf32>
    ```

    **Constraints**
    - the bias has rank 1 and the size of the input's last dimension;
    - the bias has the input's element type;
    - the result type equals the input type.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$bias);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `,` $bias attr-dict `:` type($input) `,` type($bias)";
  let hasVerifier = 1;
}

def Tfm_RepeatHeadsOp : Tfm_Op<"repeat_heads", [Pure, Tfm_Differentiable,
    Seqpar_MovesBytes]> {
  let summary = "repeats every head of a key or value tensor";
  let description = [{
    Turns `[..., heads * head_dim]` into `[..., heads * factor * head_dim]`
    where head `i` of the result is head `i / factor` of the input
    (transformers' `repeat_kv`). With grouped-query attention and fewer kv
    heads than tensor-parallel ranks, the partitioner repeats the replicated
    kv heads and keeps each rank's slice, so every rank holds the one kv head
    its query heads read.

    ```mlir
    %k4 = tfm.repeat_heads %k heads 2 head_dim 64 factor 2
        : tensor<128x2x128xf32> -> tensor<128x2x256xf32>
    ```

    **Constraints**
    - `heads`, `head_dim` and `factor` are >= 1;
    - the input's last dimension is `heads * head_dim`;
    - the result has the input's leading dimensions and element type, and
      last dimension `heads * factor * head_dim`.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, I64Attr:$num_heads,
                       I64Attr:$head_dim, I64Attr:$factor);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `heads` $num_heads `head_dim` $head_dim `factor` $factor attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

include "seqpar/Dialect/Tfm/IR/TfmLossOps.td"
include "seqpar/Dialect/Tfm/IR/TfmGradOps.td"
include "seqpar/Dialect/Tfm/IR/TfmOptimizerOps.td"
include "seqpar/Dialect/Tfm/IR/TfmFusedOps.td"

#endif // SEQPAR_DIALECT_TFM_IR_TFMOPS_TD
