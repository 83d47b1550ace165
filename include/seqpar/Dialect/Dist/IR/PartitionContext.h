//===- PartitionContext.h - sp-partition for op rewrites --------*- C++ -*-===//
//
// The state and placement policy of sp-partition, offered to the local
// rewrite of each op (PartitionOpInterface). The pass implements it; an op's
// rewrite asks it for its operands in the shardings it needs, for parameter
// shards and for the policy's choices, and maps its results.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_IR_PARTITIONCONTEXT_H
#define SEQPAR_DIALECT_DIST_IR_PARTITIONCONTEXT_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/Builders.h"

namespace seqpar::dist {

class PartitionContext {
public:
  virtual ~PartitionContext() = default;

  //===--------------------------------------------------------------------===//
  // Values: old ones are the one-device program's, new ones the rank's.
  //===--------------------------------------------------------------------===//

  /// The builder, set before the op being rewritten.
  virtual mlir::OpBuilder &builder() = 0;
  /// The new value of `old` in the layout it was given.
  virtual mlir::Value lookup(mlir::Value old) = 0;
  /// The new value of `old`, converted to `want` on the tensor-parallel axis
  /// by a collective (shared by every use that wants the same layout).
  virtual mlir::Value get(mlir::Value old, Sharding want) = 0;
  /// The new value `v` converted to `want` on the tensor-parallel axis.
  virtual mlir::Value convert(mlir::Value v, Sharding want,
                              mlir::Location loc) = 0;
  /// This rank's shard, `want` on the tensor-parallel axis, of the parameter
  /// read by `old` (a tfm.get_param; another value is converted like get).
  /// Fails with a diagnostic when the parameter does not split evenly.
  virtual mlir::FailureOr<mlir::Value> param(mlir::Value old,
                                             Sharding want) = 0;
  /// param, or a null value for a null `old` (an absent bias).
  mlir::FailureOr<mlir::Value> optionalParam(mlir::Value old, Sharding want) {
    return old ? param(old, want) : mlir::FailureOr<mlir::Value>(mlir::Value());
  }
  /// Records `v` as the new value of `old`.
  virtual void map(mlir::Value old, mlir::Value v) = 0;
  void map(mlir::ValueRange olds, mlir::ValueRange news) {
    for (auto [o, n] : llvm::zip_equal(olds, news))
      map(o, n);
  }
  /// The same op, every operand converted to `want` and every result of
  /// layout `want`.
  virtual void cloneWith(mlir::Operation *op, Sharding want) = 0;

  //===--------------------------------------------------------------------===//
  // Types and shapes.
  //===--------------------------------------------------------------------===//

  /// The local type of a value of global type `global` that is `s` on the
  /// tensor-parallel axis and, if `batched`, split along its batch over the
  /// data-parallel axis and along its sequence (dimension 0) in zigzag over
  /// the context-parallel axis.
  virtual mlir::RankedTensorType localType(mlir::RankedTensorType global,
                                           Sharding s, bool batched) const = 0;
  /// The local type of the old value `old` made `s` on the tensor-parallel
  /// axis (batched if it is computed from the token ids).
  virtual mlir::RankedTensorType typeWith(mlir::Value old,
                                          Sharding s) const = 0;
  /// Whether `global` splits over the tensor-parallel ranks in `blocks`
  /// blocks; if not, a diagnostic at `op` ("cannot split <what> ...").
  virtual mlir::LogicalResult divisible(mlir::Operation *op, int64_t global,
                                        int64_t blocks,
                                        const llvm::Twine &what) = 0;

  //===--------------------------------------------------------------------===//
  // The mesh.
  //===--------------------------------------------------------------------===//

  virtual int64_t tpSize() const = 0;
  virtual int64_t dpSize() const = 0;
  virtual int64_t cpSize() const = 0;
  virtual mlir::FlatSymbolRefAttr meshRef() const = 0;
  /// The names of the tensor-parallel, data-parallel and context-parallel
  /// mesh axes (empty when the mesh has none).
  virtual llvm::StringRef tpAxis() const = 0;
  virtual llvm::StringRef dpAxis() const = 0;
  virtual llvm::StringRef cpAxis() const = 0;
  /// The new value `v` with its whole sequence on every context-parallel
  /// rank, in natural order (all-gathered over the context axis; `v` itself
  /// without context parallelism). Shared by every use.
  virtual mlir::Value wholeSequence(mlir::Value v, mlir::Location loc) = 0;
  /// The position ids of the whole sequence (this rank's batch rows), whole
  /// over tp and cp, for the old `tfm.position_ids` result `old`: a
  /// `tfm.position_ids` of that type (computed where needed, no collective),
  /// shared by every use.
  virtual mlir::Value wholePositionIds(mlir::Value old) = 0;

  //===--------------------------------------------------------------------===//
  // The placement policy (the pass's strategy).
  //===--------------------------------------------------------------------===//

  /// Whether the residual stream is split along the sequence.
  virtual bool sequenceParallel() const = 0;
  /// Whether context-parallel attention is the ring variant
  /// (dist.ring_attention on zigzag parts) rather than all-gathered keys.
  virtual bool ringAttention() const = 0;
  /// The layout of the residual stream: whole (TP) or sequence shards (SP).
  virtual Sharding stream() const = 0;
  /// Activations split on their last dimension `last` (features, heads,
  /// vocabulary), or replicated when there is a single tensor-parallel rank.
  virtual Sharding features(int64_t last) const = 0;
  /// Whether every use of the old value `old` works on it split on its
  /// features (PartitionOpInterface::worksOnSplitFeatures), so that the GEMM
  /// computing it can be column-parallel.
  virtual bool feedsSplitConsumers(mlir::Value old) = 0;
  /// Into how many blocks a column split of the old value `old` is cut
  /// (PartitionOpInterface::getSplitFeatureBlocks of its uses).
  virtual int64_t outputBlocks(mlir::Value old) = 0;
  /// The local type of the loss computed for the old loss `oldLoss`: each
  /// rank's share of the global mean, partial over the axes that split the
  /// tokens (dp, cp).
  virtual mlir::RankedTensorType lossType(mlir::Value oldLoss) = 0;
  /// The number of non-ignored labels of the whole batch (f32, replicated)
  /// from this rank's local `labels`: `tfm.label_count` all-reduced (sum)
  /// over the axes that split the tokens; null when none does (the loss's
  /// own count is the global one).
  virtual mlir::Value globalLabelCount(mlir::Value labels,
                                       int64_t ignoreIndex) = 0;
  /// The loss of the whole batch from the ranks' shares (of lossType):
  /// all-reduced (sum) over the axes that split the tokens.
  virtual mlir::Value replicaSum(mlir::Value loss) = 0;
};

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_IR_PARTITIONCONTEXT_H
