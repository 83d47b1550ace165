//===- EvalStep.cpp - the forward in evaluation mode (tfm-eval-step) ------===//
//
// Copies each tfm.forward function into a tfm.eval_step one without
// dropout, for a training program's validation loss. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace seqpar::tfm {
#define GEN_PASS_DEF_TFMEVALSTEPPASS
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace seqpar::tfm

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

/// Turns dropout off in `fn`: a dropout is its input, attention draws no
/// mask.
static void disableDropout(func::FuncOp fn) {
  Builder b(fn.getContext());
  fn.walk([&](Operation *op) {
    if (auto dropout = dyn_cast<DropoutOp>(op)) {
      dropout.getResult().replaceAllUsesWith(dropout.getInput());
      dropout.erase();
    } else if (auto attention = dyn_cast<AttentionOp>(op)) {
      attention.setDropoutRateAttr(b.getF64FloatAttr(0.0));
    } else if (auto ring = dyn_cast<dist::RingAttentionOp>(op)) {
      ring.setDropoutRateAttr(b.getF64FloatAttr(0.0));
    }
  });
}

/// A pipeline stage's loss (result #0) summed over the pipeline axis: the
/// stages before the last return zero.
static LogicalResult sumOverStages(func::FuncOp fn) {
  auto module = fn->getParentOfType<ModuleOp>();
  FailureOr<dist::MeshOp> mesh = dist::getMesh(module);
  if (failed(mesh))
    return failure();
  std::optional<StringRef> axis =
      *mesh ? mesh->getAxisWithRole(dist::AxisRole::pipeline) : std::nullopt;
  if (!axis)
    return fn.emitOpError() << "tfm-eval-step: a pipeline stage, but the "
                               "module's mesh has no axis with role pipeline";
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  OpBuilder b(ret);
  Value loss = ret.getOperand(0);
  ret->setOperand(0, b.create<dist::AllReduceOp>(
                         ret.getLoc(), loss.getType(), loss,
                         FlatSymbolRefAttr::get(mesh->getSymNameAttr()),
                         b.getStringAttr(*axis),
                         dist::ReductionKindAttr::get(
                             b.getContext(), dist::ReductionKind::sum)));
  return success();
}

namespace {
struct TfmEvalStepPass : tfm::impl::TfmEvalStepPassBase<TfmEvalStepPass> {
  using TfmEvalStepPassBase::TfmEvalStepPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef pass = "tfm-eval-step";
    FailureOr<SmallVector<Operation *>> evals = TfmDialect::getMarkedFunctions(
        module, TfmDialect::EvalStepAttrHelper::getNameStr(), pass);
    FailureOr<SmallVector<Operation *>> forwards =
        TfmDialect::getMarkedFunctions(
            module, TfmDialect::ForwardAttrHelper::getNameStr(), pass);
    if (failed(evals) || failed(forwards))
      return signalPassFailure();
    if (!evals->empty()) {
      evals->front()->emitOpError()
          << pass << ": the module has an evaluation step already";
      return signalPassFailure();
    }
    if (forwards->empty()) {
      module.emitError() << pass
                         << ": the module has no function marked tfm.forward";
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    for (Operation *op : *forwards) {
      auto forward = dyn_cast<func::FuncOp>(op);
      if (!forward || forward.isExternal() ||
          !forward.getBody().hasOneBlock() ||
          forward.getFunctionType().getNumResults() == 0) {
        op->emitOpError() << pass
                          << ": the forward must be a func.func of one block "
                             "returning the loss first";
        return signalPassFailure();
      }
      auto eval = cast<func::FuncOp>(OpBuilder(forward).clone(*forward));
      eval->removeAttr(TfmDialect::ForwardAttrHelper::getNameStr());
      eval->setAttr(TfmDialect::EvalStepAttrHelper::getNameStr(),
                    UnitAttr::get(&getContext()));
      std::string name = "eval_step";
      int64_t stages = TfmDialect::getPipelineStages(forward);
      if (stages > 1)
        name +=
            "_stage" + std::to_string(TfmDialect::getPipelineStage(forward));
      eval.setSymName(name);
      // A name taken (by a user's function) gets a suffix.
      symbols.insert(eval);
      disableDropout(eval);
      if (stages > 1 && failed(sumOverStages(eval)))
        return signalPassFailure();
    }
  }
};
} // namespace
