//===- Autodiff.cpp - reverse mode over the partitioned forward -----------===//
//
// Builds `@train_step(input_ids, labels) -> (loss, grad...)` from
// `@forward`: the forward ops, then the backward of each in reverse order,
// and one gradient per parameter (in declaration order, each result marked
// `tfm.grad_of = @param`). A forward split into pipeline stages (sp-pipeline)
// gives one `@train_step_stage<k>` per stage function, with a gradient for
// each parameter that stage reads; the backward of a `dist.send` receives
// its operand's gradient and that of a `dist.recv` sends its result's
// (DistBackward.cpp).
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
// What each op's backward is belongs to the op (DifferentiableOpInterface:
// tfm's ops in TfmBackward.cpp, the transposes of dist collectives in
// DistBackward.cpp); this pass provides the BackwardContext they build
// through and keeps the policy above.
//
//===----------------------------------------------------------------------===//

#include "AutodiffChecks.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

namespace seqpar::tfm {
#define GEN_PASS_DEF_TFMAUTODIFFPASS
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace seqpar::tfm

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

/// The loss scale a loss-scaled step uses when the runtime is given none
/// (torch.cuda.amp.GradScaler's init_scale, 2^16).
static constexpr double kDefaultLossScale = 65536.0;

namespace {
class Autodiff final : public BackwardContext {
public:
  /// `mesh` is the module's (dist::getMesh), null for one device.
  Autodiff(ModuleOp module, func::FuncOp forward, MeshOp mesh)
      : module(module), forward(forward), b(module.getContext()),
        staged(forward->hasAttr(
            TfmDialect::PipelineStageAttrHelper::getNameStr())) {
    if (!mesh)
      return;
    for (Attribute a : mesh.getAxisNames())
      axes.push_back(cast<StringAttr>(a).getValue().str());
    meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  }

  LogicalResult run();

  // BackwardContext, for the ops' backward rules.
  OpBuilder &getBuilder() override { return b; }
  /// The type of the gradient of a value of type `t`: P becomes R.
  RankedTensorType gradType(Type t) const override;
  /// `t` with P on every axis where `tokens` (a value split along some of
  /// its non-feature dimensions) is split: a sum over local tokens.
  RankedTensorType partialOverTokens(RankedTensorType t, Value tokens,
                                     int64_t featureDim) const override;
  /// `t` with P on every axis where `w` is split on `contracted`.
  RankedTensorType partialWhereSplit(RankedTensorType t, Value w,
                                     int64_t contracted) const override;
  void contribute(Value v, Value g) override;
  /// The complete gradient of `v` in gradType(v), or null if v has none.
  Value gradient(Value v) override;
  /// The complete gradient of `v`, or zeros.
  Value gradientOrZeros(Value v) override;
  SmallVector<Value, 2> getContributions(Value v) override {
    return cotangents.lookup(v);
  }
  Value sum(ArrayRef<Value> values, Location loc) override;
  /// An all-gathered value is kept as its shard: its gather is repeated
  /// (once per forward gather).
  Value reread(Value v) override;

private:
  // Layout helpers.
  /// The layout of `t`; an unannotated type's names the module's mesh.
  LayoutAttr layoutOf(Type t) const { return LayoutAttr::ofType(t, meshRef); }
  RankedTensorType withLayout(RankedTensorType t, LayoutAttr l) const {
    Attribute enc = l.getAxes().empty() ? Attribute() : l;
    return RankedTensorType::get(t.getShape(), t.getElementType(), enc);
  }

  Value convertPartial(Value g, LayoutAttr target, Location loc);

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
  /// Whether `forward` is a pipeline stage: its step is named after the
  /// stage and has gradients for the parameters it reads only.
  bool staged;
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

Value Autodiff::reread(Value v) {
  auto gather = v.getDefiningOp<AllGatherOp>();
  if (!gather)
    return v;
  Value &again = regathered[gather];
  if (!again)
    again = b.clone(*gather)->getResult(0);
  return again;
}

/// Whether the transposes of dist collectives (external models, attached by
/// seqpar::registerAllDialects) are registered in `ctx`.
static bool hasDistTransposes(MLIRContext *ctx) {
  std::optional<RegisteredOperationName> gather =
      RegisteredOperationName::lookup(AllGatherOp::getOperationName(), ctx);
  return gather && gather->hasInterface<DifferentiableOpInterface>();
}

LogicalResult Autodiff::backward(Operation *op) {
  // Ops none of whose results received a gradient contribute nothing, and
  // ops without operands (a stage's zero loss) have nothing to propagate to.
  // Pipeline transfers always have a backward: a send's (no result) receives
  // its operand's gradient, and every recv sends one back (zeros if none),
  // so each send of the backward keeps its recv.
  if (!isa<SendOp, RecvOp>(op) &&
      (op->getNumOperands() == 0 ||
       llvm::none_of(op->getResults(),
                     [&](Value r) { return cotangents.count(r); })))
    return success();
  if (auto rule = dyn_cast<DifferentiableOpInterface>(op))
    return rule.buildBackward(*this);
  // A context built without registerAllDialects lacks the dist transposes:
  // say so rather than blame the op.
  if (isa<DistDialect>(op->getDialect()) &&
      !hasDistTransposes(op->getContext()))
    return op->emitOpError()
           << "has no gradient rule in tfm-autodiff: the transposes of dist "
              "collectives are not registered in this context (build it with "
              "seqpar::registerAllDialects)";
  return op->emitOpError() << "has no gradient rule in tfm-autodiff";
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
  std::string name = "train_step";
  if (staged)
    name += "_stage" + std::to_string(TfmDialect::getPipelineStage(forward));
  step.setSymName(name);
  step->removeAttr(TfmDialect::ForwardAttrHelper::getNameStr());
  step->setAttr(TfmDialect::TrainStepAttrHelper::getNameStr(), b.getUnitAttr());
  Block &body = step.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Value loss = ret.getOperand(0);
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);

