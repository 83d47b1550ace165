//===- SeqparTraits.td - traits shared by tfm and dist -----*- tablegen -*-===//
//
// Included by both dialects' ODS, so neither includes the other's.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_COMMON_SEQPARTRAITS_TD
#define SEQPAR_DIALECT_COMMON_SEQPARTRAITS_TD

include "mlir/IR/OpBase.td"

// Every operand and result tensor type of the op has an element count and a
// byte size that fit in int64, checked before the op's own verifier
// (seqpar/Dialect/Tfm/IR/TensorSizes.h). Every tfm and dist op has it.
def Seqpar_CheckedTensorSizes : NativeOpTrait<"CheckedTensorSizes"> {
  let cppNamespace = "::seqpar::OpTrait";
}

// The op moves bytes without arithmetic (a copy, a slice, a gather, an
// exchange, a transfer, a parameter read, the conversion itself): its runtime
// call takes the element size, so it runs on bf16/f16 storage as is, where
// every other op computes in f32 (sp-legalize-precision;
// seqpar/Dialect/Common/StoragePrecision.h).
def Seqpar_MovesBytes : NativeOpTrait<"MovesBytes"> {
  let cppNamespace = "::seqpar::OpTrait";
}

// The op maps elements one by one, every tensor of one element type
// (SameOperandsAndResultType), and its runtime kernel has a typed variant
// that reads and writes bf16/f16 as stored, computing each element in f32
// and rounding it once: the same numbers as the f32 kernel between
// conversions, without the f32 copies (sp-legalize-precision keeps it so
// unless a tensor of it is partial; seqpar/Dialect/Common/StoragePrecision.h).
def Seqpar_MapsElementsAsStored : NativeOpTrait<"MapsElementsAsStored"> {
  let cppNamespace = "::seqpar::OpTrait";
}

// An op that reduces rows (a norm, the cross-entropy) or its backward, or
// sums them (the bias gradient), whose
// runtime kernel reads and writes its tensors as stored
// (StoragePrecisionOpInterface), computing each row as the f32 kernel does:
// sp-legalize-precision keeps it so unless its `storage-rows` option is off
// (seqpar/Dialect/Common/StoragePrecision.h).
def Seqpar_ReducesRowsAsStored : NativeOpTrait<"ReducesRowsAsStored"> {
  let cppNamespace = "::seqpar::OpTrait";
}

// Attention or its backward, whose runtime kernel reads and writes its
// tensors as stored (StoragePrecisionOpInterface), computing as the f32
// kernel does and rounding each result once: sp-legalize-precision keeps it
// so, all its tensors or none, unless its `storage-attention` option is off,
// a tensor of it is partial or its sequence is split in zigzag order
// (seqpar/Dialect/Common/StoragePrecision.h).
def Seqpar_AttendsAsStored : NativeOpTrait<"AttendsAsStored"> {
  let cppNamespace = "::seqpar::OpTrait";
}

#endif // SEQPAR_DIALECT_COMMON_SEQPARTRAITS_TD
