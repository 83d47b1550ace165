//===- SpOptimizer.cpp - gradient norm and parameter updates --------------===//

#include "seqpar/Dialect/Dist/Transforms/LayoutRules.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <map>

namespace seqpar::dist {
#define GEN_PASS_DEF_SPOPTIMIZERPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

namespace {
struct SpOptimizerPass : dist::impl::SpOptimizerPassBase<SpOptimizerPass> {
  using SpOptimizerPassBase::SpOptimizerPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (optimizer != "adamw" && optimizer != "sgd") {
      module.emitError() << "sp-optimizer: optimizer must be adamw or sgd, "
                            "got '"
                         << optimizer << "'";
      return signalPassFailure();
    }
    FailureOr<Operation *> found = tfm::TfmDialect::getMarkedFunction(
        module, tfm::TfmDialect::TrainStepAttrHelper::getNameStr(),
        "sp-optimizer");
    if (failed(found))
      return signalPassFailure();
    if (!*found) {
      module.emitError() << "sp-optimizer: the module has no train step (no "
                            "function marked tfm.train_step; run tfm-autodiff "
                            "first)";
      return signalPassFailure();
    }
    auto step = cast<func::FuncOp>(*found);
    if (failed(checkNotOptimized(step)) || failed(build(module, step)))
      signalPassFailure();
  }

  /// A step has one optimizer step: running the pass again would apply
  /// every update twice per training step.
  static LogicalResult checkNotOptimized(func::FuncOp step) {
    ParamUpdateOpInterface update;
    step.walk([&](ParamUpdateOpInterface u) {
      update = u;
      return WalkResult::interrupt();
    });
    if (update) {
      InFlightDiagnostic diag =
          step.emitOpError()
          << "already has its optimizer step: parameter "
          << update.getParamAttr() << " is already updated by '"
          << update->getName() << "' (sp-optimizer runs once per step)";
      diag.attachNote(update->getLoc()) << "the existing update";
      return diag;
    }
    if (auto done = step->getAttrOfType<StringAttr>(
            tfm::TfmDialect::OptimizerAttrHelper::getNameStr()))
      return step.emitOpError()
             << "already has its optimizer step (tfm.optimizer = \""
             << done.getValue() << "\"); sp-optimizer runs once per step";
    return success();
  }

