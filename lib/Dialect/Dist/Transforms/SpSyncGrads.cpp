//===- SpSyncGrads.cpp - reduce gradients as their layouts require --------===//

#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPSYNCGRADSPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// The element type gradient `g` is reduced in: `bf16` (when given) for an
/// f32 gradient, else its own.
static Type reducedType(Value g, Type bf16) {
  Type t = cast<RankedTensorType>(g.getType()).getElementType();
  return bf16 && t.isF32() ? bf16 : t;
}

/// The bytes of gradient `g` reduced in `type` (its op verified that its
/// own bytes fit in int64; bf16 ones are at most as many).
static int64_t bytesOf(Value g, Type type) {
  return *checkedByteSize(cast<RankedTensorType>(g.getType()).clone(type));
}

/// Whether `g`'s first dimension divides into `n` slices.
static bool divides(Value g, int64_t n) {
  auto t = cast<RankedTensorType>(g.getType());
  return t.getRank() >= 1 && t.getDimSize(0) % n == 0;
}

/// The ranks of `axes` together.
static int64_t ranksOf(MeshOp mesh, ArrayRef<StringRef> axes) {
  int64_t n = 1;
  for (StringRef a : axes)
    n *= *mesh.getAxisSize(a);
  return n;
}

/// "'dp'", or "'dp' x 'cp'".
static std::string axesText(ArrayRef<StringRef> axes) {
  std::string text;
  for (StringRef a : axes)
    text += (text.empty() ? "'" : " x '") + a.str() + "'";
  return text;
}

/// The axes a distributed optimizer over `zeroAxes` (mesh order: its data
/// axis, then its context axis) slices gradient `g` over, nested in that
/// order (the first outermost): every one of them `g` is partial over when
/// its first dimension divides by their ranks together; else the data axis
/// alone (`data`, when `g` is partial there and it divides); else none.
static SmallVector<StringRef, 2> sliceAxes(Value g, MeshOp mesh,
                                           ArrayRef<StringRef> zeroAxes,
                                           std::optional<StringRef> data) {
  SmallVector<StringRef, 2> axes;
  for (StringRef a : zeroAxes)
    if (shardingOf(g, a).isPartial())
      axes.push_back(a);
  if (axes.empty() || divides(g, ranksOf(mesh, axes)))
    return axes;
  if (data && llvm::is_contained(axes, *data) &&
      divides(g, *mesh.getAxisSize(*data)))
    return {*data};
  return {};
}

/// `g` as a tensor of `reduced` elements for its reduction: `g` itself when
/// it has them; the operand of the `tfm.convert` that widened it from them
/// (bf16 -> f32 is exact, so narrowing it back gives that operand: a
/// gradient reduced in bf16 over tp, then over dp, is not converted twice);
/// else a new `tfm.convert` (f32 -> bf16 rounds to nearest even).
static Value narrowed(OpBuilder &b, Location loc, Value g, Type reduced) {
  auto t = cast<RankedTensorType>(g.getType());
  if (t.getElementType() == reduced)
    return g;
  auto widened = g.getDefiningOp<tfm::ConvertOp>();
  if (widened && widened.getInput().getType().getElementType() == reduced)
    return widened.getInput();
  return b.create<tfm::ConvertOp>(loc, t.clone(reduced), g);
}

