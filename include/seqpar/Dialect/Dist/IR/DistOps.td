//===- DistOps.td - dist operations ------------------------*- tablegen -*-===//

#ifndef SEQPAR_DIALECT_DIST_IR_DISTOPS_TD
#define SEQPAR_DIALECT_DIST_IR_DISTOPS_TD

include "seqpar/Dialect/Dist/IR/DistAttrs.td"
include "seqpar/Dialect/Dist/IR/DistInterfaces.td"
include "seqpar/Dialect/Common/SeqparEnums.td"
include "seqpar/Dialect/Common/SeqparInterfaces.td"
include "seqpar/Dialect/Common/SeqparTraits.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Dist_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dist_Dialect, mnemonic,
         !listconcat([Seqpar_CheckedTensorSizes], traits)>;

def Dist_Tensor : RankedTensorOf<[F32, BF16, F16, I32, I64]>;

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

def Dist_MeshOp : Dist_Op<"mesh", [Symbol]> {
  let summary = "a named device mesh with named axes";
  let description = [{
    Declares a logical mesh of `prod(sizes)` ranks. Axes are listed outermost
    first; the last axis varies fastest over consecutive ranks, so
    `["dp"=2, "tp"=4]` puts the 4 tensor-parallel ranks of a replica next to
    each other, as Megatron-LM does.

    Each axis may carry a role (`data`, `tensor`, `context`, `pipeline`),
    listed after the axes in the same order: passes find the axis they work
    on by its role, never by its name, so the names are the user's choice.
    An axis without a role (a mesh written without `roles`) is one no pass
    assigns work to.

    ```mlir
    dist.mesh @mesh ["dp" = 2, "tp" = 4] roles [data, tensor]
    ```

    **Constraints**
    - at least one axis;
    - axis names are non-empty and unique;
    - axis sizes are >= 1 and their product (the number of ranks) fits in
      int64;
    - `roles`, if present, has one role per axis and each role at most once.

    Like every tfm and dist op, the collectives check that each tensor type
    they read or write has an element count and a byte size within int64.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axis_names,
                       DenseI64ArrayAttr:$axis_sizes,
                       OptionalAttr<DenseI32ArrayAttr>:$axis_roles);
  let assemblyFormat = [{
    $sym_name custom<MeshAxes>($axis_names, $axis_sizes, $axis_roles)
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The size of `axis`, or std::nullopt if the mesh has no such axis.
    std::optional<int64_t> getAxisSize(::llvm::StringRef axis);
    /// The number of ranks of the whole mesh.
    int64_t getNumRanks();
    /// The role of `axis`, or std::nullopt if it has none (or no such axis).
    std::optional<AxisRole> getAxisRole(::llvm::StringRef axis);
    /// The name of the axis with `role`, or std::nullopt if none has it.
    std::optional<::llvm::StringRef> getAxisWithRole(AxisRole role);
  }];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

class Dist_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Dist_Op<mnemonic, !listconcat([
        DeclareOpInterfaceMethods<Dist_CollectiveOpInterface,
                                  ["verifyWithAxisSize",
                                   "getRingBytesSent"]>,
        DeclareOpInterfaceMethods<SymbolUserOpInterface>], traits)> {
  let extraClassDefinition = [{
    ::mlir::LogicalResult
    $cppClass::verifySymbolUses(::mlir::SymbolTableCollection &symbolTable) {
      return ::seqpar::dist::verifyCollectiveSymbolUses(*this, symbolTable);
    }
  }];
}

def Dist_AllGatherOp : Dist_CollectiveOp<"all_gather", [Pure,
    Seqpar_MovesBytes,
    DeclareOpInterfaceMethods<Dist_WorkspaceOpInterface>]> {
  let summary = "concatenates the shards of every rank along a dimension";
  let description = [{
    Every rank of the axis contributes its local tensor; the result is their
    concatenation along `dim`, in rank order, on every rank: S(dim) -> R.

    ```mlir
    %y = dist.all_gather %x on @mesh["tp"] dim 0
        : tensor<128x2x768xf32, #dist.layout<@mesh, tp = S(0)>>
        -> tensor<512x2x768xf32>
    ```

    **Workspace** (WorkspaceOpInterface, placed in the arena by
    sp-plan-buffers): none when the dimensions before `dim` are all 1 (every
    rank's block is contiguous in the result); otherwise the result's bytes,
    into which the blocks are received before being unpacked.

    **Constraints**
    - the mesh exists and has the axis;
    - `dim` is below the rank;
    - the result's `dim` is the operand's times the axis size; every other
      dimension and the element type are unchanged;
    - with layouts: the operand is S(dim) on the axis, the result R, other
      axes unchanged.

    **Canonicalization** (lib/Dialect/Dist/IR/DistFolds.cpp): folds to its
    operand on an axis of size 1 when the types are identical, and
    `all_gather(local_slice(x))` on the same axis and dim to `x`;
    `all_gather(reduce_scatter(x))` on the same dim, the shard used only
    there, becomes `all_reduce sum(x)`; `all_gather(all_to_all(x, split d,
    concat c), d)` becomes `all_gather(x, c)`. With layouts a collective
    always changes the layout of its axis, so on an axis of size 1 it is
    kept: the dialect has no layout cast.
  }];
  let arguments = (ins Dist_Tensor:$input, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, I64Attr:$dim);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `[` $axis `]` `dim` $dim attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Dist_ReduceScatterOp : Dist_CollectiveOp<"reduce_scatter", [Pure,
    DeclareOpInterfaceMethods<Dist_WorkspaceOpInterface>]> {
  let summary = "sums partial values and leaves each rank one shard";
  let description = [{
    Sums the operands of every rank of the axis and splits the sum along
    `dim`; rank i keeps the i-th block: P -> S(dim).

    ```mlir
    %y = dist.reduce_scatter %x on @mesh["tp"] dim 0
        : tensor<512x2x768xf32, #dist.layout<@mesh, tp = P>>
        -> tensor<128x2x768xf32, #dist.layout<@mesh, tp = S(0)>>
    ```

    **Workspace**: none when the dimensions before `dim` are all 1;
    otherwise the operand's bytes, into which each rank's strided block is
    packed before the reduction.

    **Constraints**
    - the mesh exists and has the axis;
    - `dim` is below the rank;
    - the operand's `dim` is the result's times the axis size; every other
      dimension and the element type are unchanged;
    - with layouts: the operand is P on the axis, the result S(dim), other
      axes unchanged.

    **Canonicalization**: folds to its operand on an axis of size 1 when the
    types are identical.
  }];
  let arguments = (ins Dist_Tensor:$input, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, I64Attr:$dim);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `[` $axis `]` `dim` $dim attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasFolder = 1;
}

def Dist_AllReduceOp : Dist_CollectiveOp<"all_reduce", [Pure]> {
  let summary = "combines the contributions of every rank on every rank";
  let description = [{
    Reduces the operands of every rank of the axis with `kind` (sum, max,
    min, mean) and returns the result on every rank: P -> R. (For max and min the
    P operand holds each rank's candidate, e.g. the local maximum of a
    vocabulary shard in the vocab-parallel cross-entropy.)

    ```mlir
    %y = dist.all_reduce %x on @mesh["tp"] sum
        : tensor<512x2x768xf32, #dist.layout<@mesh, tp = P>> -> tensor<512x2x768xf32>
    ```

    **Constraints**
    - the mesh exists and has the axis;
    - operand and result have the same shape and element type;
    - with layouts: the operand is P on the axis, the result R, other axes
      unchanged.

    **Canonicalization**: folds to its operand on an axis of size 1 when the
    types are identical (any kind).
  }];
  let arguments = (ins Dist_Tensor:$input, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, Dist_ReductionKind:$kind);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `[` $axis `]` $kind attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasFolder = 1;
}

def Dist_AllReduceCoalescedOp
    : Dist_CollectiveOp<"all_reduce_coalesced", [Pure,
      DeclareOpInterfaceMethods<Dist_WorkspaceOpInterface>,
      DeclareOpInterfaceMethods<Seqpar_Bf16ReductionOpInterface>]> {
  let summary = "all-reduces several tensors in one collective";
  let description = [{
    `dist.all_reduce` of every operand, packed into one buffer so that one
    collective moves them all (gradient buckets): each operand P -> R.

    ```mlir
    %a, %b = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum
        : (tensor<32xf32, #dist.layout<@mesh, dp = P>>,
           tensor<8x4xf32, #dist.layout<@mesh, dp = P>>)
        -> (tensor<32xf32>, tensor<8x4xf32>)
    ```

    **Workspace**: the operands' bytes together (the bucket reduced in
    place); none for a single operand, reduced straight into its result.

    **`async`** (sp-overlap-grad-reductions): the op only starts the
    reduction, which overlaps the ops after it; it completes before the
    first op that reads one of its results (its wait point), where the
    results are written. The operands are packed into the workspace when it
    starts (so they may die there, whatever their number), and the
    workspace is live until the wait point.

    **Element types**: a sum whose operands are all bf16 is reduced in
    bf16 by the runtime (each addition in f32, rounded to bf16, nearest
    even: every partial sum is a bf16 value; sp-sync-grads'
    grad-reduce-dtype=bf16); any other bf16 / f16 op computes in f32
    (sp-legalize-precision).

    **Constraints**
    - the mesh exists and has the axis;
    - at least one operand, and as many results as operands;
    - each result has its operand's shape and element type;
    - with layouts: each operand is P on the axis, its result R, other axes
      unchanged;
    - `async` only with `sum`, and with a result that some op reads.
  }];
  let arguments = (ins Variadic<Dist_Tensor>:$inputs, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, Dist_ReductionKind:$kind,
                       UnitAttr:$async);
  let results = (outs Variadic<Dist_Tensor>:$results);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$results, "::mlir::ValueRange":$inputs,
                   "::mlir::FlatSymbolRefAttr":$mesh, "::mlir::StringAttr":$axis,
                   "ReductionKindAttr":$kind), [{
      build($_builder, $_state, results, inputs, mesh, axis, kind,
            ::mlir::UnitAttr());
    }]>
  ];
  let assemblyFormat = [{
    $inputs `on` $mesh `[` $axis `]` $kind (`async` $async^)? attr-dict `:`
    functional-type($inputs, $results)
  }];
}

def Dist_ReduceScatterCoalescedOp
    : Dist_CollectiveOp<"reduce_scatter_coalesced", [Pure,
      DeclareOpInterfaceMethods<Dist_WorkspaceOpInterface>,
      DeclareOpInterfaceMethods<Seqpar_Bf16ReductionOpInterface>]> {
  let summary = "reduce-scatters several tensors along dim 0 in one collective";
  let description = [{
    `dist.reduce_scatter` of every operand along its first dimension,
    packed so that one collective moves them all (the gradient buckets of a
    distributed optimizer, ZeRO-1): each operand P -> S(0).

    ```mlir
    %a, %b = dist.reduce_scatter_coalesced %x, %y on @mesh["dp"]
        : (tensor<32xf32, #dist.layout<@mesh, dp = P>>,
           tensor<8x4xf32, #dist.layout<@mesh, dp = P>>)
        -> (tensor<16xf32, #dist.layout<@mesh, dp = S(0)>>,
            tensor<4x4xf32, #dist.layout<@mesh, dp = S(0)>>)
    ```

    **Workspace**: the operands' bytes together (rank r's blocks of every
    operand packed in order) plus one axis-size-th of them (this rank's
    reduced blocks, unpacked into the results); none for a single operand.

    **`async`** (sp-overlap-grad-reductions): as `dist.all_reduce_coalesced`'s,
    the op starts the reduction and it completes before the first op that
    reads one of its results; the workspace (also for a single operand) is
    live until then.

    **Element types**: operands that are all bf16 are reduced in bf16 by
    the runtime (each addition in f32, rounded to bf16, nearest even: every
    partial sum is a bf16 value; sp-sync-grads' grad-reduce-dtype=bf16);
    any other bf16 / f16 op computes in f32 (sp-legalize-precision).

    **Constraints**
    - the mesh exists and has the axis;
    - at least one operand, and as many results as operands;
    - each result is its operand with the first dimension divided by the
      axis size (which must divide it);
    - with layouts: each operand is P on the axis, its result S(0), other
      axes unchanged;
    - `async` only with a result that some op reads.
  }];
  let arguments = (ins Variadic<Dist_Tensor>:$inputs, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, UnitAttr:$async);
  let results = (outs Variadic<Dist_Tensor>:$results);
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$results, "::mlir::ValueRange":$inputs,
                   "::mlir::FlatSymbolRefAttr":$mesh,
                   "::mlir::StringAttr":$axis), [{
      build($_builder, $_state, results, inputs, mesh, axis,
            ::mlir::UnitAttr());
    }]>
  ];
  let assemblyFormat = [{
    $inputs `on` $mesh `[` $axis `]` (`async` $async^)? attr-dict `:`
    functional-type($inputs, $results)
  }];
}

