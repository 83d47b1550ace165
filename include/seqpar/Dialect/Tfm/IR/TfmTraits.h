//===- TfmTraits.h - marker traits of tfm ops -------------------*- C++ -*-===//
//
// The C++ side of the marker traits declared in TfmInterfaces.td.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFMTRAITS_H
#define SEQPAR_DIALECT_TFM_IR_TFMTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace seqpar::OpTrait {
/// A normalisation (layer_norm, rms_norm): sp-recompute's selective policy
/// recomputes its output from its input, which its backward keeps anyway.
template <typename ConcreteOp>
class Normalization
    : public mlir::OpTrait::TraitBase<ConcreteOp, Normalization> {};

/// An activation (gelu, silu, relu): sp-recompute's selective policy
/// recomputes its output (and a GLU product of it) from its input, which its
/// backward keeps anyway.
template <typename ConcreteOp>
class Activation : public mlir::OpTrait::TraitBase<ConcreteOp, Activation> {};
} // namespace seqpar::OpTrait

#endif // SEQPAR_DIALECT_TFM_IR_TFMTRAITS_H