/// Reduces, over `axis`, the gradients that are partial there and that
/// `take` accepts (by result index), in buckets of at most `bucketBytes` (as
/// reduced): all-reduced, or with `scatter` reduce-scattered along their
/// first dimension. With `bf16`, f32 gradients are converted to bf16 before
/// the reduction and back to f32 after it.
static void reduceOver(func::ReturnOp ret, MeshOp mesh, StringRef axis,
                       int64_t bucketBytes, bool scatter, Type bf16,
                       function_ref<bool(unsigned)> take) {
  OpBuilder b(ret);
  SmallVector<unsigned> pending;
  DenseSet<Value> pendingValues;
  int64_t bytes = 0;
  // The results each value is returned as, in order (one lookup per reduced
  // value, where scanning the results for each was quadratic).
  DenseMap<Value, SmallVector<unsigned, 1>> resultsOf;
  for (OpOperand &use : ret->getOpOperands())
    resultsOf[use.get()].push_back(use.getOperandNumber());
  auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  auto flush = [&]() {
    if (pending.empty())
      return;
    SmallVector<Value> inputs, operands;
    SmallVector<Type> types;
    for (unsigned i : pending) {
      Value g = ret.getOperand(i);
      inputs.push_back(g);
      auto t = cast<RankedTensorType>(g.getType());
      Type reduced = reducedType(g, bf16);
      operands.push_back(narrowed(b, ret.getLoc(), g, reduced));
      LayoutAttr l =
          LayoutAttr::ofType(g.getType(), meshRef).with(axis, Sharding());
      types.push_back(RankedTensorType::get(
          t.getShape(), reduced,
          l.getAxes().empty() ? Attribute() : Attribute(l)));
    }
    Operation *reduce;
    if (scatter) {
      int64_t n = *mesh.getAxisSize(axis);
      for (auto [t, in] : llvm::zip(types, inputs)) {
        auto rt = cast<RankedTensorType>(t);
        SmallVector<int64_t> shape(rt.getShape());
        shape[0] /= n;
        LayoutAttr l = LayoutAttr::ofType(in.getType(), meshRef)
                           .with(axis, Sharding::split(0));
        t = RankedTensorType::get(shape, rt.getElementType(), l);
      }
      reduce = b.create<ReduceScatterCoalescedOp>(
          ret.getLoc(), types, operands, meshRef, b.getStringAttr(axis));
    } else {
      reduce = b.create<AllReduceCoalescedOp>(
          ret.getLoc(), types, operands, meshRef, b.getStringAttr(axis),
          ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
    }
    // A value returned for several parameters (a tie group) is reduced once.
    for (auto [in, reducedValue] : llvm::zip(inputs, reduce->getResults())) {
      Value r = reducedValue;
      Type original = cast<RankedTensorType>(in.getType()).getElementType();
      if (original != reducedType(in, bf16))
        r = b.create<tfm::ConvertOp>(
            ret.getLoc(), cast<RankedTensorType>(r.getType()).clone(original),
            r);
      SmallVector<unsigned, 1> results = resultsOf.lookup(in);
      for (unsigned j : results)
        ret->setOperand(j, r);
      resultsOf.erase(in);
      resultsOf[r] = std::move(results);
      // A widening convert that only the results read is dead now; the
      // gradient contribution it was (tfm.contributes) is its input's.
      if (in != r && in.use_empty())
        if (auto widened = in.getDefiningOp<tfm::ConvertOp>()) {
          auto input = dyn_cast<OpResult>(widened.getInput());
          StringAttr tag = tfm::getContributionTag(widened->getResult(0));
          if (tag && input && !tfm::getContributionTag(input))
            tfm::setContributionTag(input, tag);
          widened->erase();
        }
    }
    pending.clear();
    pendingValues.clear();
    bytes = 0;
  };
  auto func = ret->getParentOfType<func::FuncOp>();
  for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
    if (!func.getResultAttr(i, tfm::TfmDialect::GradOfAttrHelper::getNameStr()))
      continue;
    Value g = ret.getOperand(i);
    if (!take(i))
      continue;
    if (!shardingOf(g, axis).isPartial() || pendingValues.contains(g))
      continue;
    // A bucket whose bytes would pass int64 is full too.
    std::optional<int64_t> more =
        llvm::checkedAdd<int64_t>(bytes, bytesOf(g, reducedType(g, bf16)));
    if (!pending.empty() && (!more || *more > bucketBytes))
      flush();
    pending.push_back(i);
    pendingValues.insert(g);
    bytes += bytesOf(g, reducedType(g, bf16));
  }
  flush();
}

