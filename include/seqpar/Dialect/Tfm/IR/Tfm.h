//===- Tfm.h - the tfm dialect ----------------------------------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFM_H
#define SEQPAR_DIALECT_TFM_IR_TFM_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "seqpar/Dialect/Common/SeqparChoices.h"
#include "seqpar/Dialect/Common/SeqparEnums.h"
#include "seqpar/Dialect/Common/StoragePrecision.h"
#include "seqpar/Dialect/Tfm/IR/BackwardContext.h"
#include "seqpar/Dialect/Tfm/IR/TensorSizes.h"
#include "seqpar/Dialect/Tfm/IR/TfmEnums.h.inc"
#include "seqpar/Dialect/Tfm/IR/TfmTraits.h"

namespace seqpar::tfm {
/// One tensor an op keeps for its backward pass (SavedForBackwardOpInterface).
struct SavedTensor {
  enum class Kind {
    /// A floating-point activation in the op's element type.
    Activation,
    /// A dropout mask: one byte per element.
    Mask,
    /// Softmax statistics (attention's lse, f32) that the paper's
    /// implementation does not keep: it keeps the softmax output instead.
    Statistics,
  };
  Kind kind;
  /// The operand or result kept, or null for a tensor internal to the op.
  mlir::Value value;
  /// For internal tensors: the number of elements and their element type.
  int64_t numElements = 0;
  mlir::Type elementType;
  /// What the tensor is, for reports ("softmax", "dropout mask", ...).
  llvm::StringRef what;

  static SavedTensor of(mlir::Value v, llvm::StringRef what,
                        Kind kind = Kind::Activation) {
    return {kind, v, 0, mlir::Type(), what};
  }
  static SavedTensor internal(Kind kind, int64_t n, mlir::Type t,
                              llvm::StringRef what) {
    return {kind, mlir::Value(), n, t, what};
  }
};
} // namespace seqpar::tfm

#define GET_ATTRDEF_CLASSES
#include "seqpar/Dialect/Tfm/IR/TfmAttrs.h.inc"

#include "seqpar/Dialect/Tfm/IR/TfmInterfaces.h.inc"
#include "seqpar/Dialect/Tfm/IR/TfmOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "seqpar/Dialect/Tfm/IR/TfmOps.h.inc"

namespace seqpar::tfm {
/// Whether `v` is a parameter as the ops read it: a tfm.get_param, or its
/// copy in the model's precision (a tfm.convert of one, tfm-master-weights).
/// Such values are weights, not activations: the backward may read them
/// without declaring them kept, and the memory report counts them with the
/// parameters.
inline bool isParameterRead(mlir::Value v) {
  if (auto convert = v.getDefiningOp<ConvertOp>())
    v = convert.getInput();
  return static_cast<bool>(v.getDefiningOp<GetParamOp>());
}

/// The type of `tfm.attention`'s `lse` for queries `q` [s, b, heads *
/// head_dim]: [s, b, heads] f32 with q's encoding (a split of q's rows,
/// batch or heads splits the statistics the same way).
mlir::RankedTensorType attentionStatsType(mlir::Value q, int64_t heads);

/// A gradient contribution (`tfm.contributes`): what tfm-autodiff delivered
/// to the `use`-th use (from 0) of the reads of parameter `param`.
struct Contribution {
  llvm::StringRef param;
  unsigned use;
};
/// The tag `"param#use"` of a contribution.
mlir::StringAttr makeContributionTag(mlir::MLIRContext *ctx,
                                     llvm::StringRef param, unsigned use);
/// `tag` parsed, or nullopt if it is not `"param#use"`.
std::optional<Contribution> parseContributionTag(mlir::StringAttr tag);
/// The contribution tag of `r` in its op's `tfm.contributes`, or null.
mlir::StringAttr getContributionTag(mlir::OpResult r);
/// Marks `r` as the contribution `tag` (null: as none).
void setContributionTag(mlir::OpResult r, mlir::StringAttr tag);
/// `op`'s context: its discardable attributes (micro-batch, recompute) less
/// its gradient tags. Ops of one context may fuse into one op.
mlir::DictionaryAttr contextOf(mlir::Operation *op);
} // namespace seqpar::tfm

#endif // SEQPAR_DIALECT_TFM_IR_TFM_H
