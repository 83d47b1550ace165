//===- SpOptimizer.cpp - gradient norm and parameter updates --------------===//

#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

#include <map>

namespace seqpar::dist {
#define GEN_PASS_DEF_SPOPTIMIZERPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

/// The model's low precision (bf16 / f16) as its `tfm.precision` records it,
/// or null.
static Type lowPrecision(ModuleOp module) {
  auto p = module->getAttrOfType<StringAttr>(
      tfm::TfmDialect::PrecisionAttrHelper::getNameStr());
  Builder b(module.getContext());
  if (p && p.getValue() == "bf16")
    return b.getBF16Type();
  if (p && p.getValue() == "f16")
    return b.getF16Type();
  return nullptr;
}

/// Of `candidates` (parameters a distributed optimizer updates by slices),
/// those stored from now on in the model's low precision with their f32
/// master weight sharded with the optimizer state: an f32 master weight
/// (tfm-master-weights) all of whose reads are only converted to the model's
/// precision. Each becomes a parameter of that type read directly (the
/// converts go: the stored value is the rounding of the master, which they
/// computed). `narrowedBefore` holds the parameters an earlier pipeline
/// stage's step already narrowed (a tied weight's other copies): they are
/// masters here too, and `masters` gains this step's.
static DenseSet<Attribute>
shardMasterWeights(ModuleOp module, ArrayRef<FlatSymbolRefAttr> candidates,
                   DenseSet<Attribute> &narrowedBefore) {
  DenseSet<Attribute> masters;
  for (FlatSymbolRefAttr name : candidates)
    if (narrowedBefore.contains(name.getAttr()))
      masters.insert(name.getAttr());
  Type low = lowPrecision(module);
  if (!low || candidates.empty())
    return masters;
  DenseMap<Attribute, SmallVector<GetParamOp>> reads;
  module.walk([&](GetParamOp get) {
    reads[get.getNameAttr().getAttr()].push_back(get);
  });
  auto narrowed = [&](Type t) {
    auto r = cast<RankedTensorType>(t);
    return RankedTensorType::get(r.getShape(), low, r.getEncoding());
  };
  SymbolTable symbols(module);
  for (FlatSymbolRefAttr name : candidates) {
    auto param = symbols.lookup<ParamOp>(name.getValue());
    if (!param || !param.getType().getElementType().isF32() ||
        masters.contains(name.getAttr()))
      continue;
    SmallVector<GetParamOp> &gets = reads[name.getAttr()];
    bool onlyConverted = llvm::all_of(gets, [&](GetParamOp get) {
      return llvm::all_of(get->getUsers(), [&](Operation *user) {
        auto c = dyn_cast<ConvertOp>(user);
        return c && c.getType() == narrowed(get.getType());
      });
    });
    if (!onlyConverted)
      continue;
    param.setType(narrowed(param.getType()));
    for (GetParamOp get : gets) {
      get.getResult().setType(narrowed(get.getType()));
      for (Operation *user : llvm::make_early_inc_range(get->getUsers())) {
        user->getResult(0).replaceAllUsesWith(get.getResult());
        user->erase();
      }
    }
    masters.insert(name.getAttr());
    narrowedBefore.insert(name.getAttr());
  }
  return masters;
}

namespace {
struct SpOptimizerPass : dist::impl::SpOptimizerPassBase<SpOptimizerPass> {
  using SpOptimizerPassBase::SpOptimizerPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SmallVector<Operation *>> found =
        tfm::TfmDialect::getMarkedFunctions(
            module, tfm::TfmDialect::TrainStepAttrHelper::getNameStr(),
            "sp-optimizer");
    if (failed(found))
      return signalPassFailure();
    if (found->empty()) {
      module.emitError() << "sp-optimizer: the module has no train step (no "
                            "function marked tfm.train_step; run tfm-autodiff "
                            "first)";
      return signalPassFailure();
    }
    // Pipeline stages: each updates the parameters it reads; the norm's
    // partial sums are summed over the pipeline axis, a weight held by
    // several stages counted on the first of them only.
    std::optional<StringRef> pipeline;
    if (found->size() > 1) {
      FailureOr<MeshOp> mesh = getMesh(module);
      if (failed(mesh))
        return signalPassFailure();
      if (*mesh)
        pipeline = mesh->getAxisWithRole(AxisRole::pipeline);
      if (!pipeline) {
        (*found)[0]->emitOpError()
            << "sp-optimizer: one of " << found->size()
            << " pipeline stages, but the module's mesh has no axis with role "
               "pipeline";
        return signalPassFailure();
      }
    }
    SymbolTable symbols(module);
    llvm::StringSet<> heldBefore;
    narrowedMasters.clear();
    for (Operation *op : *found) {
      auto step = cast<func::FuncOp>(op);
      if (failed(checkNotOptimized(step)) ||
          failed(build(module, step, heldBefore, pipeline)))
        return signalPassFailure();
      for (unsigned i = 0; i < step.getNumResults(); ++i)
        if (auto p = step.getResultAttrOfType<FlatSymbolRefAttr>(
                i, tfm::TfmDialect::GradOfAttrHelper::getNameStr()))
          heldBefore.insert(weightOf(symbols, p));
    }
  }

