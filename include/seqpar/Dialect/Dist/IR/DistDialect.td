//===- DistDialect.td - the distribution dialect -----------*- tablegen -*-===//

#ifndef SEQPAR_DIALECT_DIST_IR_DISTDIALECT_TD
#define SEQPAR_DIALECT_DIST_IR_DISTDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Dist_Dialect : Dialect {
  let name = "dist";
  let cppNamespace = "::seqpar::dist";
  let summary = "Meshes, layouts and collectives of an SPMD program";
  let description = [{
    `dist` describes how values are spread over a device mesh. A `dist.mesh`
    names its axes (dp, tp, cp, pp, ...) and their sizes. A value's layout
    (`#dist.layout`, carried as the encoding of its tensor type, whose shape
    is then the per-rank local shape) says per mesh axis whether the value is
    replicated (R, the default), split along a tensor dimension (S(d)) or a
    partial sum (P). Collectives convert between layouts: all_gather
    S(d)->R, reduce_scatter P->S(d), all_reduce P->R, local_slice R->S(d),
    all_to_all S(a)->S(b); the fused all_gather_matmul and
    matmul_reduce_scatter overlap communication with the GEMM.

    A tensor type without a layout is replicated on every axis. Collectives
    check their layout transition whenever their operand or result carries a
    layout; IR with no layouts at all (hand-written, before partitioning) is
    only shape-checked.
  }];
  let useDefaultAttributePrinterParser = 1;
  let discardableAttrs = (ins
    // On each op whose results the arena holds (sp-plan-buffers): the byte
    // offset of each result.
    "::mlir::DenseI64ArrayAttr":$arena_offsets,
    // On the planned function: the arena's size and the most bytes live at
    // once.
    "::mlir::IntegerAttr":$arena_bytes,
    "::mlir::IntegerAttr":$arena_max_live,
    // On each op with a workspace (WorkspaceOpInterface, a non-zero
    // getWorkspaceBytes()) in a planned function: the workspace's byte
    // offset in the arena.
    "::mlir::IntegerAttr":$workspace_offset
  );
  let hasOperationAttrVerify = 1;
}

def Dist_ReductionKind : I32EnumAttr<"ReductionKind",
    "how the contributions of a partial value combine", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"mean", 3>]> {
  let cppNamespace = "::seqpar::dist";
}

// What a mesh axis is for. Passes find the axis they work on by its role
// (MeshOp::getAxisWithRole), never by its name.
def Dist_AxisRole : I32EnumAttr<"AxisRole", "what a mesh axis parallelises", [
    // Replicas of the model, each on its own slice of the batch.
    I32EnumAttrCase<"data", 0>,
    // Megatron tensor parallelism (and sequence parallelism inside it).
    I32EnumAttrCase<"tensor", 1>,
    // Context parallelism: the sequence split through attention.
    I32EnumAttrCase<"context", 2>,
    // Pipeline stages.
    I32EnumAttrCase<"pipeline", 3>]> {
  let cppNamespace = "::seqpar::dist";
}

#endif // SEQPAR_DIALECT_DIST_IR_DISTDIALECT_TD
