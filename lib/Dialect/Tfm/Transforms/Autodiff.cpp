//===- Autodiff.cpp - reverse mode over the partitioned forward -----------===//
//
// Builds `@train_step(input_ids, labels) -> (loss, grad...)` from
// `@forward`: the forward ops, then the backward of each in reverse order,
// and one gradient per parameter (in declaration order, each result marked
// `tfm.grad_of = @param`).
//
// Gradients carry layouts like every value. The gradient of a value has the
// value's layout except that a partial (P) value's gradient is replicated:
// every rank's addend receives the whole gradient. Contributions to the
// gradient of a replicated value can be partial (a column-parallel GEMM
// gives each rank the part from its output features); they are all-reduced
// when the gradient is consumed, except by an all_gather's transpose, which
// reduce-scatters them (sequence parallelism's backward). Parameter
// gradients are returned as computed, partial where the layouts make them
// so: sp-sync-grads reduces them.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

namespace seqpar::tfm {
#define GEN_PASS_DEF_TFMAUTODIFFPASS
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace seqpar::tfm

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

namespace {
class Autodiff {
public:
  Autodiff(ModuleOp module, func::FuncOp forward)
      : module(module), forward(forward), b(module.getContext()) {
    for (MeshOp mesh : module.getOps<MeshOp>())
      for (Attribute a : mesh.getAxisNames())
        axes.push_back(cast<StringAttr>(a).getValue().str());
    meshRef = module.getOps<MeshOp>().empty()
                  ? FlatSymbolRefAttr()
                  : FlatSymbolRefAttr::get(
                        (*module.getOps<MeshOp>().begin()).getSymNameAttr());
  }

  LogicalResult run();

private:
  // Layout helpers.
  static LayoutAttr layoutOf(Type t) { return LayoutAttr::ofType(t); }
  RankedTensorType withLayout(RankedTensorType t, LayoutAttr l) const {
    Attribute enc = l.getAxes().empty() ? Attribute() : l;
    return RankedTensorType::get(t.getShape(), t.getElementType(), enc);
  }
  /// The type of the gradient of a value of type `t`: P becomes R.
  RankedTensorType gradType(Type t) const;
  /// `t` with P on every axis where `tokens` (a value split along some of
  /// its non-feature dimensions) is split: a sum over local tokens.
  RankedTensorType partialOverTokens(RankedTensorType t, Value tokens,
                                     int64_t featureDim) const;
  /// `t` with P on every axis where `w` is split on `contracted`.
  RankedTensorType partialWhereSplit(RankedTensorType t, Value w,
                                     int64_t contracted) const;

  // Cotangents.
  void contribute(Value v, Value g);
  /// The complete gradient of `v` in gradType(v), or null if v has none.
  Value gradient(Value v);
  /// The complete gradient of `v`, or zeros.
  Value gradientOrZeros(Value v);
  Value convertPartial(Value g, LayoutAttr target, Location loc);
  Value sum(ArrayRef<Value> values, Location loc);

  LogicalResult backward(Operation *op);

