//===- DistFusedOps.td - collectives fused with compute ----*- tablegen -*-===//
//
// Included from DistOps.td: ring attention and its backward, and the
// all-gather / reduce-scatter GEMMs (sp-fuse-collective-matmul's).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_IR_DISTFUSEDOPS_TD
#define SEQPAR_DIALECT_DIST_IR_DISTFUSEDOPS_TD

//===----------------------------------------------------------------------===//
// Fused communication and computation
//===----------------------------------------------------------------------===//

// The attributes tfm.attention has, shared by ring attention and its
// backward.
defvar Dist_RingAttentionAttrs = (ins FlatSymbolRefAttr:$mesh, StrAttr:$axis,
                   I64Attr:$num_heads, I64Attr:$num_kv_heads,
                   I64Attr:$head_dim, UnitAttr:$causal,
                   DefaultValuedAttr<I64Attr, "0">:$rotary_dim,
                   DefaultValuedAttr<F64Attr, "10000.0">:$rotary_theta,
                   DefaultValuedAttr<F64Attr, "0.0">:$dropout_rate,
                   DefaultValuedAttr<I64Attr, "0">:$dropout_stream,
                   UnitAttr:$document_causal);

def Dist_RingAttentionOp : Dist_CollectiveOp<"ring_attention", [Pure]> {
  let summary = "attention over a sequence split in zigzag, K/V in a ring";
  let description = [{
    Context parallelism's ring variant of `tfm.attention` (same attributes,
    same meaning): q, k, v and positions are this rank's zigzag part of the
    sequence on `axis` (chunks r and 2n - 1 - r of 2n), and the result is
    this rank's rows of attention over the whole sequence. The K/V blocks
    travel around the axis's ring by send/recv (n - 1 steps, the next
    block's transfer overlapping this block's compute), each merged into the
    running result by log-sum-exp; `lse` [s, b, heads] (f32) is the
    logarithm of each row's softmax denominator, kept for the backward.
    Masks (causal, document-causal from the queries' positions), rotary
    angles and dropout draws are those of the one-device attention at the
    same global rows.

    ```mlir
    %o, %lse = dist.ring_attention %q, %k, %v positions %p on @mesh["cp"]
        heads 4 kv_heads 2 head_dim 16 {causal}
        : tensor<8x2x64xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, ...
    ```

    **Constraints**
    - the axis exists and has role `context`; its size n > 1;
    - q, k, v [s, b, w] with s even (two chunks), q's width heads *
      head_dim, k's and v's kv_heads * head_dim, kv_heads dividing heads;
      positions [s, b] of an integer type; result q's type, lse
      [s, b, heads] f32;
    - with layouts: q, k, v, positions and the result are S(0, zigzag) on
      the axis (and the same layout), lse S(0, zigzag) on it.

    Bytes each rank sends: (n - 1) x (k + v + positions).
  }];
  let arguments = !con((ins Dist_Tensor:$q, Dist_Tensor:$k, Dist_Tensor:$v,
                            Optional<Dist_Tensor>:$positions),
                       Dist_RingAttentionAttrs);
  let results = (outs Dist_Tensor:$result, Dist_Tensor:$lse);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`positions` $positions^)? `on` $mesh `[` $axis `]`
    `heads` $num_heads `kv_heads` $num_kv_heads `head_dim` $head_dim attr-dict
    `:` functional-type(operands, results)
  }];
}