  /// The parameters narrowed to the model's precision with a sharded f32
  /// master so far (by the steps of earlier pipeline stages).
  DenseSet<Attribute> narrowedMasters;

  /// The key of the copies of one weight: its tie group, else its symbol.
  static StringRef weightOf(SymbolTable &symbols, FlatSymbolRefAttr param) {
    auto decl = symbols.lookup<ParamOp>(param.getValue());
    return decl && decl.getTieGroup() ? *decl.getTieGroup() : param.getValue();
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
    if (Attribute done =
            step->getAttr(tfm::TfmDialect::OptimizerAttrHelper::getNameStr()))
      return step.emitOpError()
             << "already has its optimizer step (tfm.optimizer = " << done
             << "); sp-optimizer runs once per step";
    return success();
  }

  /// The optimizer step of `step`. Weights in `heldBefore` (a stage before
  /// this one updates them too) are left out of the norm, whose sum is
  /// all-reduced over `pipeline` when given.
  LogicalResult build(ModuleOp module, func::FuncOp step,
                      const llvm::StringSet<> &heldBefore,
                      std::optional<StringRef> pipeline) {
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

    // Sums of squares grouped by layout, one op per group (a multi-tensor
    // sum; each gradient counted once).
    std::map<std::string, std::pair<Type, SmallVector<Value>>> groups;
    SmallVector<std::pair<FlatSymbolRefAttr, Value>> grads;
    llvm::DenseSet<Value> seen;
    SymbolTable symbols(module);
    for (auto [i, g] : llvm::enumerate(ret.getOperands())) {
      auto param = step.getResultAttrOfType<FlatSymbolRefAttr>(
          i, tfm::TfmDialect::GradOfAttrHelper::getNameStr());
      if (!param)
        continue;
      grads.push_back({param, g});
      if (!seen.insert(g).second)
        continue; // a tie group's one gradient, counted once
      if (heldBefore.contains(weightOf(symbols, param)))
        continue; // counted on an earlier pipeline stage
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
      std::string key;
      llvm::raw_string_ostream(key) << type;
      auto &[groupType, inputs] = groups[key];
      groupType = type;
      inputs.push_back(g);
    }
    Value total;
    for (auto &[key, group] : groups) {
      Value v = b.create<SumSquaresOp>(loc, group.first, group.second);
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
    if (!total && grads.empty())
      return step.emitOpError() << "has no parameter gradients to apply";
    if (!total) // every weight counted on an earlier stage
      total = b.create<FillOp>(loc, f32, b.getF64FloatAttr(0.0));
    if (pipeline)
      total = b.create<AllReduceOp>(
          loc, f32, total, meshRef, b.getStringAttr(*pipeline),
          ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
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
    if (optimizer == OptimizerKind::adamw) {
      beta1Value = hyperparameter(HyperparameterKind::beta1, beta1);
      beta2Value = hyperparameter(HyperparameterKind::beta2, beta2);
      epsValue = hyperparameter(HyperparameterKind::eps, eps);
    }
    Value weightDecayValue =
        hyperparameter(HyperparameterKind::weight_decay, weightDecay);

    // A distributed optimizer shards over the data and context axes
    // (sp-sync-grads marks the step tfm.zero only when the mesh has one):
    // a gradient S(0) over some of them is this rank's slice, nested in
    // mesh order (the first axis outermost).
    SmallVector<StringRef, 2> zeroAxes;
    if (mesh && step->hasAttr(tfm::TfmDialect::ZeroAttrHelper::getNameStr()))
      for (Attribute a : mesh.getAxisNames()) {
        StringRef name = cast<StringAttr>(a).getValue();
        std::optional<AxisRole> role = mesh.getAxisRole(name);
        if (role == AxisRole::data || role == AxisRole::context)
          zeroAxes.push_back(name);
      }
    auto slicedOver = [&](Value g) {
      SmallVector<StringRef, 2> axes;
      for (StringRef a : zeroAxes)
        if (shardingOf(g, a) == Sharding::split(0))
          axes.push_back(a);
      return axes;
    };
    auto sliced = [&](Value g) { return !slicedOver(g).empty(); };
    // Under ZeRO-1 a bf16 / f16 model's sliced parameters are stored in
    // their low precision and the optimizer keeps their f32 master slices
    // (sharded, auto); without it, with sharded, every parameter, its
    // master whole.
    const bool zero = !zeroAxes.empty();
    const bool keepMasters =
        masterWeights == MasterWeights::sharded ||
        (masterWeights == MasterWeights::automatic && zero);
    SmallVector<FlatSymbolRefAttr> candidates;
    for (auto [param, g] : grads)
      if (keepMasters && (sliced(g) || !zero))
        candidates.push_back(param);
    DenseSet<Attribute> masters =
        shardMasterWeights(module, candidates, narrowedMasters);
    // With a distributed optimizer each rank updated one slice of the
    // parameter: gather the slices back (once per parameter), the
    // innermost axis first, within this rank's block of the axes outside
    // it.
    SmallVector<std::tuple<FlatSymbolRefAttr, Type, SmallVector<StringRef, 2>>>
        gathers;
    // The type each parameter is read with (its last read), from one walk.
    DenseMap<Attribute, Type> readTypes;
    if (!zeroAxes.empty())
      step.walk([&](GetParamOp get) {
        readTypes[get.getNameAttr()] = get.getType();
      });
    for (auto [param, g] : grads) {
      if (sliced(g))
        gathers.push_back({param, readTypes.lookup(param), slicedOver(g)});
      UnitAttr master =
          masters.contains(param.getAttr()) ? b.getUnitAttr() : UnitAttr();
      if (optimizer == OptimizerKind::sgd)
        b.create<SgdUpdateOp>(loc, param, g, master, clip.getScale(), lrValue,
                              weightDecayValue);
      else
        b.create<AdamWUpdateOp>(loc, param, g, master, clip.getScale(), lrValue,
                                beta1Value, beta2Value, epsValue,
                                weightDecayValue);
    }

    for (auto &[param, type, axes] : gathers) {
      // The region gathered over axes[k]: the parameter's block of the
      // axes before it (this rank's), whose first dimension is the whole
      // one's divided by their ranks.
      auto whole = cast<RankedTensorType>(type);
      for (int64_t k = int64_t(axes.size()) - 1; k >= 0; --k) {
        SmallVector<int64_t> shape(whole.getShape());
        for (int64_t j = 0; j < k; ++j)
          shape[0] /= *mesh.getAxisSize(axes[j]);
        auto region = whole.clone(shape);
        b.create<AllGatherParamOp>(
            loc, param, meshRef, b.getStringAttr(axes[k]),
            k > 0 ? b.getStringAttr(axes[k - 1]) : StringAttr(),
            TypeAttr::get(region));
      }
    }

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
                  tfm::OptimizerKindAttr::get(b.getContext(), optimizer));
    return success();
  }
};
} // namespace
