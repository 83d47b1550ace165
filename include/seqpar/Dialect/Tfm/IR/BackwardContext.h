//===- BackwardContext.h - what autodiff gives a rule ----------*- C++ -*-===//
//
// DifferentiableOpInterface::buildBackward(BackwardContext &) is an op's
// backward: it reads the gradient of the op's results and contributes
// gradients to its operands. The context is implemented by tfm-autodiff,
// which keeps the policy (how contributions are summed, when partial ones
// are reduced, what a gradient's layout is); a rule only asks. Layouts are
// dist's, and tfm does not depend on dist: the layout-dependent types a rule
// needs are context methods.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_BACKWARDCONTEXT_H
#define SEQPAR_DIALECT_TFM_IR_BACKWARDCONTEXT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace seqpar::tfm {

class BackwardContext {
public:
  virtual ~BackwardContext();

  /// Where the backward is built: new ops go at its insertion point, in the
  /// order the rule creates them.
  virtual mlir::OpBuilder &getBuilder() = 0;

  /// The complete gradient of `v` (its contributions summed, partial ones
  /// reduced to gradType(v)), or null if nothing contributed to it.
  virtual mlir::Value gradient(mlir::Value v) = 0;
  /// The complete gradient of `v`, or zeros of gradType(v).
  virtual mlir::Value gradientOrZeros(mlir::Value v) = 0;
  /// The contributions to the gradient of `v` as they are (possibly partial
  /// along mesh axes), for a rule that consumes them unreduced.
  virtual llvm::SmallVector<mlir::Value, 2> getContributions(mlir::Value v) = 0;
  /// Adds `g` to the gradient of `v`; a null `g` adds nothing.
  virtual void contribute(mlir::Value v, mlir::Value g) = 0;
  /// The sum of `values` (at least one), elementwise.
  virtual mlir::Value sum(llvm::ArrayRef<mlir::Value> values,
                          mlir::Location loc) = 0;

  /// The type of the gradient of a value of type `t`: `t` with partial
  /// (P) axes made replicated.
  virtual mlir::RankedTensorType gradType(mlir::Type t) const = 0;
  /// `t` made partial (P) on every mesh axis along which `tokens` is split
  /// on a dimension other than `featureDim`: the type of a sum over the
  /// local tokens (a weight or bias gradient).
  virtual mlir::RankedTensorType
  partialOverTokens(mlir::RankedTensorType t, mlir::Value tokens,
                    int64_t featureDim) const = 0;
  /// `t` made partial (P) on every mesh axis along which `w` is split on
  /// dimension `contracted`: the type of a contraction over that dimension.
  virtual mlir::RankedTensorType
  partialWhereSplit(mlir::RankedTensorType t, mlir::Value w,
                    int64_t contracted) const = 0;

  /// The value the backward reads for the forward value `v`: `v` itself, or
  /// its recomputation where the forward keeps less than `v` (an
  /// all-gathered input is kept as its shard and gathered again, once).
  virtual mlir::Value reread(mlir::Value v) = 0;
};

} // namespace seqpar::tfm

namespace seqpar::OpTrait {
/// For a tfm op whose backward propagates nothing to its operands (ODS:
/// Tfm_NoBackward): it has none, or none that is differentiable.
template <typename ConcreteOp>
class NoBackward : public mlir::OpTrait::TraitBase<ConcreteOp, NoBackward> {
public:
  mlir::LogicalResult buildBackward(tfm::BackwardContext &) {
    return mlir::success();
  }
};
} // namespace seqpar::OpTrait

#endif // SEQPAR_DIALECT_TFM_IR_BACKWARDCONTEXT_H
