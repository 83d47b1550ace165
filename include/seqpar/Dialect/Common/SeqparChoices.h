//===- SeqparChoices.h - the compiler's choice options ----------*- C++ -*-===//
//
// The enums of SeqparChoices.td and, for each, the values an option of it
// accepts (its cases by name, with a description), declared once for the
// passes' options (Passes.td), sp-compile's pipelines (PipelineOptions) and
// sp-compile's flags. The enums' functions (stringify..., symbolize...) are
// defined in lib/Dialect/Tfm/IR/TfmDialect.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_COMMON_SEQPARCHOICES_H
#define SEQPAR_DIALECT_COMMON_SEQPARCHOICES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <optional>

#include "seqpar/Dialect/Common/SeqparChoices.h.inc"

namespace seqpar {

/// Case `e` of a choice enum as an option value: its name, its description.
template <typename E>
llvm::cl::OptionEnumValue choice(E e, llvm::StringRef description) {
  return {stringifyEnum(e), static_cast<int>(e), description};
}

inline llvm::cl::ValuesClass optimizerKindValues() {
  return llvm::cl::values(
      choice(OptimizerKind::adamw, "AdamW (decoupled weight decay)"),
      choice(OptimizerKind::sgd, "SGD (weight decay as L2)"));
}

inline llvm::cl::ValuesClass recomputePolicyValues() {
  return llvm::cl::values(
      choice(RecomputePolicy::none, "keep every activation"),
      choice(RecomputePolicy::selective, "recompute norms and activations"),
      choice(RecomputePolicy::full, "recompute each layer from its input"));
}

inline llvm::cl::ValuesClass paperRecomputeValues() {
  return llvm::cl::values(
      choice(PaperRecompute::step, "the step's own policy"),
      choice(PaperRecompute::none, "keep every activation"),
      choice(PaperRecompute::selective, "the paper's selective recompute"),
      choice(PaperRecompute::full, "the paper's full recompute"));
}

inline llvm::cl::ValuesClass precisionValues() {
  return llvm::cl::values(
      choice(Precision::imported, "as imported"),
      choice(Precision::bf16, "bf16 storage, f32 arithmetic"),
      choice(Precision::fp16, "fp16 storage, f32 arithmetic, loss scaling"),
      choice(Precision::fp32, "fp32"));
}

inline llvm::cl::ValuesClass gradReduceDtypeValues() {
  return llvm::cl::values(
      choice(GradReduceDtype::f32, "reduce gradients in f32"),
      choice(GradReduceDtype::bf16,
             "convert each bucket to bf16, reduce, convert back to f32"));
}

inline llvm::cl::ValuesClass masterWeightsValues() {
  return llvm::cl::values(
      choice(MasterWeights::sharded,
             "bf16 / f16 parameters, f32 master weights with the optimizer "
             "state (sliced under ZeRO-1)"),
      choice(MasterWeights::replicated, "f32 master weights as parameters"),
      choice(MasterWeights::automatic,
             "sharded under ZeRO-1, replicated without it"));
}

inline llvm::cl::ValuesClass cpAttentionValues() {
  return llvm::cl::values(
      choice(CpAttention::allgather, "keys and values all-gathered over cp"),
      choice(CpAttention::ring, "K/V blocks passed around the cp ring"));
}

inline llvm::cl::ValuesClass lossScalingValues() {
  return llvm::cl::values(
      choice(LossScaling::automatic, "dynamic loss scaling with fp16"),
      choice(LossScaling::on, "always"), choice(LossScaling::off, "never"));
}

} // namespace seqpar

#endif // SEQPAR_DIALECT_COMMON_SEQPARCHOICES_H
