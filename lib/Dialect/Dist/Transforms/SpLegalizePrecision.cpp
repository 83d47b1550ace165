//===- SpLegalizePrecision.cpp - bf16/f16 storage, f32 arithmetic ---------===//
//
// The runtime's compute kernels take f32 buffers. An op with a bf16 or f16
// tensor that is not a byte mover (seqpar::keepsStoragePrecision) is made to
// compute in f32 where it stands:
//
//   %y = tfm.gelu %x : tensor<8x16xbf16>
//
// becomes
//
//   %x32 = tfm.convert %x : tensor<8x16xbf16> -> tensor<8x16xf32>
//   %y32 = tfm.gelu %x32 : tensor<8x16xf32>
//   %y = tfm.convert %y32 : tensor<8x16xf32> -> tensor<8x16xbf16>
//
// The op itself is retyped in place (its attributes stay), so every op whose
// verifier relates its operand and result types sees them all in f32, but
// for the input of a fused all-gather + GEMM, which stays in its storage
// precision: the runtime gathers it so (half the bytes) and widens it after
// the gather. dist.ring_attention_grad reads its forward's output as the
// forward computed it (f32, like the lse beside it), not narrowed. A
// wrapped op has no bf16/f16 tensor left and the converts are byte movers:
// a second run finds nothing to do.
//
// The GEMMs (StoragePrecisionOpInterface: tfm.linear and its gradients,
// and the fused collective GEMMs) are not wrapped: their kernels read
// bf16/f16 operands and write bf16/f16 results as stored, with the same f32
// arithmetic and the same single rounding, so no f32 copy of a weight or an
// activation exists for them. Only a result their kernel writes in f32
// becomes f32 and is narrowed after the op: a partial result (it is summed
// before it is rounded, see computeInF32), the reduce-scattered sum of
// dist.matmul_reduce_scatter and the weight gradients of
// dist.all_gather_matmul_grad_weight, and a result only widened to f32 (a
// gradient contribution of an f32 master weight: written in f32, unrounded,
// as Megatron-LM accumulates weight gradients in fp32; see onlyWidened for
// the bias gradients kept as stored). The elementwise maps
// (MapsElementsAsStored) are not wrapped either, unless a tensor of theirs
// is partial: their typed kernels map each widened element in f32 and round
// it once. The norms, the cross-entropy, their backward and the bias
// gradient (ReducesRowsAsStored) are kept like the GEMMs: a weight or bias
// gradient that is partial (summed over sequence shards) is written in f32
// and narrowed after its reduction. Attention and its backward
// (AttendsAsStored) are kept with all their tensors as stored, or wrapped
// whole: where a tensor is partial or the sequence is split in zigzag order
// (context parallelism) they compute on f32 copies as before. The head reshapes
// around them move bytes.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPLEGALIZEPRECISIONPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// `t` if it is a bf16 or f16 tensor (a storage type the runtime does not
/// compute in), else null.
static RankedTensorType lowPrecision(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor ||
      !(tensor.getElementType().isBF16() || tensor.getElementType().isF16()))
    return {};
  return tensor;
}

/// Whether `t` is partial along some mesh axis: each rank holds a
/// contribution to a sum.
static bool isPartial(Type t) {
  LayoutAttr layout = LayoutAttr::fromType(t);
  if (!layout)
    return false;
  for (unsigned i = 0, e = layout.getAxes().size(); i < e; ++i)
    if (layout.getSharding(i).isPartial())
      return true;
  return false;
}

/// Whether `t` is split in zigzag order along some mesh axis (context
/// parallelism's load-balanced sequence).
static bool isZigzag(Type t) {
  LayoutAttr layout = LayoutAttr::fromType(t);
  if (!layout)
    return false;
  for (unsigned i = 0, e = layout.getAxes().size(); i < e; ++i)
    if (layout.getSharding(i).isZigzag())
      return true;
  return false;
}

/// Whether an attention or its backward (AttendsAsStored) can run on its
/// tensors as stored: every float tensor bf16 or f16 of one type, none
/// partial (the key and value gradients of an all-gathered sequence are
/// summed over cp before they are rounded) and none split in zigzag order
/// (the backward sums dk and dv over the rank's two pieces).
static bool attendsAsStored(Operation *op) {
  Type stored;
  auto ok = [&](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !isa<FloatType>(tensor.getElementType()))
      return true; // the positions
    if (!lowPrecision(t) || isPartial(t) || isZigzag(t))
      return false;
    if (!stored)
      stored = tensor.getElementType();
    return tensor.getElementType() == stored;
  };
  return llvm::all_of(op->getOperandTypes(), ok) &&
         llvm::all_of(op->getResultTypes(), ok);
}