  ModuleOp module;
  func::FuncOp forward;
  OpBuilder b;
  SmallVector<std::string> axes;
  FlatSymbolRefAttr meshRef;
  DenseMap<Value, SmallVector<Value, 2>> cotangents;
  /// Forward all-gathers repeated in the backward, one per forward gather.
  DenseMap<Operation *, Value> regathered;
  /// The first op of the backward: the seed of reverse mode.
  Operation *seed = nullptr;
};
} // namespace

RankedTensorType Autodiff::gradType(Type type) const {
  auto t = cast<RankedTensorType>(type);
  LayoutAttr l = layoutOf(t);
  for (const std::string &a : axes)
    if (l.getSharding(a).isPartial())
      l = l.with(a, Sharding::replicated());
  return withLayout(t, l);
}

RankedTensorType Autodiff::partialOverTokens(RankedTensorType t, Value tokens,
                                             int64_t featureDim) const {
  LayoutAttr l = layoutOf(t), lt = layoutOf(tokens.getType());
  for (const std::string &a : axes) {
    Sharding s = lt.getSharding(a);
    if (s.isSplit() && s.dim != featureDim)
      l = l.with(a, Sharding::partial());
  }
  return withLayout(t, l);
}

RankedTensorType Autodiff::partialWhereSplit(RankedTensorType t, Value w,
                                             int64_t contracted) const {
  LayoutAttr l = layoutOf(t), lw = layoutOf(w.getType());
  for (const std::string &a : axes) {
    Sharding s = lw.getSharding(a);
    if (s.isSplit() && s.dim == contracted)
      l = l.with(a, Sharding::partial());
  }
  return withLayout(t, l);
}

void Autodiff::contribute(Value v, Value g) {
  if (g)
    cotangents[v].push_back(g);
}

Value Autodiff::sum(ArrayRef<Value> values, Location loc) {
  Value total = values.front();
  for (Value v : values.drop_front())
    total = b.create<AddOp>(loc, total, v);
  return total;
}

Value Autodiff::convertPartial(Value g, LayoutAttr target, Location loc) {
  auto t = cast<RankedTensorType>(g.getType());
  for (const std::string &a : axes) {
    LayoutAttr have = layoutOf(g.getType());
    if (have.getSharding(a).isPartial() && !target.getSharding(a).isPartial())
      g = b.create<AllReduceOp>(
          loc, withLayout(t, have.with(a, Sharding::replicated())), g, meshRef,
          b.getStringAttr(a),
          ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
  }
  return g;
}

Value Autodiff::gradient(Value v) {
  auto it = cotangents.find(v);
  if (it == cotangents.end() || it->second.empty())
    return Value();
  RankedTensorType want = gradType(v.getType());
  SmallVector<Value> parts;
  for (Value g : it->second)
    parts.push_back(convertPartial(g, layoutOf(want), v.getLoc()));
  Value total = sum(parts, v.getLoc());
  it->second = {total};
  return total;
}

Value Autodiff::gradientOrZeros(Value v) {
  if (Value g = gradient(v))
    return g;
  return b.create<FillOp>(v.getLoc(), gradType(v.getType()),
                          b.getF64FloatAttr(0.0));
}

LogicalResult Autodiff::backward(Operation *op) {
  Location loc = op->getLoc();
  // Ops none of whose results received a gradient contribute nothing.
  if (llvm::none_of(op->getResults(),
                    [&](Value r) { return cotangents.count(r); }))
    return success();
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<GetParamOp, PositionIdsOp, LogitsMaxOp>(
          [](auto) { return success(); })
      .Case<LinearOp>([&](LinearOp o) {
        Value dy = gradient(o);
        bool outIn = o.getWeightLayout() == WeightLayout::out_in;
        int64_t outDim = outIn ? 0 : 1;
        auto xType = cast<RankedTensorType>(o.getInput().getType());
        // Contracting over output features split across ranks: partial.
        contribute(o.getInput(),
                   b.create<LinearGradInputOp>(
                       loc, partialWhereSplit(xType, o.getWeight(), outDim), dy,
                       o.getWeight(), o.getWeightLayoutAttr()));
        int64_t last = xType.getRank() - 1;
        auto wType = cast<RankedTensorType>(o.getWeight().getType());
        // An all-gathered input is kept as its shard and gathered again
        // here (Korthikanti et al. 2022, 4.2.2), as the memory report says.
        Value x = o.getInput();
        if (auto gather = x.getDefiningOp<AllGatherOp>()) {
          Value &again = regathered[gather];
          if (!again)
            again = b.clone(*gather)->getResult(0);
          x = again;
        }
        contribute(o.getWeight(), b.create<LinearGradWeightOp>(
                                      loc, partialOverTokens(wType, x, last), x,
                                      dy, o.getWeightLayoutAttr()));
        if (Value bias = o.getBias())
          contribute(bias,
                     b.create<BiasGradOp>(
                         loc,
                         partialOverTokens(
                             cast<RankedTensorType>(bias.getType()), dy, last),
                         dy));
        return success();
      })
      .Case<BiasAddOp>([&](BiasAddOp o) {
        Value dy = gradient(o);
        contribute(o.getInput(), dy);
        contribute(
            o.getBias(),
            b.create<BiasGradOp>(loc,
                                 partialOverTokens(o.getBias().getType(), dy,
                                                   o.getType().getRank() - 1),
                                 dy));
        return success();
      })
      .Case<LayerNormOp>([&](LayerNormOp o) {
        Value dy = gradient(o);
        int64_t last = o.getType().getRank() - 1;
        auto wType =
            partialOverTokens(o.getWeight().getType(), o.getInput(), last);
        auto grad = b.create<LayerNormGradOp>(
            loc, TypeRange{gradType(o.getInput().getType()), wType, wType}, dy,
            o.getInput(), o.getWeight(), o.getEpsAttr());
        contribute(o.getInput(), grad.getDx());
        contribute(o.getWeight(), grad.getDweight());
        if (o.getBias())
          contribute(o.getBias(), grad.getDbias());
        return success();
      })
      .Case<RmsNormOp>([&](RmsNormOp o) {
        Value dy = gradient(o);
        auto wType = partialOverTokens(o.getWeight().getType(), o.getInput(),
                                       o.getType().getRank() - 1);
        auto grad = b.create<RmsNormGradOp>(
            loc, TypeRange{gradType(o.getInput().getType()), wType}, dy,
            o.getInput(), o.getWeight(), o.getEpsAttr());
        contribute(o.getInput(), grad.getDx());
        contribute(o.getWeight(), grad.getDweight());
        return success();
      })
      .Case<DropoutOp>([&](DropoutOp o) {
        // The same mask, regenerated from the counter-based generator.
        contribute(o.getInput(),
                   b.create<DropoutOp>(loc, gradient(o), o.getRateAttr(),
                                       o.getStreamAttr()));
        return success();
      })
      .Case<GeluOp>([&](GeluOp o) {
        contribute(o.getInput(),
                   b.create<GeluGradOp>(loc, gradient(o), o.getInput(),
                                        o.getApproximateAttr()));
        return success();
      })
      .Case<SiluOp>([&](SiluOp o) {
        contribute(o.getInput(),
                   b.create<SiluGradOp>(loc, gradient(o), o.getInput()));
        return success();
      })
      .Case<MulOp>([&](MulOp o) {
        Value dy = gradient(o);
        contribute(o.getLhs(), b.create<MulOp>(loc, dy, o.getRhs()));
        contribute(o.getRhs(), b.create<MulOp>(loc, dy, o.getLhs()));
        return success();
      })
      .Case<AddOp>([&](AddOp o) {
        Value dy = gradient(o);
        contribute(o.getLhs(), dy);
        contribute(o.getRhs(), dy);
        return success();
      })
      .Case<EmbeddingOp>([&](EmbeddingOp o) {
        Value dy = gradient(o);
        int64_t last = o.getType().getRank() - 1;
        contribute(o.getTable(),
                   b.create<EmbeddingGradOp>(
                       loc, partialOverTokens(o.getTable().getType(), dy, last),
                       o.getIds(), dy));
        return success();
      })
      .Case<QkvSplitOp>([&](QkvSplitOp o) {
        Value dq = gradientOrZeros(o.getQ()), dk = gradientOrZeros(o.getK()),
              dv = gradientOrZeros(o.getV());
        contribute(
            o.getInput(),
            b.create<QkvConcatOp>(loc, gradType(o.getInput().getType()), dq, dk,
                                  dv, o.getPackingAttr(), o.getNumHeadsAttr(),
                                  o.getNumKvHeadsAttr(), o.getHeadDimAttr()));
        return success();
      })
      .Case<RepeatHeadsOp>([&](RepeatHeadsOp o) {
        contribute(o.getInput(), b.create<RepeatHeadsGradOp>(
                                     loc, gradType(o.getInput().getType()),
                                     gradient(o), o.getNumHeadsAttr(),
                                     o.getHeadDimAttr(), o.getFactorAttr()));
        return success();
      })
      .Case<AttentionOp>([&](AttentionOp o) {
        auto grad = b.create<AttentionGradOp>(
            loc,
            TypeRange{gradType(o.getQ().getType()),
                      gradType(o.getK().getType()),
                      gradType(o.getV().getType())},
            gradient(o), o.getQ(), o.getK(), o.getV(), o.getPositions(),
            o.getNumHeadsAttr(), o.getNumKvHeadsAttr(), o.getHeadDimAttr(),
            o.getCausalAttr(), o.getRotaryDimAttr(), o.getRotaryThetaAttr(),
            o.getDropoutRateAttr(), o.getDropoutStreamAttr());
        contribute(o.getQ(), grad.getDq());
        contribute(o.getK(), grad.getDk());
        contribute(o.getV(), grad.getDv());
        return success();
      })
      .Case<CrossEntropyOp>([&](CrossEntropyOp o) {
        contribute(o.getLogits(),
                   b.create<CrossEntropyGradOp>(
                       loc, gradType(o.getLogits().getType()), o.getLogits(),
                       o.getLabels(), gradient(o), o.getIgnoreIndexAttr()));
        return success();
      })
      .Case<CrossEntropyFromStatsOp>([&](CrossEntropyFromStatsOp o) {
        auto grad = b.create<CrossEntropyFromStatsGradOp>(
            loc,
            TypeRange{gradType(o.getSumexp().getType()),
                      gradType(o.getLabelLogit().getType())},
            o.getSumexp(), o.getLabels(), gradient(o), o.getIgnoreIndexAttr());
        contribute(o.getSumexp(), grad.getDsumexp());
        contribute(o.getLabelLogit(), grad.getDlabelLogit());
        return success();
      })
      .Case<LogitsSumExpOp>([&](LogitsSumExpOp o) {
        contribute(o.getLogits(), b.create<LogitsSumExpGradOp>(
                                      loc, gradType(o.getLogits().getType()),
                                      o.getLogits(), o.getMax(), gradient(o)));
        return success();
      })
      .Case<LabelLogitOp>([&](LabelLogitOp o) {
        contribute(o.getLogits(),
                   b.create<LabelLogitGradOp>(
                       loc, gradType(o.getLogits().getType()), o.getLabels(),
                       gradient(o), o.getIgnoreIndexAttr()));
        return success();
      })
      .Case<AllGatherOp>([&](AllGatherOp o) -> LogicalResult {
        // Partial contributions are reduce-scattered straight into the
        // shard (the backward of sequence parallelism's all-gather).
        auto &parts = cotangents[o.getResult()];
        auto allPartial = llvm::all_of(parts, [&](Value g) {
          return layoutOf(g.getType()).getSharding(o.getAxis()).isPartial();
        });
        auto inType = gradType(o.getInput().getType());
        if (allPartial) {
          Value total = sum(parts, loc);
          contribute(o.getInput(), b.create<ReduceScatterOp>(
                                       loc, inType, total, o.getMeshAttr(),
                                       o.getAxisAttr(), o.getDimAttr()));
          return success();
        }
        contribute(o.getInput(), b.create<LocalSliceOp>(
                                     loc, inType, gradient(o), o.getMeshAttr(),
                                     o.getAxisAttr(), o.getDimAttr()));
        return success();
      })
      .Case<ReduceScatterOp, LocalSliceOp>([&](Operation *c) {
        auto coll = cast<CollectiveOpInterface>(c);
        Value x = c->getOperand(0);
        contribute(x,
                   b.create<AllGatherOp>(
                       loc, gradType(x.getType()), gradient(c->getResult(0)),
                       coll.getMeshRef(), b.getStringAttr(coll.getMeshAxis()),
                       c->getAttrOfType<IntegerAttr>("dim")));
        return success();
      })
      .Case<AllReduceOp>([&](AllReduceOp o) -> LogicalResult {
        Value dy = gradient(o);
        switch (o.getKind()) {
        case ReductionKind::sum:
          contribute(o.getInput(), dy);
          return success();
        case ReductionKind::mean: {
          MeshOp mesh =
              SymbolTable::lookupNearestSymbolFrom<MeshOp>(o, o.getMeshAttr());
          double n = double(*mesh.getAxisSize(o.getAxis()));
          contribute(o.getInput(),
                     b.create<ScaleOp>(loc, dy, b.getF64FloatAttr(1.0 / n)));
          return success();
        }
        default:
          // A max or min selects; its only use here (the loss's max) has a
          // zero gradient.
          return success();
        }
      })
      .Default([](Operation *o) {
        return o->emitOpError() << "has no gradient rule in tfm-autodiff";
      });
}

/// What the backward reads from the forward must be what the forward ops
/// declare they keep (SavedForBackwardOpInterface), the declaration the
/// memory report counts: a backward rule reading anything else is a bug
/// here, not a silent difference between the report and the run.
static LogicalResult checkKeptValues(Block &body, Operation *begin) {
  DenseSet<Value> declared;
  for (Operation &op : body) {
    if (&op == begin)
      break;
    auto decl = dyn_cast<SavedForBackwardOpInterface>(op);
    if (!decl)
      continue;
    SmallVector<SavedTensor> saved;
    decl.getSavedForBackward(saved);
    for (const SavedTensor &t : saved)
      if (t.value) {
        declared.insert(t.value);
        // An all-gathered value is kept as its shard (gathered again).
        if (auto gather = t.value.getDefiningOp<AllGatherOp>())
          declared.insert(gather.getInput());
      }
  }
  bool backward = false;
  for (Operation &op : body) {
    backward |= &op == begin;
    if (!backward || isa<func::ReturnOp>(op))
      continue;
    for (Value v : op.getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || !def->isBeforeInBlock(begin) || isa<GetParamOp>(def) ||
          declared.contains(v))
        continue;
      return op.emitOpError()
             << "reads a forward value (from " << def->getName()
             << ") that no op declares it keeps for the backward";
    }
  }
  return success();
}

LogicalResult Autodiff::run() {
  FunctionType type = forward.getFunctionType();
  if (type.getNumResults() != 1 ||
      cast<RankedTensorType>(type.getResult(0)).getRank() != 0)
    return forward.emitOpError() << "must return the scalar loss to be "
                                    "differentiated";
  SmallVector<ParamOp> params = llvm::to_vector(module.getOps<ParamOp>());

  // @train_step: a copy of @forward, then the backward in reverse order.
  b.setInsertionPointAfter(forward);
  auto step = cast<func::FuncOp>(b.clone(*forward));
  step.setSymName("train_step");
  step->removeAttr(TfmDialect::ForwardAttrHelper::getNameStr());
  step->setAttr(TfmDialect::TrainStepAttrHelper::getNameStr(), b.getUnitAttr());
  Block &body = step.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Value loss = ret.getOperand(0);
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);

