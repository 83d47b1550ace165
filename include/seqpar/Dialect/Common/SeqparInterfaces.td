//===- SeqparInterfaces.td - interfaces for tfm and dist ---*- tablegen -*-===//
//
// Op interfaces that seqpar/Dialect/Common/StoragePrecision.h (included by
// both dialects) queries, so that neither dialect includes the other's.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_COMMON_SEQPARINTERFACES_TD
#define SEQPAR_DIALECT_COMMON_SEQPARINTERFACES_TD

include "mlir/IR/OpBase.td"

// A reduction whose runtime call can add bf16 tensors as they are (pairs
// added in f32, each sum rounded to bf16: half the bytes of f32 on the
// wire), where every other reduction computes in f32
// (sp-legalize-precision; seqpar/Dialect/Common/StoragePrecision.h).
def Seqpar_Bf16ReductionOpInterface : OpInterface<"Bf16ReductionOpInterface"> {
  let cppNamespace = "::seqpar";
  let methods = [
    InterfaceMethod<[{
      Whether the runtime reduces this op's tensors in bf16 as they are:
      every tensor operand is bf16 and the reduction is one the runtime
      supports in bf16 (a sum).
    }], "bool", "reducesNativelyInBf16">,
  ];
}

#endif // SEQPAR_DIALECT_COMMON_SEQPARINTERFACES_TD