/// Whether every reader of `result` (a bf16 / f16 tensor) widens it into a
/// gradient contribution of an f32 master weight (a convert to f32 marked
/// tfm.contributes, the backward of tfm-master-weights' convert).
static bool widenedIntoContributions(Value result) {
  auto type = lowPrecision(result.getType());
  if (!type || result.use_empty())
    return false;
  Type f32 = type.clone(Float32Type::get(result.getContext()));
  return llvm::all_of(result.getUsers(), [&](Operation *user) {
    auto widen = dyn_cast<tfm::ConvertOp>(user);
    return widen && widen.getType() == f32 &&
           tfm::getContributionTag(widen->getResult(0));
  });
}

/// The dy of a weight or bias gradient, else null.
static Value gradientDy(Operation *op) {
  if (auto dw = dyn_cast<tfm::LinearGradWeightOp>(op))
    return dw.getDy();
  if (auto db = dyn_cast<tfm::BiasGradOp>(op))
    return db.getDy();
  return {};
}

/// Whether `result` is only widened into gradient contributions
/// (widenedIntoContributions), which its op can write in f32 itself,
/// unrounded, as a partial sum is. (The pass's own widenings are not
/// contributions: a second run leaves them.) Not an attention's (its
/// tensors have one type). A weight gradient and the bias gradients of its
/// dy (or a bias gradient and the weight gradients of its dy) are written in
/// f32 all or none: tfm-fuse-epilogues makes a pair of them one GEMM with the
/// bias gradient as its epilogue, whose outputs have one type.
static bool onlyWidened(OpResult result) {
  Operation *op = result.getOwner();
  if (op->hasTrait<seqpar::OpTrait::AttendsAsStored>() ||
      !widenedIntoContributions(result))
    return false;
  // Its partners: the gradients of the other kind on its dy. One already in
  // f32 (partial, or folded first) leaves one type.
  const bool bias = isa<tfm::BiasGradOp>(op);
  if (Value dy = gradientDy(op))
    return llvm::all_of(dy.getUsers(), [&](Operation *user) {
      if (!gradientDy(user) || isa<tfm::BiasGradOp>(user) == bias)
        return true;
      Value partner = user->getResult(0);
      return !lowPrecision(partner.getType()) ||
             widenedIntoContributions(partner);
    });
  return true;
}

/// How the pass treats the ops' tensors: with `storageGemms`, the operands
/// and results of the GEMMs (StoragePrecisionOpInterface) stay as stored;
/// with `storageRows`, those of the row reductions (StoragePrecisionOpInterface
/// and ReducesRowsAsStored); with `storageAttention`, all those of an
/// attention or its backward (AttendsAsStored) or none; with
/// `storageElementwise`, the elementwise maps that have no partial tensor.
struct Policy {
  bool storageGemms;
  bool storageElementwise;
  bool storageRows;
  bool storageAttention;
  /// Whether `op`'s StoragePrecisionOpInterface is honoured.
  bool storesAsDeclared(Operation *op) const {
    if (op->hasTrait<seqpar::OpTrait::AttendsAsStored>())
      return storageAttention && attendsAsStored(op);
    return op->hasTrait<seqpar::OpTrait::ReducesRowsAsStored>() ? storageRows
                                                                : storageGemms;
  }
  /// Whether `op` runs on its bf16/f16 tensors as they are.
  bool keeps(Operation *op) const {
    if (keepsStoragePrecision(op))
      return true;
    return storageElementwise && mapsElementsAsStored(op) &&
           !llvm::any_of(op->getOperandTypes(), isPartial) &&
           !llvm::any_of(op->getResultTypes(), isPartial);
  }
  /// Whether `use` is read as stored, without an f32 copy.
  bool readsStored(OpOperand &use) const {
    return gathersInStoragePrecision(use) ||
           (storesAsDeclared(use.getOwner()) && readsStoragePrecision(use));
  }
  /// Whether `result` may stay in its storage type: written so, not a
  /// partial sum and not only widened.
  bool writesStored(OpResult result) const {
    return storesAsDeclared(result.getOwner()) &&
           writesStoragePrecision(result) && !isPartial(result.getType()) &&
           !onlyWidened(result);
  }
};

/// Whether `op` must be wrapped: it has a bf16/f16 tensor that its runtime
/// kernel does not read or write as stored. Terminators return the function's
/// results, which the pass leaves as they are. An optimizer update writes its
/// parameter in place, in the parameter's type, which its gradient must
/// have: it is left as it is (the precision policy keeps f32 master
/// weights, whose updates are f32; convert-sp-to-runtime refuses a bf16
/// one).
static bool needsF32(Operation *op, const Policy &policy) {
  if (policy.keeps(op) || op->hasTrait<mlir::OpTrait::IsTerminator>() ||
      isa<tfm::ParamUpdateOpInterface>(op))
    return false;
  return llvm::any_of(op->getOpOperands(),
                      [&](OpOperand &use) {
                        return lowPrecision(use.get().getType()) &&
                               !policy.readsStored(use);
                      }) ||
         llvm::any_of(op->getResults(), [&](OpResult result) {
           return lowPrecision(result.getType()) &&
                  !policy.writesStored(result);
         });
}