  b.setInsertionPoint(ret);
  // A loss-scaled backward (fp16) starts from the step's loss scale.
  Value lossScale;
  if (module->hasAttr(TfmDialect::LossScalingAttrHelper::getNameStr()))
    lossScale = b.create<HyperparameterOp>(loss.getLoc(),
                                           HyperparameterKind::loss_scale,
                                           APFloat(kDefaultLossScale));
  auto seed = b.create<FillOp>(loss.getLoc(), gradType(loss.getType()),
                               b.getF64FloatAttr(1.0), lossScale);
  seed->setAttr(TfmDialect::BackwardBeginsAttrHelper::getNameStr(),
                b.getUnitAttr());
  contribute(loss, seed);
  for (Operation *op : llvm::reverse(ops))
    if (failed(backward(op)))
      return failure();

  // Each contribution to a parameter read is tagged with the parameter and
  // its use index (in body order) and the uses are counted per parameter:
  // sp-verify proves that each reaches the gradient exactly once.
  llvm::MapVector<StringAttr, unsigned> uses;
  DenseSet<Value> tagged;
  for (auto get : body.getOps<GetParamOp>()) {
    StringAttr name = get.getNameAttr().getAttr();
    uses.insert({name, 0});
    auto it = cotangents.find(get.getResult());
    if (it == cotangents.end())
      continue;
    for (Value &part : it->second) {
      // One value delivered to two uses is two contributions: a copy.
      if (!isa<OpResult>(part) || !tagged.insert(part).second)
        part = b.create<ScaleOp>(part.getLoc(), part, b.getF64FloatAttr(1.0));
      setContributionTag(
          cast<OpResult>(part),
          makeContributionTag(b.getContext(), name, uses[name]++));
    }
  }
  SmallVector<NamedAttribute> useCounts;
  for (auto [name, n] : uses)
    useCounts.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(n)));
  step->setAttr(TfmDialect::GradUsesAttrHelper::getNameStr(),
                b.getDictionaryAttr(useCounts));

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
    // A pipeline stage has the gradients of the parameters it reads (the
    // pass checks that each parameter is read on some stage).
    if (!readType && staged)
      continue;
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

/// The functions marked `marker`: one per pipeline stage when they carry
/// stages (getMarkedFunctions), else at most one (getMarkedFunction, whose
/// diagnostic names a second one).
static FailureOr<SmallVector<Operation *>> markedFunctions(ModuleOp module,
                                                           StringRef marker) {
  StringRef pass = "tfm-autodiff";
  bool staged = llvm::any_of(module.getOps<func::FuncOp>(), [&](auto fn) {
    return fn->hasAttr(marker) &&
           fn->hasAttr(TfmDialect::PipelineStagesAttrHelper::getNameStr());
  });
  if (staged)
    return TfmDialect::getMarkedFunctions(module, marker, pass);
  FailureOr<Operation *> one =
      TfmDialect::getMarkedFunction(module, marker, pass);
  if (failed(one))
    return failure();
  SmallVector<Operation *> found;
  if (*one)
    found.push_back(*one);
  return found;
}

namespace {
struct TfmAutodiffPass
    : seqpar::tfm::impl::TfmAutodiffPassBase<TfmAutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SmallVector<Operation *>> forwards =
        markedFunctions(module, TfmDialect::ForwardAttrHelper::getNameStr());
    FailureOr<SmallVector<Operation *>> steps =
        markedFunctions(module, TfmDialect::TrainStepAttrHelper::getNameStr());
    if (failed(forwards) || failed(steps))
      return signalPassFailure();
    if (forwards->empty() && !steps->empty()) {
      cast<func::FuncOp>(steps->front()).emitOpError()
          << "tfm-autodiff: the module is already differentiated (it has "
             "a function marked tfm.train_step and none marked tfm.forward)";
      return signalPassFailure();
    }
    if (forwards->empty()) {
      module.emitError() << "tfm-autodiff: the module has no function marked "
                            "tfm.forward";
      return signalPassFailure();
    }
    if (failed(checkEveryParameterRead(module, *forwards)))
      return signalPassFailure();
    FailureOr<MeshOp> mesh = getMesh(module);
    if (failed(mesh))
      return signalPassFailure();
    for (Operation *forward : *forwards)
      if (failed(Autodiff(module, cast<func::FuncOp>(forward), *mesh).run()))
        return signalPassFailure();
  }
};
} // namespace
