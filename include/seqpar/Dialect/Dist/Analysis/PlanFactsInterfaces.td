//===- PlanFactsInterfaces.td - in place, grad transfer --*- tablegen -*-===//
//
// Two facts about each tfm and dist op that the analyses read instead of
// matching op classes: whether a result may be written over one of its
// operands (the buffer plan), and how a gradient contribution passes
// through it (the gradient accounting proof). Every tfm and dist op
// implements both through external models (PlanFacts.cpp), the ops with
// nothing to say included, so an op added without a declaration fails
// unittests/Dialect/Dist/OpInterfacesTest.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_ANALYSIS_PLANFACTSINTERFACES_TD
#define SEQPAR_DIALECT_DIST_ANALYSIS_PLANFACTSINTERFACES_TD

include "mlir/IR/OpBase.td"

def Seqpar_InPlaceOpInterface : OpInterface<"InPlaceOpInterface"> {
  let cppNamespace = "::seqpar::dist";
  let methods = [
    InterfaceMethod<[{
      The operand whose buffer result `result` may be written into (its
      kernel reads that operand element by element before writing the same
      element), or std::nullopt. The buffer plan reuses the operand's slot
      when it dies here and the two have the same size.
    }], "std::optional<unsigned>", "getInPlaceOperand",
      (ins "unsigned":$result)>,
  ];
}

def Seqpar_GradTransferOpInterface : OpInterface<"GradTransferOpInterface"> {
  let cppNamespace = "::seqpar::dist";
  let methods = [
    InterfaceMethod<[{
      How the gradient contributions an operand holds reach the results
      (GradTransfer): kept as they are (one operand, one result: a convert,
      a scale, a change of layout), summed (the results hold the operands'
      sum), reduced over a mesh axis (each operand into its result), or
      opaque: the results are no gradient the proof can follow.
    }], "::seqpar::dist::GradTransfer", "getGradTransfer">,
  ];
}

#endif // SEQPAR_DIALECT_DIST_ANALYSIS_PLANFACTSINTERFACES_TD