def Dist_AllGatherParamOp : Dist_CollectiveOp<"all_gather_param", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "all-gathers the updated slices of a parameter in place";
  let description = [{
    With a distributed optimizer (ZeRO-1) each rank of the axis updates one
    slice of the parameter's first dimension; this op gathers every rank's
    slice so that all hold the whole (local) parameter again. The type is
    the region gathered: the parameter as this function reads it, or, with
    `within`, this rank's block of it along the first dimension over that
    outer axis (ZeRO-1 over the data and context axes slices the parameter
    over both, nested: the block of the data axis is sliced again over the
    context axis; the slices are gathered within each block first, then the
    blocks).

    ```mlir
    dist.all_gather_param @w on @mesh["dp"] : tensor<64x32xf32>
    // dp = 2, cp = 2: this rank's dp block (rows 32 * coord(dp) + [0, 32)),
    // then the whole parameter.
    dist.all_gather_param @w on @mesh["cp"] within "dp" : tensor<32x32xf32>
    dist.all_gather_param @w on @mesh["dp"] : tensor<64x32xf32>
    ```

    **Constraints**
    - the mesh exists and has the axis;
    - the symbol names a `tfm.param`; the type's first dimension is
      divisible by the axis size;
    - `within`, when given, is another axis of the mesh.
  }];
  let arguments = (ins FlatSymbolRefAttr:$param, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, OptionalAttr<StrAttr>:$within,
                       TypeAttrOf<Dist_Tensor>:$type);
  let assemblyFormat = [{
    $param `on` $mesh `[` $axis `]` (`within` $within^)? attr-dict `:` $type
  }];
}