  LogicalResult build(ModuleOp module, func::FuncOp step) {
    auto ret = cast<func::ReturnOp>(step.getBody().front().getTerminator());
    OpBuilder b(ret);
    Location loc = ret.getLoc();
    auto f32 = RankedTensorType::get({}, b.getF32Type());
    FailureOr<MeshOp> found = getMesh(module);
    if (failed(found))
      return failure();
    MeshOp mesh = *found;
    auto meshRef =
        mesh ? FlatSymbolRefAttr::get(mesh.getSymNameAttr()) : nullptr;

    // Sums of squares grouped by layout (each gradient counted once).
    std::map<std::string, Value> groups;
    SmallVector<std::pair<FlatSymbolRefAttr, Value>> grads;
    llvm::DenseSet<Value> seen;
    for (auto [i, g] : llvm::enumerate(ret.getOperands())) {
      auto param = step.getResultAttrOfType<FlatSymbolRefAttr>(
          i, tfm::TfmDialect::GradOfAttrHelper::getNameStr());
      if (!param)
        continue;
      grads.push_back({param, g});
      if (!seen.insert(g).second)
        continue; // a tie group's one gradient, counted once
      LayoutAttr gl = LayoutAttr::fromType(g.getType());
      LayoutAttr sl;
      if (gl)
        for (auto [j, axis] : llvm::enumerate(gl.getAxes()))
          if (gl.getSharding(j).isSplit())
            sl = (sl ? sl : LayoutAttr::get(b.getContext(), gl.getMesh(), {}))
                     .with(axis.getValue(), Sharding::partial());
      auto type = sl && !sl.getAxes().empty()
                      ? RankedTensorType::get({}, b.getF32Type(), sl)
                      : f32;
      Value s = b.create<SumSquaresOp>(loc, type, g);
      std::string key;
      llvm::raw_string_ostream(key) << type;
      Value &acc = groups[key];
      acc = acc ? b.create<AddOp>(loc, acc, s).getResult() : s;
    }
    Value total;
    for (auto &[key, partialSum] : groups) {
      Value v = partialSum;
      if (LayoutAttr l = LayoutAttr::fromType(v.getType()))
        for (auto axis : l.getAxes()) {
          LayoutAttr rest = LayoutAttr::ofType(v.getType(), meshRef)
                                .with(axis.getValue(), Sharding());
          auto t = RankedTensorType::get(
              {}, b.getF32Type(),
              rest.getAxes().empty() ? Attribute() : Attribute(rest));
          v = b.create<AllReduceOp>(
              loc, t, v, meshRef, axis,
              ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
        }
      total = total ? b.create<AddOp>(loc, total, v).getResult() : v;
    }
    if (!total)
      return step.emitOpError() << "has no parameter gradients to apply";
    // The hyperparameters are inputs of the step, which the runtime sets
    // per step; the pass's options are their defaults.
    auto hyperparameter = [&](HyperparameterKind kind, double value) -> Value {
      return b.create<HyperparameterOp>(loc, kind, APFloat(value));
    };
    // A loss-scaled backward (its seed reads the loss scale): the clip scale
    // divides it out of the norm and the update.
    Value lossScale;
    step.walk([&](FillOp seed) {
      if (seed->hasAttr(
              tfm::TfmDialect::BackwardBeginsAttrHelper::getNameStr()))
        lossScale = seed.getTimes();
    });
    auto clip = b.create<ClipScaleOp>(
        loc, TypeRange{f32, f32}, total,
        hyperparameter(HyperparameterKind::grad_clip, gradClip), lossScale);
    Value lrValue = hyperparameter(HyperparameterKind::lr, lr);
    Value beta1Value, beta2Value, epsValue;
    if (optimizer == "adamw") {
      beta1Value = hyperparameter(HyperparameterKind::beta1, beta1);
      beta2Value = hyperparameter(HyperparameterKind::beta2, beta2);
      epsValue = hyperparameter(HyperparameterKind::eps, eps);
    }
    Value weightDecayValue =
        hyperparameter(HyperparameterKind::weight_decay, weightDecay);

    // With a distributed optimizer each replica updated one slice of the
    // parameter: gather the slices back (once per parameter).
    SmallVector<std::pair<FlatSymbolRefAttr, Type>> gathers;
    // The type each parameter is read with (its last read), from one walk.
    DenseMap<Attribute, Type> readTypes;
    if (mesh && step->hasAttr(tfm::TfmDialect::ZeroAttrHelper::getNameStr()))
      step.walk([&](GetParamOp get) {
        readTypes[get.getNameAttr()] = get.getType();
      });
    // A distributed optimizer shards over the data axis (sp-sync-grads
    // marks the step tfm.zero only when the mesh has one).
    std::optional<StringRef> data =
        mesh ? mesh.getAxisWithRole(AxisRole::data) : std::nullopt;
    for (auto [param, g] : grads) {
      if (data &&
          step->hasAttr(tfm::TfmDialect::ZeroAttrHelper::getNameStr()) &&
          shardingOf(g, *data) == Sharding::split(0))
        gathers.push_back({param, readTypes.lookup(param)});
      if (optimizer == "sgd")
        b.create<SgdUpdateOp>(loc, param, g, clip.getScale(), lrValue,
                              weightDecayValue);
      else
        b.create<AdamWUpdateOp>(loc, param, g, clip.getScale(), lrValue,
                                beta1Value, beta2Value, epsValue,
                                weightDecayValue);
    }

    for (auto [param, type] : gathers)
      b.create<AllGatherParamOp>(loc, param,
                                 FlatSymbolRefAttr::get(mesh.getSymNameAttr()),
                                 b.getStringAttr(*data), TypeAttr::get(type));

    // (loss, grad_norm, grad...): the norm goes in second place.
    SmallVector<Value> results{ret.getOperand(0), clip.getNorm()};
    SmallVector<DictionaryAttr> attrs{step.getResultAttrDict(0),
                                      DictionaryAttr::get(b.getContext())};
    for (unsigned i = 1; i < ret.getNumOperands(); ++i) {
      results.push_back(ret.getOperand(i));
      attrs.push_back(step.getResultAttrDict(i));
    }
    b.create<func::ReturnOp>(loc, results);
    ret.erase();
    step.setType(FunctionType::get(b.getContext(), step.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    step.setAllResultAttrs(attrs);
    step->setAttr(tfm::TfmDialect::OptimizerAttrHelper::getNameStr(),
                  b.getStringAttr(optimizer));
    return success();
  }
};
} // namespace