/// ZeRO-1 over `zeroAxes`: warns, in one diagnostic at the step per kind
/// (each parameter named once per module), of the parameters whose partial
/// gradient cannot be sliced over all of them (its first dimension does not
/// divide by their ranks together; `slices` gives each result's axes): those
/// sliced over the data axis alone keep their optimizer state (and a
/// low-precision model's f32 master) replicated over the others, those
/// sliced over none all-reduce their gradients and keep it whole on every
/// rank, which costs the memory the user asked ZeRO to save.
static void
warnUnshardable(func::ReturnOp ret, MeshOp mesh, ArrayRef<StringRef> zeroAxes,
                const DenseMap<unsigned, SmallVector<StringRef, 2>> &slices,
                DenseSet<Attribute> &warned) {
  auto func = ret->getParentOfType<func::FuncOp>();
  // Parameters sliced over some of the axes (the data axis alone), and over
  // none.
  SmallVector<std::string> some, none;
  SmallVector<StringRef, 2> someAxes;
  for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
    auto param = func.getResultAttrOfType<FlatSymbolRefAttr>(
        i, tfm::TfmDialect::GradOfAttrHelper::getNameStr());
    Value g = ret.getOperand(i);
    auto partial = llvm::count_if(
        zeroAxes, [&](StringRef a) { return shardingOf(g, a).isPartial(); });
    if (!param || partial == 0 || int64_t(slices.lookup(i).size()) == partial ||
        !warned.insert(param).second)
      continue;
    auto t = cast<RankedTensorType>(g.getType());
    std::string entry = "@" + param.getValue().str() + " (" +
                        (t.getRank() ? std::to_string(t.getDimSize(0))
                                     : std::string("a scalar")) +
                        ")";
    SmallVector<StringRef, 2> axes = slices.lookup(i);
    if (axes.empty()) {
      none.push_back(entry);
    } else {
      some.push_back(entry);
      someAxes = axes;
    }
  }
  constexpr size_t shown = 4;
  auto list = [&](InFlightDiagnostic &diag, ArrayRef<std::string> found) {
    llvm::interleaveComma(found.take_front(shown), diag);
    if (found.size() > shown)
      diag << " and " << found.size() - shown << " more";
  };
  auto parameters = [](size_t n) {
    return std::to_string(n) + " parameter" + (n == 1 ? "" : "s");
  };
  int64_t all = ranksOf(mesh, zeroAxes);
  if (!some.empty()) {
    SmallVector<StringRef, 2> rest;
    for (StringRef a : zeroAxes)
      if (!llvm::is_contained(someAxes, a))
        rest.push_back(a);
    InFlightDiagnostic diag =
        func.emitWarning()
        << "sp-sync-grads: ZeRO-1 shards " << parameters(some.size())
        << " over " << axesText(someAxes) << " (" << ranksOf(mesh, someAxes)
        << " ranks) only, not over " << axesText(zeroAxes) << " (" << all
        << " ranks), whose first dimension does not divide by " << all << ": ";
    list(diag, some);
    diag << "; their gradients are all-reduced over " << axesText(rest)
         << " and their optimizer state and master weights are replicated "
            "over it";
  }
  if (!none.empty()) {
    InFlightDiagnostic diag = func.emitWarning()
                              << "sp-sync-grads: ZeRO-1 cannot shard "
                              << parameters(none.size()) << " over "
                              << axesText(zeroAxes) << " (" << all
                              << " ranks), whose first dimension does not "
                                 "divide by it: ";
    list(diag, none);
    diag << "; their gradients are all-reduced and their optimizer state and "
            "master weights stay whole on every rank of the "
         << (zeroAxes.size() > 1 ? "axes" : "axis");
  }
}

/// The key of the copies of one weight: its tie group, else its symbol.
static StringRef weightOf(SymbolTable &symbols, FlatSymbolRefAttr param) {
  auto decl = symbols.lookup<tfm::ParamOp>(param.getValue());
  return decl && decl.getTieGroup() ? *decl.getTieGroup() : param.getValue();
}

