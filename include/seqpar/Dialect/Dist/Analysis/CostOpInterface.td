//===- CostOpInterface.td - what an op's kernel costs ------*- tablegen -*-===//
//
// The cost of one rank's kernel for an op, for the FLOPs a program reports
// (MFU), sp-report and the planner (Flops.h). Every tfm and dist op
// implements it through external models (Flops.cpp), the ops that perform no
// counted FLOPs included: an op without one is an error where its FLOPs are
// asked for, never a silent 0 (unittests/Dialect/Dist/CostModelTest.cpp
// enumerates every op).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_ANALYSIS_COSTOPINTERFACE_TD
#define SEQPAR_DIALECT_DIST_ANALYSIS_COSTOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def Seqpar_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::seqpar::dist";
  let methods = [
    InterfaceMethod<[{
      The FLOPs of one rank's kernel for this op, counted as Korthikanti et
      al. 2022 count them (GEMMs and the attention core; 0 for the ops
      that are a few FLOPs per element), or std::nullopt when the count
      overflows int64 or cannot be known (a collective whose mesh is not
      in scope).
    }], "std::optional<int64_t>", "getFlops">,
    InterfaceMethod<[{
      Which calibrated rate the op's FLOPs run at (sp-plan): a GEMM's, the
      attention core's, or none (no counted FLOPs).
    }], "::seqpar::dist::CostKind", "getCostKind">,
  ];
}

#endif // SEQPAR_DIALECT_DIST_ANALYSIS_COSTOPINTERFACE_TD
