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

#endif // SEQPAR_DIALECT_DIST_IR_DISTINTERFACES_TD