/// Pipeline parallelism: a weight whose gradient several stages return (a
/// parameter, or tie group, read on several stages) gets the sum of their
/// contributions on each of them. Each holding stage exchanges its
/// contribution with the others holding it, pairwise in stage order
/// (dist.send then dist.recv on the pipeline axis, offset = other stage -
/// this stage), and adds them all in stage order, so
/// that every copy computes the bitwise-same sum; this comes before any
/// reduction over the other axes. Then each stage all-reduces its loss
/// (the stages before the last contribute zero) over the pipeline axis.
static void exchangeCopies(MutableArrayRef<func::FuncOp> stages, MeshOp mesh,
                           StringRef axis) {
  auto module = mesh->getParentOfType<ModuleOp>();
  SymbolTable symbols(module);
  auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  auto gradOf = [](func::FuncOp f, unsigned i) {
    return f.getResultAttrOfType<FlatSymbolRefAttr>(
        i, tfm::TfmDialect::GradOfAttrHelper::getNameStr());
  };
  // Weight -> the stages returning its gradient, in stage order.
  llvm::MapVector<StringRef, SmallVector<int64_t>> holders;
  for (auto param : module.getOps<tfm::ParamOp>())
    holders[param.getTieGroup() ? *param.getTieGroup() : param.getSymName()];
  for (auto [k, f] : llvm::enumerate(stages))
    for (unsigned i = 0; i < f.getNumResults(); ++i)
      if (FlatSymbolRefAttr p = gradOf(f, i)) {
        SmallVector<int64_t> &h = holders[weightOf(symbols, p)];
        if (h.empty() || h.back() != int64_t(k))
          h.push_back(k);
      }
  for (auto &[weight, held] : holders) {
    if (held.size() < 2)
      continue;
    // Each holding stage's contribution, and the results it goes to.
    SmallVector<Value> mine(stages.size());
    SmallVector<SmallVector<unsigned>> results(stages.size());
    for (int64_t k : held) {
      func::FuncOp f = stages[k];
      auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());
      for (unsigned i = 0; i < f.getNumResults(); ++i)
        if (FlatSymbolRefAttr p = gradOf(f, i);
            p && weightOf(symbols, p) == weight) {
          results[k].push_back(i);
          if (!mine[k])
            mine[k] = ret.getOperand(i);
        }
    }
    for (int64_t k : held) {
      auto ret =
          cast<func::ReturnOp>(stages[k].getBody().front().getTerminator());
      OpBuilder b(ret);
      Location loc = ret.getLoc();
      // Pairwise, in stage order: the send to j, then the recv from j. Every
      // holder meets its partners in the order of the pairs (lower stage,
      // higher stage), so no exchange waits on one queued behind it (all
      // sends first, then the recvs one by one, deadlocks three holders
      // where a send waits for its recv, as NCCL's may).
      SmallVector<Value> parts(held.size());
      for (auto [i, j] : llvm::enumerate(held)) {
        if (j == k) {
          parts[i] = mine[k];
          continue;
        }
        b.create<SendOp>(loc, mine[k], meshRef, b.getStringAttr(axis),
                         b.getI64IntegerAttr(j - k));
        parts[i] =
            b.create<RecvOp>(loc, mine[k].getType(), meshRef,
                             b.getStringAttr(axis), b.getI64IntegerAttr(j - k));
      }
      // Summed in stage order, the same on every holder.
      Value sum;
      for (Value v : parts)
        sum = sum ? b.create<tfm::AddOp>(loc, sum, v).getResult() : v;
      for (unsigned i : results[k])
        ret->setOperand(i, sum);
    }
  }
}

/// Each pipeline stage's loss (result #0), summed over the pipeline axis.
static void reduceLoss(func::FuncOp f, MeshOp mesh, StringRef axis) {
  auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());
  if (ret.getNumOperands() == 0 ||
      f.getResultAttr(0, tfm::TfmDialect::GradOfAttrHelper::getNameStr()))
    return;
  OpBuilder b(ret);
  Value loss = ret.getOperand(0);
  ret->setOperand(
      0,
      b.create<AllReduceOp>(
          ret.getLoc(), loss.getType(), loss,
          FlatSymbolRefAttr::get(mesh.getSymNameAttr()), b.getStringAttr(axis),
          ReductionKindAttr::get(b.getContext(), ReductionKind::sum)));
}

