//===- SeqparEnums.td - enums shared by tfm and dist -------*- tablegen -*-===//
//
// Included by both dialects' ODS, so neither includes the other's.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_COMMON_SEQPARENUMS_TD
#define SEQPAR_DIALECT_COMMON_SEQPARENUMS_TD

include "mlir/IR/EnumAttr.td"

// How a linear layer's weight is stored: tfm.linear, its gradients and the
// fused collective GEMMs of dist all take it.
def Seqpar_WeightLayout : I32EnumAttr<"WeightLayout",
    "storage order of a linear weight", [
    // torch.nn.Linear: [out_features, in_features].
    I32EnumAttrCase<"out_in", 0>,
    // GPT-2's Conv1D: [in_features, out_features].
    I32EnumAttrCase<"in_out", 1>]> {
  let cppNamespace = "::seqpar";
}

// A GELU's form: tfm.gelu, its gradient, the fused GEMMs' epilogues of tfm
// and dist.all_gather_matmul_gelu.
def Seqpar_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation used by gelu", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::seqpar";
}

#endif // SEQPAR_DIALECT_COMMON_SEQPARENUMS_TD