def Dist_RingAttentionGradOp
    : Dist_CollectiveOp<"ring_attention_grad", [Pure]> {
  let summary = "backward of dist.ring_attention";
  let description = [{
    dq, dk, dv of `dist.ring_attention` (this rank's zigzag rows) from the
    result's gradient `dout` and the forward's `result` and `lse`: K/V
    blocks travel around the ring as in the forward, and with each the
    dK/dV accumulated for it so far; after n steps every block's dK/dV is
    back with its owner, whole (so dk and dv are not partial).

    **Constraints**: as `dist.ring_attention`; dout and result have q's
    type, dq q's, dk k's, dv v's.

    Bytes each rank sends: (n - 1) x (k + v + positions) + n x (k + v).
  }];
  let arguments = !con((ins Dist_Tensor:$dout, Dist_Tensor:$q, Dist_Tensor:$k,
                            Dist_Tensor:$v, Dist_Tensor:$result,
                            Dist_Tensor:$lse, Optional<Dist_Tensor>:$positions),
                       Dist_RingAttentionAttrs);
  let results = (outs Dist_Tensor:$dq, Dist_Tensor:$dk, Dist_Tensor:$dv);
  let assemblyFormat = [{
    $dout `,` $q `,` $k `,` $v `,` $result `,` $lse
    (`positions` $positions^)? `on` $mesh `[` $axis `]` `heads` $num_heads
    `kv_heads` $num_kv_heads `head_dim` $head_dim attr-dict `:`
    functional-type(operands, results)
  }];
}

def Dist_AllGatherMatmulOp : Dist_CollectiveOp<"all_gather_matmul", [Pure,
    DeclareOpInterfaceMethods<Dist_WorkspaceOpInterface>,
    DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface>]> {
  let summary = "all_gather followed by a linear, chunked to overlap";
  let description = [{
    `linear(all_gather(input, dim), weight, bias)`: the sequence-parallel
    input of a column-parallel linear is gathered in `chunks` pieces so the
    GEMM of one piece overlaps the transfer of the next. `weight_layout` has
    the meaning of `tfm.linear`'s.

    ```mlir
    %y = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 4
        weight_layout in_out
        : (tensor<128x2x768xf32, #dist.layout<@mesh, tp = S(0)>>,
           tensor<768x768xf32, #dist.layout<@mesh, tp = S(1)>>,
           tensor<768xf32, #dist.layout<@mesh, tp = S(0)>>)
        -> tensor<512x2x768xf32, #dist.layout<@mesh, tp = S(2)>>
    ```

    Input, weight, bias and result may each be f32, bf16 or f16, as
    `tfm.linear`'s: each operand is read exactly, the products are summed
    in f32 (onto the bias) and the result is rounded once to its type. The
    input is gathered as stored (a bf16 / f16 one in half the bytes of
    f32) and the runtime's GEMMs read every tensor as stored
    (StoragePrecisionOpInterface), but for a bf16 / f16 input of an
    otherwise f32 op (what sp-legalize-precision leaves with
    `storage-gemms=false`): each gathered chunk of it is widened (exactly)
    to f32 for f32 GEMMs.

    **Workspace**: min(`chunks`, 2) chunks of the gathered input: with
    one chunk the whole gathered input, otherwise two (one being gathered
    while the GEMMs read the other), i.e. 2 / `chunks` of it: axis size x
    (rows / `chunks`) x `in` elements of the input's type; with a widened
    input also one chunk of every rank in f32 (axis size x (rows /
    `chunks`) x `in` f32).

    **Constraints**
    - the mesh exists and has the axis;
    - `dim` is below the rank of the input and is not its last (contracted)
      dimension; `chunks` >= 1 and divides the input's `dim`;
    - the weight has rank 2 and its `in` features equal the input's last
      dimension; the bias, if present, has rank 1 and size `out`;
    - the result is the input's shape with `dim` times the axis size and the
      last dimension `out`; every tensor is f32, bf16 or f16;
    - with layouts: the input is S(dim) on the axis; the result is not
      partial and not split along `dim` on the axis.
  }];
  let arguments = (ins Dist_Tensor:$input, Dist_Tensor:$weight,
                       Optional<Dist_Tensor>:$bias, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, I64Attr:$dim,
                       DefaultValuedAttr<I64Attr, "1">:$chunks,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `on` $mesh `[` $axis `]` `dim` $dim
    `chunks` $chunks (`weight_layout` $weight_layout^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Dist_AllGatherMatmulGeluOp : Dist_CollectiveOp<"all_gather_matmul_gelu",
    [Pure, DeclareOpInterfaceMethods<Dist_WorkspaceOpInterface>,
     DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface>]> {
  let summary = "all_gather, a linear and its GELU, chunked to overlap";
  let description = [{
    `tfm.gelu(dist.all_gather_matmul(input, weight, bias))` in one op:
    under sequence parallelism the MLP's first (column-parallel) GEMM reads
    the gathered sequence and its GELU reads the GEMM's result. Each
    gathered chunk's GEMM applies the bias and the GELU to its rows as it
    writes them (`tfm.linear_gelu` per chunk: cuBLASLt's GELU epilogue on
    the cuda target), so the GELU is no pass of its own over the gathered
    rows. `pre` is the GEMM's result (what the GELU's backward reads;
    where nothing reads it, as in inference, the runtime does not write it)
    and `result` the GELU of `pre`. Made by tfm-fuse-epilogues from a
    `dist.all_gather_matmul` and the `tfm.gelu` of its result.

    ```mlir
    %pre, %y = dist.all_gather_matmul_gelu %x, %w, %b on @mesh["tp"] dim 0
        chunks 4 weight_layout in_out approximate tanh
        : (tensor<128x2x768xbf16, #dist.layout<@mesh, tp = S(0)>>,
           tensor<768x1536xbf16, #dist.layout<@mesh, tp = S(1)>>,
           tensor<1536xbf16, #dist.layout<@mesh, tp = S(0)>>)
        -> (tensor<512x2x1536xbf16, #dist.layout<@mesh, tp = S(2)>>,
            tensor<512x2x1536xbf16, #dist.layout<@mesh, tp = S(2)>>)
    ```

    Tensors as `dist.all_gather_matmul`'s, with its rounding: the products
    are summed in f32 onto the bias and `pre` is rounded once to its type;
    `result` is the GELU of `pre` (widened, mapped in f32, rounded once)
    on the cpu target, bit for bit the two ops'; the cuda target's epilogue
    maps the unrounded sum, so `result` may differ there by one rounding
    (as `tfm.linear_gelu`'s).

    **Workspace**: `dist.all_gather_matmul`'s.

    **Constraints**
    - those of `dist.all_gather_matmul`, with `pre` as its result;
    - `result` has the type of `pre`.
  }];
  let arguments = (ins Dist_Tensor:$input, Dist_Tensor:$weight,
                       Optional<Dist_Tensor>:$bias, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, I64Attr:$dim,
                       DefaultValuedAttr<I64Attr, "1">:$chunks,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout,
                       Seqpar_GeluApproximation:$approximate);
  let results = (outs Dist_Tensor:$pre, Dist_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `on` $mesh `[` $axis `]` `dim` $dim
    `chunks` $chunks (`weight_layout` $weight_layout^)? `approximate`
    $approximate attr-dict `:` functional-type(operands, results)
  }];
}

def Dist_MatmulReduceScatterOp
    : Dist_CollectiveOp<"matmul_reduce_scatter", [Pure,
      DeclareOpInterfaceMethods<Dist_WorkspaceOpInterface>,
      DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface,
                                ["writesStoragePrecision"]>]> {
  let summary = "a linear whose partial result is reduce-scattered, chunked";
  let description = [{
    `reduce_scatter(linear(input, weight), dim) + bias`: the output of a
    row-parallel linear is partial over the axis; it is summed and scattered
    along `dim` in `chunks` pieces so the GEMM of one piece overlaps the
    reduction of the previous. The bias is added once, after the reduction.

    ```mlir
    %y = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1
        : (tensor<512x2x768xf32, #dist.layout<@mesh, tp = S(2)>>,
           tensor<768x3072xf32, #dist.layout<@mesh, tp = S(1)>>)
        -> tensor<128x2x768xf32, #dist.layout<@mesh, tp = S(0)>>
    ```

    Input, weight and bias may each be f32, bf16 or f16: the runtime's
    GEMMs read them as stored (StoragePrecisionOpInterface) into f32
    partial sums, which are reduced in f32; the bias is widened and added
    to the f32 sum. The kernel writes the result in f32: a bf16 / f16
    result is computed in f32 and rounded once by a conversion after it
    (sp-legalize-precision).

    **Workspace**: min(`chunks`, 2) chunks of f32 partial sums of every
    rank's block (one being reduced while the next is computed): axis
    size x (rows of the result / `chunks`) x `out` f32; with a bf16 / f16
    bias also `out` f32 (the bias widened).

    **Constraints**
    - the mesh exists and has the axis;
    - `dim` is below the rank of the input and not its last dimension;
      `chunks` >= 1 and divides the result's `dim`;
    - the weight has rank 2 and its `in` features equal the input's last
      dimension; the bias, if present, has rank 1 and size `out`;
    - the result is the input's shape with the last dimension `out` and
      `dim` divided by the axis size; every tensor is f32, bf16 or f16;
    - with layouts: the result is S(dim) on the axis.
  }];
  let arguments = (ins Dist_Tensor:$input, Dist_Tensor:$weight,
                       Optional<Dist_Tensor>:$bias, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, I64Attr:$dim,
                       DefaultValuedAttr<I64Attr, "1">:$chunks,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `on` $mesh `[` $axis `]` `dim` $dim
    `chunks` $chunks (`weight_layout` $weight_layout^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Dist_AllGatherMatmulGradWeightOp
    : Dist_CollectiveOp<"all_gather_matmul_grad_weight", [Pure,
      DeclareOpInterfaceMethods<Dist_WorkspaceOpInterface>,
      DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface,
                                ["writesStoragePrecision"]>]> {
  let summary = "the weight gradients of GEMMs reading an all_gather, chunked";
  let description = [{
    `tfm.linear_grad_weight(all_gather(input, dim), dy_j)` for every `dy_j`:
    the backward of a column-parallel linear under sequence parallelism
    re-gathers the sequence shard its forward read; fused, the shard is
    gathered in `chunks` pieces and every weight gradient accumulates (in
    fp32) the contribution of one piece, the rows of the gathered input
    against the same rows of its `dy`, while the next piece is in flight.
    One gathered stream feeds all the GEMMs that read the gather (Llama's
    q, k and v projections). `weight_layout` has the meaning of
    `tfm.linear_grad_weight`'s and is shared by all of them.

    ```mlir
    %dq, %dk = dist.all_gather_matmul_grad_weight %x, %dyq, %dyk
        on @mesh["tp"] dim 0 chunks 2
        : (tensor<8x2x32xf32, #dist.layout<@mesh, tp = S(0)>>,
           tensor<16x2x16xf32, #dist.layout<@mesh, tp = S(2)>>,
           tensor<16x2x8xf32, #dist.layout<@mesh, tp = S(2)>>)
        -> (tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>,
            tensor<8x32xf32, #dist.layout<@mesh, tp = S(0)>>)
    ```

    The input and the dys may each be f32, bf16 or f16 (the dys one type):
    the input is gathered as stored and the runtime's GEMMs read both as
    stored (StoragePrecisionOpInterface), accumulating in the f32 weight
    gradients; a bf16 / f16 result is accumulated in f32 and rounded once
    by a conversion after the op (sp-legalize-precision). A bf16 / f16
    input of f32 dys and results (`storage-gemms=false`) is widened after
    the gather for f32 GEMMs, as `dist.all_gather_matmul`'s.

    **Workspace**: min(`chunks`, 2) chunks of the gathered input, as
    `dist.all_gather_matmul`'s: axis size x (rows / `chunks`) x `in`
    elements of the input's type, whatever the number of GEMMs; a widened
    input needs one more chunk of every rank in f32, as there.

    **Constraints**
    - the mesh exists and has the axis;
    - `dim` is below the rank of the input and is not its last dimension;
      `chunks` >= 1 and divides the input's `dim`;
    - at least one `dy`, and one result per `dy`;
    - every `dy` has the gathered input's shape but for its last dimension
      (its `out` features); the dys have one element type;
    - result j is `[out_j, in]` (`[in, out_j]` for `in_out`), `in` the
      input's last dimension;
    - every tensor is f32, bf16 or f16;
    - with layouts: the input is S(dim) on the axis; no `dy` is partial or
      split along `dim` on the axis.
  }];
  let arguments = (ins Dist_Tensor:$input, Variadic<Dist_Tensor>:$dys,
                       FlatSymbolRefAttr:$mesh, StrAttr:$axis, I64Attr:$dim,
                       DefaultValuedAttr<I64Attr, "1">:$chunks,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout);
  let results = (outs Variadic<Dist_Tensor>:$dweights);
  let assemblyFormat = [{
    $input `,` $dys `on` $mesh `[` $axis `]` `dim` $dim `chunks` $chunks
    (`weight_layout` $weight_layout^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

#endif // SEQPAR_DIALECT_DIST_IR_DISTFUSEDOPS_TD
