//===- SpRecompute.cpp - activation recompute in the train step -----------===//
//
// The backward of a train step reads forward values; each one it reads is
// kept live from the forward to that read. This pass picks forward ops whose
// results the backward must not keep (the policy) and makes the backward
// read copies of them, placed right before their first backward reader:
// the forward values those copies read stay kept, the picked ones die in
// the forward. A group of picked ops (one op for `selective`, one layer for
// `full`) is copied at once, in forward order, and its copies serve every
// later backward read.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/LayerIndex.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPRECOMPUTEPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

namespace {
using Policy = RecomputePolicy;

class Recompute {
public:
  Recompute(func::FuncOp step, Operation *begin, Policy policy)
      : step(step), begin(begin), policy(policy) {}

  void run();

private:
  /// Picks the ops whose results the backward must not keep and their
  /// groups.
  void pick(ArrayRef<Operation *> forward);
  /// Copies, before `before`, the picked ops the backward reads of `group`
  /// needs that have no copy yet, in forward order.
  void copyGroup(Operation *group, Operation *before);

  func::FuncOp step;
  Operation *begin;
  Policy policy;
  /// Position in the forward, which is a topological order.
  DenseMap<Operation *, unsigned> position;
  /// Picked op -> its group (the op itself, or the first picked op of its
  /// layer).
  DenseMap<Operation *, Operation *> groupOf;
  /// Group -> its picked ops that backward ops read.
  llvm::MapVector<Operation *, SetVector<Operation *>> readByBackward;
  /// Forward value -> its copy.
  IRMapping copies;
};
} // namespace

/// The GLU product: an elementwise product one of whose operands is an
/// activation's output (Llama's silu(gate) * up).
static bool isGluProduct(Operation *op) {
  return isa<MulOp>(op) && llvm::any_of(op->getOperands(), [](Value v) {
           Operation *def = v.getDefiningOp();
           return def && def->hasTrait<seqpar::OpTrait::Activation>();
         });
}

void Recompute::pick(ArrayRef<Operation *> forward) {
  DenseMap<Operation *, int64_t> layer;
  for (Operation *op : forward)
    layer[op] = layerOf(op->getLoc());
  DenseMap<int64_t, Operation *> layerGroup;
  for (Operation *op : forward) {
    int64_t l = layer.lookup(op);
    // Parameters are read again, never kept; outside the layers nothing is
    // recomputed (nor is an op without results). What a pipeline stage
    // received is kept: receiving it again would need a second send.
    if (l < 0 || isa<GetParamOp, dist::RecvOp>(op) || op->getNumResults() == 0)
      continue;
    if (policy == Policy::selective) {
      if (op->hasTrait<seqpar::OpTrait::Normalization>() ||
          op->hasTrait<seqpar::OpTrait::Activation>() || isGluProduct(op))
        groupOf[op] = op;
      continue;
    }
    // Full: a value another layer's forward (or the part outside the
    // layers) reads is that part's input: kept.
    bool layerOutput = llvm::any_of(op->getUsers(), [&](Operation *user) {
      return user->isBeforeInBlock(begin) && layer.lookup(user) != l;
    });
    if (layerOutput)
      continue;
    Operation *&group = layerGroup[l];
    if (!group)
      group = op;
    groupOf[op] = group;
  }
}

void Recompute::copyGroup(Operation *group, Operation *before) {
  // The group's ops the backward reads and the picked ops they need,
  // through picked ops only: everything else is read as it is (kept).
  SetVector<Operation *> needed;
  SmallVector<Operation *> work(readByBackward[group].begin(),
                                readByBackward[group].end());
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (copies.contains(op->getResult(0)) || !needed.insert(op))
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && groupOf.count(def))
        work.push_back(def);
  }
  SmallVector<Operation *> ordered = needed.takeVector();
  llvm::sort(ordered, [&](Operation *a, Operation *b) {
    return position.lookup(a) < position.lookup(b);
  });
  OpBuilder b(before);
  auto recomputed =
      b.getStringAttr(TfmDialect::RecomputedAttrHelper::getNameStr());
  for (Operation *op : ordered) {
    // Position ids (no operands) are computed again, as the backward's own
    // attention_grad does, rather than kept.
    for (Value v : op->getOperands())
      if (auto ids = v.getDefiningOp<PositionIdsOp>();
          ids && !copies.contains(v))
        b.clone(*ids, copies);
    b.clone(*op, copies)->setAttr(recomputed, b.getUnitAttr());
  }
}

void Recompute::run() {
  if (policy == Policy::none)
    return;
  Block &body = step.getBody().front();
  SmallVector<Operation *> forward, backward;
  for (Operation &op : body) {
    if (&op == begin || !backward.empty())
      backward.push_back(&op);
    else
      forward.push_back(&op);
  }
  for (auto [i, op] : llvm::enumerate(forward))
    position[op] = i;
  pick(forward);
  for (Operation *op : backward)
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && groupOf.count(def))
        readByBackward[groupOf[def]].insert(def);
  // In backward order: the first reader of a group gets its copies.
  for (Operation *op : backward)
    for (OpOperand &use : op->getOpOperands()) {
      Operation *def = use.get().getDefiningOp();
      if (!def || !groupOf.count(def))
        continue;
      if (!copies.contains(use.get()))
        copyGroup(groupOf[def], op);
      use.set(copies.lookup(use.get()));
    }
}

namespace {
struct SpRecomputePass
    : seqpar::dist::impl::SpRecomputePassBase<SpRecomputePass> {
  using SpRecomputePassBase::SpRecomputePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef recomputeAttr = TfmDialect::RecomputeAttrHelper::getNameStr();
    if (Attribute done = module->getAttr(recomputeAttr)) {
      module.emitError() << "sp-recompute: the module is already recomputed ("
                         << recomputeAttr << " = " << done << ")";
      return signalPassFailure();
    }
    FailureOr<SmallVector<Operation *>> steps = TfmDialect::getMarkedFunctions(
        module, TfmDialect::TrainStepAttrHelper::getNameStr(), "sp-recompute");
    if (failed(steps))
      return signalPassFailure();
    if (steps->empty()) {
      module.emitError() << "sp-recompute: the module has no function marked "
                            "tfm.train_step: recompute needs the backward "
                            "tfm-autodiff builds (run it first)";
      return signalPassFailure();
    }
    // Each pipeline stage's step recomputes its own forward.
    for (Operation *step : *steps) {
      auto func = cast<func::FuncOp>(step);
      Operation *begin = nullptr;
      for (Operation &op : func.getBody().getOps())
        if (op.hasAttr(TfmDialect::BackwardBeginsAttrHelper::getNameStr())) {
          begin = &op;
          break;
        }
      if (!begin) {
        func.emitOpError() << "sp-recompute: the train step has no op marked "
                              "tfm.backward_begins (the seed of its backward)";
        return signalPassFailure();
      }
      Recompute(func, begin, policy).run();
    }
    module->setAttr(recomputeAttr,
                    RecomputePolicyAttr::get(&getContext(), policy));
  }
};
} // namespace