def Dist_AllToAllOp : Dist_CollectiveOp<"all_to_all", [Pure,
    Seqpar_MovesBytes,
    DeclareOpInterfaceMethods<Dist_WorkspaceOpInterface>]> {
  let summary = "re-splits a tensor from one dimension to another";
  let description = [{
    Each rank splits its local tensor along `split_dim` into axis-size
    blocks, sends block j to rank j, and concatenates what it receives along
    `concat_dim`: S(concat_dim) -> S(split_dim) (the Ulysses exchange from
    sequence shards to head shards).

    ```mlir
    %y = dist.all_to_all %x on @mesh["cp"] split 2 concat 0
        : tensor<256x2x1024xf32> -> tensor<512x2x512xf32>
    ```

    **Workspace**: the operand's bytes when the dimensions before
    `split_dim` are not all 1 (the blocks sent are packed), plus as many when
    the result's dimensions before `concat_dim` are not all 1 (the blocks
    received are unpacked).

    **Constraints**
    - the mesh exists and has the axis;
    - `split_dim` and `concat_dim` are different and below the rank;
    - the result's `split_dim` is the operand's divided by the axis size, its
      `concat_dim` the operand's times the axis size, every other dimension and
      the element type unchanged;
    - with layouts: the operand is S(concat_dim) on the axis, the result
      S(split_dim), other axes unchanged.

    **Canonicalization**: folds to its operand on an axis of size 1 when the
    types are identical, and `all_to_all(all_to_all(x))` that splits back
    the dimension the first concatenated to `x`;
    `all_to_all(local_slice(x, c), split d, concat c)` becomes
    `local_slice(x, d)`.
  }];
  let arguments = (ins Dist_Tensor:$input, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, I64Attr:$split_dim, I64Attr:$concat_dim);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `[` $axis `]` `split` $split_dim `concat` $concat_dim
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Dist_LocalSliceOp : Dist_CollectiveOp<"local_slice", [Pure,
    Seqpar_MovesBytes]> {
  let summary = "keeps this rank's block of a replicated value, no communication";
  let description = [{
    Rank i of the axis keeps block i of `dim`: R -> S(dim). It sends nothing;
    it is a collective only in that its result depends on the rank.

    ```mlir
    %y = dist.local_slice %x on @mesh["tp"] dim 0
        : tensor<512x2x768xf32> -> tensor<128x2x768xf32, #dist.layout<@mesh, tp = S(0)>>
    ```

    **Constraints**
    - the mesh exists and has the axis;
    - `dim` is below the rank;
    - the operand's `dim` is the result's times the axis size; every other
      dimension and the element type are unchanged;
    - with layouts: the operand is R on the axis, the result S(dim), other
      axes unchanged.

    **Canonicalization**: folds to its operand on an axis of size 1 when the
    types are identical, and `local_slice(all_gather(x))` on the same axis
    and dim to `x`; `local_slice(all_reduce sum(x))`, the slice the sum's
    only user, becomes `reduce_scatter(x)`; `local_slice(all_gather(x, c),
    d)` with d != c, the gather used only there, becomes `all_to_all(x,
    split d, concat c)`.
  }];
  let arguments = (ins Dist_Tensor:$input, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, I64Attr:$dim);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `[` $axis `]` `dim` $dim attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Dist_SendOp : Dist_CollectiveOp<"send", [Seqpar_MovesBytes]> {
  let summary = "sends a tensor to a neighbour along a mesh axis";
  let description = [{
    Sends the operand to the rank `offset` steps further along the axis
    (wrapping around), e.g. the next pipeline stage. Each send is matched by
    a `dist.recv` with the opposite offset on the receiving rank.

    ```mlir
    dist.send %x on @mesh["pp"] offset 1 : tensor<128x2x768xf32>
    ```

    **Constraints**
    - the mesh exists and has the axis;
    - `offset` is non-zero and its magnitude below the axis size.
  }];
  let arguments = (ins Dist_Tensor:$input, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, I64Attr:$offset);
  let assemblyFormat = [{
    $input `on` $mesh `[` $axis `]` `offset` $offset attr-dict `:` type($input)
  }];
}

def Dist_RecvOp : Dist_CollectiveOp<"recv", [Seqpar_MovesBytes]> {
  let summary = "receives a tensor from a neighbour along a mesh axis";
  let description = [{
    Receives a tensor of the result type from the rank `offset` steps along
    the axis (wrapping around).

    ```mlir
    %y = dist.recv on @mesh["pp"] offset -1 : tensor<128x2x768xf32>
    ```

    **Constraints**
    - the mesh exists and has the axis;
    - `offset` is non-zero and its magnitude below the axis size.
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, StrAttr:$axis,
                       I64Attr:$offset);
  let results = (outs Dist_Tensor:$result);
  let assemblyFormat = [{
    `on` $mesh `[` $axis `]` `offset` $offset attr-dict `:` type($result)
  }];
}

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

#endif // SEQPAR_DIALECT_DIST_IR_DISTOPS_TD
