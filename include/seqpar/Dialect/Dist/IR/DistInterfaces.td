//===- DistInterfaces.td - collective op interface ---------*- tablegen -*-===//

#ifndef SEQPAR_DIALECT_DIST_IR_DISTINTERFACES_TD
#define SEQPAR_DIALECT_DIST_IR_DISTINTERFACES_TD

include "mlir/IR/OpBase.td"

def Dist_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::seqpar::dist";
  let description = [{
    Every op that communicates along one axis of a `dist.mesh`. The mesh and
    axis are checked once for all collectives (the mesh exists, it has the
    axis, every layout in the op's types names only axes of the mesh); then
    the op checks its shapes and layouts against the axis size.
  }];
  let methods = [
    InterfaceMethod<"The mesh the op communicates on.",
      "::mlir::FlatSymbolRefAttr", "getMeshRef", (ins), [{
        return $_op.getMeshAttr();
      }]>,
    InterfaceMethod<"The mesh axis whose ranks take part.",
      "::llvm::StringRef", "getMeshAxis", (ins), [{
        return $_op.getAxis();
      }]>,
    InterfaceMethod<[{
        Checks shapes and layouts given the number of ranks along the axis.
      }], "::mlir::LogicalResult", "verifyWithAxisSize",
      (ins "int64_t":$axisSize)>,
    InterfaceMethod<[{
        Bytes each rank sends in a ring implementation on an axis of
        `axisSize` ranks (element types as in the IR), or std::nullopt when
        the count overflows int64.
      }], "std::optional<int64_t>", "getRingBytesSent",
      (ins "int64_t":$axisSize)>,
  ];
}

def Dist_WorkspaceOpInterface : OpInterface<"WorkspaceOpInterface"> {
  let cppNamespace = "::seqpar::dist";
  let description = [{
    An op whose runtime kernel needs device memory beyond its operands and
    results: the fused collective GEMMs' chunk buffers, the coalesced
    collectives' buckets, the pack / unpack buffers of a collective that
    moves strided blocks. sp-plan-buffers places the workspace in the arena,
    live only at the op, and records its offset as `dist.workspace_offset`;
    the lowering passes `arena + offset` and the byte count to the runtime,
    which checks that it is at least what the kernel computes for itself.
  }];
  let methods = [
    InterfaceMethod<[{
        The bytes the op's runtime kernel uses beyond its operands and
        results (0: none), from the op's types, dimensions and chunks; the
        mesh axis size is the ratio the verified types fix. Saturates at
        INT64_MAX where the count overflows (the planner cannot place it).
      }], "int64_t", "getWorkspaceBytes", (ins)>,
  ];
}

#endif // SEQPAR_DIALECT_DIST_IR_DISTINTERFACES_TD
