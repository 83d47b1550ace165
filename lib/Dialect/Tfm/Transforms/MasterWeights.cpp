//===- MasterWeights.cpp - fp32 master weights (tfm-master-weights) -------===//
//
// A bf16 / f16 model's parameters become f32 master weights, each use of a
// read converting it to the model's precision. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace seqpar::tfm {
#define GEN_PASS_DEF_TFMMASTERWEIGHTSPASS
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace seqpar::tfm

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

/// `t` with element type f32.
static RankedTensorType asF32(RankedTensorType t) {
  return RankedTensorType::get(t.getShape(), Float32Type::get(t.getContext()),
                               t.getEncoding());
}

namespace {
struct TfmMasterWeightsPass
    : tfm::impl::TfmMasterWeightsPassBase<TfmMasterWeightsPass> {
  using TfmMasterWeightsPassBase::TfmMasterWeightsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    for (Operation &op : *module.getBody())
      if (op.hasAttr(TfmDialect::TrainStepAttrHelper::getNameStr())) {
        op.emitOpError() << "is already differentiated: tfm-master-weights "
                            "runs before tfm-autodiff";
        return signalPassFailure();
      }
    // The model's precision: its low-precision parameters' element type
    // (one for all), else the recorded one, else f32.
    Type low;
    DenseSet<StringAttr> converted;
    for (auto param : module.getOps<ParamOp>()) {
      Type et = param.getType().getElementType();
      if (!et.isBF16() && !et.isF16())
        continue;
      if (low && et != low) {
        param.emitOpError()
            << "is " << et << " while other parameters are " << low
            << ": a model has one precision (tfm-precision)";
        return signalPassFailure();
      }
      low = et;
      converted.insert(param.getSymNameAttr());
      param.setType(asF32(param.getType()));
    }
    auto recorded = module->getAttrOfType<StringAttr>(
        TfmDialect::PrecisionAttrHelper::getNameStr());
    if (low && recorded && recorded.getValue() != precisionName(low)) {
      module.emitError() << "tfm-master-weights: the module's tfm.precision "
                            "is "
                         << recorded << " but its parameters are " << low;
      return signalPassFailure();
    }
    // An f32 model without a recorded precision stays as it is.
    StringRef precision = low        ? precisionName(low)
                          : recorded ? recorded.getValue()
                                     : "f32";
    if (low)
      module->setAttr(TfmDialect::PrecisionAttrHelper::getNameStr(),
                      StringAttr::get(ctx, precision));
    if (lossScaling == LossScaling::on ||
        (lossScaling == LossScaling::automatic && precision == "f16"))
      module->setAttr(TfmDialect::LossScalingAttrHelper::getNameStr(),
                      UnitAttr::get(ctx));

    // Each use of a read converts it back to the model's precision.
    OpBuilder b(ctx);
    module.walk([&](GetParamOp get) {
      if (!converted.contains(get.getNameAttr().getAttr()))
        return;
      auto lowType = cast<RankedTensorType>(get.getType());
      get.getResult().setType(asF32(lowType));
      DenseMap<Operation *, Value> perUser;
      for (OpOperand &use : llvm::make_early_inc_range(get->getUses())) {
        Value &c = perUser[use.getOwner()];
        if (!c) {
          b.setInsertionPoint(use.getOwner());
          c = b.create<ConvertOp>(get.getLoc(), lowType, get.getResult());
        }
        use.set(c);
      }
    });
  }
};
} // namespace
