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

include "seqpar/Dialect/Dist/IR/DistFusedOps.td"

#endif // SEQPAR_DIALECT_DIST_IR_DISTOPS_TD