/// The f32 output of the dist.ring_attention whose backward `use` reads, if
/// `use` is dist.ring_attention_grad's `result` operand and reads that
/// output narrowed to its storage type. The backward takes D = rowsum(dout
/// * out) from it against the f32 lse of the same rows: an out rounded to
/// bf16 would shift each row's softmax gradient by its rounding error (the
/// one-device attention's backward recomputes the probabilities in f32 and
/// has no such term). Kept in f32 like lse, at the cost of a wider kept
/// output.
static Value ringOutputInF32(OpOperand &use) {
  auto grad = dyn_cast<RingAttentionGradOp>(use.getOwner());
  if (!grad || &use != &grad.getResultMutable())
    return {};
  auto narrowed = use.get().getDefiningOp<tfm::ConvertOp>();
  if (!narrowed)
    return {};
  Value out = narrowed.getInput();
  auto forward = out.getDefiningOp<RingAttentionOp>();
  if (!forward || out != forward.getResult() ||
      !cast<RankedTensorType>(out.getType()).getElementType().isF32())
    return {};
  return out;
}

/// Converts the bf16/f16 operands of `op` to f32 before it, retypes its
/// bf16/f16 results to f32 and converts them back after it, but for the
/// operands and results `policy` keeps as stored. A partial result is not
/// rounded: it is one rank's contribution to a sum, which the one-device
/// program computes and rounds once. It stays f32 for the ops in `wrapped`
/// (which compute in f32), for the operands read as stored (in whatever
/// type) and for conversions to f32 (now the value itself); any other user
/// reads it converted to its storage type.
static void computeInF32(Operation *op, const DenseSet<Operation *> &wrapped,
                         const Policy &policy) {
  OpBuilder b(op);
  Type f32 = b.getF32Type();
  StringRef recomputed = tfm::TfmDialect::RecomputedAttrHelper::getNameStr();
  Attribute mark = op->getAttr(recomputed);
  auto convert = [&](Value v, Type type) {
    auto c = b.create<tfm::ConvertOp>(op->getLoc(), type, v);
    if (mark)
      c->setAttr(recomputed, mark);
    return c;
  };
  // Which results are only widened into contributions, decided on the
  // operands as they are (before they are widened here).
  SmallVector<bool> widenedOnly;
  for (OpResult result : op->getResults())
    widenedOnly.push_back(onlyWidened(result));
  // One convert per value, however many operands of the op read it.
  DenseMap<Value, Value> widened;
  for (OpOperand &use : op->getOpOperands()) {
    RankedTensorType type = lowPrecision(use.get().getType());
    if (!type || policy.readsStored(use))
      continue;
    if (Value out = ringOutputInF32(use)) {
      use.set(out);
      continue;
    }
    Value &wide = widened[use.get()];
    if (!wide)
      wide = convert(use.get(), type.clone(f32));
    use.set(wide);
  }
  b.setInsertionPointAfter(op);
  for (OpResult result : op->getResults()) {
    RankedTensorType type = lowPrecision(result.getType());
    if (!type || policy.writesStored(result))
      continue;
    result.setType(type.clone(f32));
    if (!isPartial(type) && !widenedOnly[result.getResultNumber()]) {
      tfm::ConvertOp narrowed = convert(result, type);
      result.replaceAllUsesExcept(narrowed, narrowed);
      continue;
    }
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
      Operation *user = use.getOwner();
      if (wrapped.contains(user) || policy.readsStored(use))
        continue;
      auto widen = dyn_cast<tfm::ConvertOp>(user);
      if (widen && widen.getType() == result.getType()) {
        // The gradient contribution the widening was (tfm.contributes) is
        // the result's now.
        if (StringAttr tag = tfm::getContributionTag(widen->getResult(0)))
          tfm::setContributionTag(result, tag);
        widen.replaceAllUsesWith(result);
        widen.erase();
        continue;
      }
      b.setInsertionPoint(user);
      use.set(convert(result, type));
    }
  }
}

namespace {
struct SpLegalizePrecisionPass
    : dist::impl::SpLegalizePrecisionPassBase<SpLegalizePrecisionPass> {
  using SpLegalizePrecisionPassBase::SpLegalizePrecisionPassBase;
  void runOnOperation() override {
    Policy policy{storageGemms, storageElementwise, storageRows,
                  storageAttention};
    SmallVector<Operation *> ops;
    for (auto func : getOperation().getOps<func::FuncOp>())
      func.walk([&](Operation *op) {
        if (op != func && needsF32(op, policy))
          ops.push_back(op);
      });
    DenseSet<Operation *> wrapped(ops.begin(), ops.end());
    for (Operation *op : ops)
      computeInF32(op, wrapped, policy);
  }
};
} // namespace