  b.setInsertionPoint(ret);
  auto seed = b.create<FillOp>(loss.getLoc(), gradType(loss.getType()),
                               b.getF64FloatAttr(1.0));
  seed->setAttr(TfmDialect::BackwardBeginsAttrHelper::getNameStr(),
                b.getUnitAttr());
  contribute(loss, seed);
  for (Operation *op : llvm::reverse(ops))
    if (failed(backward(op)))
      return failure();

  // One gradient per parameter: the sum of the contributions of all its
  // reads, as computed (possibly partial; sp-sync-grads reduces).
  SmallVector<Value> results{loss};
  SmallVector<Attribute> gradOf;
  // Parameters of one tie group (copies of one weight) share one gradient:
  // the sum of the contributions of every member, formed here, before any
  // reduction (Megatron-LM #844).
  // Reads are indexed once (in body order) by parameter and by group, the
  // group of a parameter without a tie group being the parameter itself.
  auto groupOf = [](ParamOp p) -> const void * {
    if (StringAttr group = p.getTieGroupAttr())
      return group.getAsOpaquePointer();
    return p.getOperation();
  };
  DenseMap<StringAttr, ParamOp> byName;
  for (ParamOp p : params)
    byName[p.getSymNameAttr()] = p;
  DenseMap<const void *, SmallVector<GetParamOp>> groupReads;
  DenseMap<Operation *, GetParamOp> lastRead;
  for (auto get : body.getOps<GetParamOp>()) {
    ParamOp target = byName.lookup(get.getNameAttr().getAttr());
    if (!target)
      continue; // not a tfm.param: the verifier rejects it
    groupReads[groupOf(target)].push_back(get);
    lastRead[target] = get;
  }
  for (ParamOp p : params) {
    SmallVector<Value> parts;
    RankedTensorType readType;
    // A copy: lookup returns by value (a reference would dangle).
    SmallVector<GetParamOp> reads = groupReads.lookup(groupOf(p));
    for (GetParamOp get : reads) {
      auto it = cotangents.find(get.getResult());
      if (it != cotangents.end())
        llvm::append_range(parts, it->second);
    }
    if (GetParamOp get = lastRead.lookup(p))
      readType = get.getType();
    else if (!reads.empty())
      // A member of a tie group that this function does not read directly.
      readType = GetParamOp(reads.back()).getType();
    Value g;
    if (!readType)
      return p.emitOpError() << "is never read by @forward: it has no "
                                "gradient (remove it from the model)";
    if (parts.empty()) {
      g = b.create<FillOp>(p.getLoc(), readType, b.getF64FloatAttr(0.0));
    } else {
      // Contributions agree on layout, or are reduced to agree.
      LayoutAttr first = layoutOf(parts.front().getType());
      for (Value &part : parts)
        part = convertPartial(part, first, p.getLoc());
      g = sum(parts, p.getLoc());
    }
    results.push_back(g);
    gradOf.push_back(FlatSymbolRefAttr::get(p.getSymNameAttr()));
  }
  b.create<func::ReturnOp>(ret.getLoc(), results);
  ret.erase();
  if (failed(checkKeptValues(body, seed)))
    return failure();
  step.setType(FunctionType::get(module.getContext(), body.getArgumentTypes(),
                                 ValueRange(results).getTypes()));
  // All result attributes at once (one at a time copies the list each time).
  if (!gradOf.empty()) {
    SmallVector<DictionaryAttr> resultAttrs{step.getResultAttrDict(0)};
    auto gradOfName =
        b.getStringAttr(TfmDialect::GradOfAttrHelper::getNameStr());
    for (auto [i, g] : llvm::enumerate(gradOf)) {
      NamedAttrList attrs(step.getResultAttrDict(i + 1));
      attrs.set(gradOfName, g);
      resultAttrs.push_back(attrs.getDictionary(module.getContext()));
    }
    step.setAllResultAttrs(resultAttrs);
  }
  forward.erase();
  return success();
}

namespace {
struct TfmAutodiffPass
    : seqpar::tfm::impl::TfmAutodiffPassBase<TfmAutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef pass = "tfm-autodiff";
    FailureOr<Operation *> forward = TfmDialect::getMarkedFunction(
        module, TfmDialect::ForwardAttrHelper::getNameStr(), pass);
    FailureOr<Operation *> step = TfmDialect::getMarkedFunction(
        module, TfmDialect::TrainStepAttrHelper::getNameStr(), pass);
    if (failed(forward) || failed(step))
      return signalPassFailure();
    if (!*forward && *step) {
      cast<func::FuncOp>(*step).emitOpError()
          << "tfm-autodiff: the module is already differentiated (it has "
             "a function marked tfm.train_step and none marked tfm.forward)";
      return signalPassFailure();
    }
    if (!*forward) {
      module.emitError() << "tfm-autodiff: the module has no function marked "
                            "tfm.forward";
      return signalPassFailure();
    }
    if (failed(Autodiff(module, cast<func::FuncOp>(*forward)).run()))
      signalPassFailure();
  }
};
} // namespace
