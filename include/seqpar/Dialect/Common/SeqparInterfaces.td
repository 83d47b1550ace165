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

// An op whose runtime kernel reads some of its operands, or writes some of
// its results, in their stored element types (f32, bf16 or f16, each its
// own): a GEMM of mixed precision widens its operands exactly, accumulates
// in f32 and rounds its result once. sp-legalize-precision makes no f32
// copy of such an operand and no f32 temporary of such a result, and
// convert-sp-to-runtime passes their element types to the kernel
// (seqpar/Dialect/Common/StoragePrecision.h). By default every operand and
// result is.
def Seqpar_StoragePrecisionOpInterface
    : OpInterface<"StoragePrecisionOpInterface"> {
  let cppNamespace = "::seqpar";
  let methods = [
    InterfaceMethod<[{
      Whether the runtime kernel reads tensor operand `index` as stored.
    }], "bool", "readsStoragePrecision", (ins "unsigned":$index), [{}],
    [{ return true; }]>,
    InterfaceMethod<[{
      Whether the runtime kernel writes result `index` in its own element
      type, rounded once.
    }], "bool", "writesStoragePrecision", (ins "unsigned":$index), [{}],
    [{ return true; }]>,
  ];
}

#endif // SEQPAR_DIALECT_COMMON_SEQPARINTERFACES_TD