namespace {
struct SpSyncGradsPass : dist::impl::SpSyncGradsPassBase<SpSyncGradsPass> {
  using SpSyncGradsPassBase::SpSyncGradsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<MeshOp> found = getMesh(module);
    if (failed(found))
      return signalPassFailure();
    MeshOp mesh = *found;
    if (!mesh)
      return; // one rank: nothing to reduce
    if (zero != 0 && zero != 1) {
      module.emitError() << "sp-sync-grads: zero must be 0 or 1, got "
                         << static_cast<int64_t>(zero);
      return signalPassFailure();
    }
    Type bf16;
    if (gradReduceDtype == GradReduceDtype::bf16)
      bf16 = Builder(module.getContext()).getBF16Type();
    FailureOr<SmallVector<Operation *>> steps =
        tfm::TfmDialect::getMarkedFunctions(
            module, tfm::TfmDialect::TrainStepAttrHelper::getNameStr(),
            "sp-sync-grads");
    if (failed(steps))
      return signalPassFailure();
    SmallVector<func::FuncOp> stages;
    for (Operation *op : *steps)
      stages.push_back(cast<func::FuncOp>(op));
    std::optional<StringRef> pipeline =
        mesh.getAxisWithRole(AxisRole::pipeline);
    if (stages.size() > 1) {
      if (!pipeline) {
        stages[0].emitOpError()
            << "sp-sync-grads: one of " << stages.size()
            << " pipeline stages, but mesh @" << mesh.getSymName()
            << " has no axis with role pipeline";
        return signalPassFailure();
      }
      exchangeCopies(stages, mesh, *pipeline);
    }
    // Model-parallel axes first, data parallelism last. A distributed
    // optimizer (ZeRO-1) shards over the data and context axes together
    // (Megatron's data-parallel group with context parallelism): those are
    // reduced last, in mesh order, each gradient reduce-scattered over the
    // axes that slice it (sliceAxes), nested in that order.
    std::optional<StringRef> data = mesh.getAxisWithRole(AxisRole::data);
    std::optional<StringRef> context = mesh.getAxisWithRole(AxisRole::context);
    SmallVector<StringRef> zeroAxes, order;
    for (Attribute a : mesh.getAxisNames()) {
      StringRef name = cast<StringAttr>(a).getValue();
      if (zero == 1 && (name == data || name == context))
        zeroAxes.push_back(name);
      else if (name != data)
        order.push_back(name);
    }
    if (zero != 1 && data)
      order.push_back(*data);
    order.append(zeroAxes);
    DenseSet<Attribute> warned;
    module.walk([&](func::ReturnOp ret) {
      // An evaluation step (tfm-eval-step) returns no gradients.
      if (ret->getParentOp()->hasAttr(
              tfm::TfmDialect::EvalStepAttrHelper::getNameStr()))
        return;
      auto func = ret->getParentOfType<func::FuncOp>();
      // Each gradient's slicing, from its layouts before any reduction.
      DenseMap<unsigned, SmallVector<StringRef, 2>> slices;
      if (!zeroAxes.empty()) {
        for (unsigned i = 0; i < ret.getNumOperands(); ++i)
          if (func.getResultAttr(
                  i, tfm::TfmDialect::GradOfAttrHelper::getNameStr()))
            slices[i] = sliceAxes(ret.getOperand(i), mesh, zeroAxes, data);
        warnUnshardable(ret, mesh, zeroAxes, slices, warned);
      }
      for (StringRef axis : order) {
        auto slicedHere = [&](unsigned i) {
          return llvm::is_contained(slices.lookup(i), axis);
        };
        if (llvm::is_contained(zeroAxes, axis))
          reduceOver(ret, mesh, axis, bucketBytes, /*scatter=*/true, bf16,
                     slicedHere);
        reduceOver(ret, mesh, axis, bucketBytes, /*scatter=*/false, bf16,
                   [&](unsigned i) { return !slicedHere(i); });
      }
      if (!zeroAxes.empty())
        func->setAttr(tfm::TfmDialect::ZeroAttrHelper::getNameStr(),
                      UnitAttr::get(ret.getContext()));
    });
    if (stages.size() > 1)
      for (func::FuncOp f : stages)
        reduceLoss(f, mesh, *pipeline);
    // The function's result types follow the reduced gradients.
    module.walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
      func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                     ret.getOperandTypes()));
    });
  }
};
} // namespace
