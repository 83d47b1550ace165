//===- GradAccounting.cpp - every contribution reaches its update once ----===//
//
// An abstract interpretation of a train step along its dataflow. The
// abstract value of an SSA value is the set of gradient contributions
// (tfm-autodiff's `tfm.contributes` tags) it sums, each with a coefficient
// (how many times it is counted), the mesh axes over which it is still
// partial (each rank holds only its part) and those over which it has been
// summed. A tagged result starts as its contribution, counted once, partial
// where its layout is P. tfm.add adds the sets; a sum reduction over an axis
// sums the contributions partial there and multiplies the others by the
// axis size (summing a value already whole there counts it once per rank);
// layout-only and single-gradient elementwise ops (converts, scales, slices,
// gathers) keep the set; any other op reading a contribution makes its
// results unprovable. At the return each parameter's gradient must be the
// contributions of every use of the parameter and of the other members of
// its tie group, each counted once per micro-batch and partial nowhere.
// Mesh axes are told apart by their role, never by their name.
//
// A pipeline's stage functions are proven together, run in the order of
// their PipelineSchedule: a dist.recv on the pipeline axis holds what its
// matched send sent, a contribution is keyed by its tag and the stage whose
// function made it, and a parameter read on several stages expects the
// contributions of its uses in each of them.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Analysis/GradAccounting.h"
#include "seqpar/Dialect/Dist/Analysis/PipelineSchedule.h"
#include "seqpar/Dialect/Dist/Analysis/PlanFacts.h"
#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

namespace {
/// What the proof knows of one contribution in a value. Axes are bits:
/// bit i is the mesh's axis i.
struct Term {
  /// How many times the contribution is counted (saturates at INT64_MAX).
  int64_t coefficient = 1;
  /// Axes over which the contribution is still partial.
  uint64_t pending = 0;
  /// Axes over which it has been summed.
  uint64_t summed = 0;
  /// Axes over which it was summed while whole, and the last op that did.
  uint64_t recounted = 0;
  Operation *recountedAt = nullptr;
};

/// A contribution: the pipeline stage whose function made it (0 without
/// stages) and its tag.
using Key = std::pair<int64_t, StringAttr>;

/// The abstract value of an SSA value: its contributions (keyed by stage
/// and tag), or the op after which the proof cannot follow it.
struct Abstract {
  llvm::MapVector<Key, Term> terms;
  Operation *unprovable = nullptr;
  bool empty() const { return terms.empty() && !unprovable; }
};

class Prover {
public:
  Prover(ArrayRef<func::FuncOp> funcs, MeshOp mesh,
         const PipelineSchedule *schedule);
  LogicalResult run();

private:
  LogicalResult transfer(Operation *op);
  LogicalResult add(Operation *op, const Abstract &lhs, const Abstract &rhs,
                    Abstract &out);
  void reduce(Operation *op, StringRef axis, ReductionKind kind,
              const Abstract &in, Abstract &out);
  LogicalResult checkTieSum(Operation *op, Key a, const Term &ta, Key b,
                            const Term &tb);
  LogicalResult checkResults(func::FuncOp func);
  LogicalResult checkResult(func::ReturnOp ret, unsigned i,
                            FlatSymbolRefAttr param);

  /// Bit `i` for mesh axis `axis`; 0 for an unknown one.
  uint64_t bitOf(StringRef axis) const;
  uint64_t pendingOf(Value v) const;
  /// The pipeline stage of the function holding `op` (0 without stages).
  int64_t stageOf(Operation *op) const {
    return schedule ? schedule->stageOf(op) : 0;
  }
  /// "mesh axis 'tp' (role tensor, 2 ranks)" for the first axis of `bits`.
  std::string describeAxis(uint64_t bits) const;
  /// "use #1 of @wte" (" on pipeline stage 1" with stages).
  std::string describeUse(Key key) const;
  /// " on pipeline stage k" with stages, else nothing.
  std::string describeStage(int64_t stage) const;
  /// The parameter of contribution `key` and its tie group (or null).
  StringRef paramOf(Key key) const;
  StringAttr groupOf(StringRef param) const { return tieGroups.lookup(param); }

  /// The functions proven: one, or a pipeline's stages in stage order.
  SmallVector<func::FuncOp> funcs;
  const PipelineSchedule *schedule;
  mutable MeshOp mesh;
  SmallVector<StringRef> axes;
  /// The axes the gradients are summed over last, tie groups first: the
  /// data axis and, under a distributed optimizer (tfm.zero, which shards
  /// over it too), the context axis.
  uint64_t dataAxes = 0;
  llvm::StringMap<StringAttr> tieGroups;
  DenseMap<Value, Abstract> values;
};
} // namespace

bool dist::hasGradientRecord(func::FuncOp func) {
  return func->hasAttr(tfm::TfmDialect::GradUsesAttrHelper::getNameStr());
}

Prover::Prover(ArrayRef<func::FuncOp> funcs, MeshOp mesh,
               const PipelineSchedule *schedule)
    : funcs(funcs), schedule(schedule), mesh(mesh) {
  bool zero = llvm::any_of(funcs, [](func::FuncOp f) {
    return f->hasAttr(tfm::TfmDialect::ZeroAttrHelper::getNameStr());
  });
  if (mesh)
    for (auto [i, a] : llvm::enumerate(mesh.getAxisNames())) {
      axes.push_back(cast<StringAttr>(a).getValue());
      std::optional<AxisRole> role = mesh.getAxisRole(axes.back());
      if (role == AxisRole::data || (zero && role == AxisRole::context))
        dataAxes |= uint64_t(1) << i;
    }
  auto module = funcs.front()->getParentOfType<ModuleOp>();
  for (auto param : module.getOps<tfm::ParamOp>())
    if (StringAttr group = param.getTieGroupAttr())
      tieGroups[param.getSymName()] = group;
}

uint64_t Prover::bitOf(StringRef axis) const {
  for (auto [i, a] : llvm::enumerate(axes))
    if (a == axis)
      return uint64_t(1) << i;
  return 0;
}

uint64_t Prover::pendingOf(Value v) const {
  uint64_t bits = 0;
  for (auto [i, a] : llvm::enumerate(axes))
    if (shardingOf(v, a).isPartial())
      bits |= uint64_t(1) << i;
  return bits;
}

std::string Prover::describeAxis(uint64_t bits) const {
  unsigned i = llvm::countr_zero(bits);
  StringRef axis = axes[i];
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "mesh axis '" << axis << "' (";
  if (std::optional<AxisRole> role = mesh.getAxisRole(axis))
    os << "role " << stringifyAxisRole(*role) << ", ";
  os << *mesh.getAxisSize(axis) << " ranks)";
  return s;
}

std::string Prover::describeStage(int64_t stage) const {
  return schedule ? (" on pipeline stage " + Twine(stage)).str() : "";
}

std::string Prover::describeUse(Key key) const {
  std::optional<tfm::Contribution> c = tfm::parseContributionTag(key.second);
  return ("use #" + Twine(c->use) + " of @" + c->param).str() +
         describeStage(key.first);
}

StringRef Prover::paramOf(Key key) const {
  return tfm::parseContributionTag(key.second)->param;
}

/// Combining contributions of two members of a tie group after either was
/// summed over a data axis is Megatron-LM #844: the members' gradients are
/// summed first, then reduced once. So are the copies of one parameter on
/// two pipeline stages.
LogicalResult Prover::checkTieSum(Operation *op, Key a, const Term &ta, Key b,
                                  const Term &tb) {
  StringRef pa = paramOf(a), pb = paramOf(b);
  StringAttr group = groupOf(pa);
  bool copies = pa == pb && a.first != b.first;
  if (!copies && (pa == pb || !group || groupOf(pb) != group))
    return success();
  uint64_t reduced = (ta.summed | tb.summed) & dataAxes;
  if (!reduced)
    return success();
  StringRef axis = axes[llvm::countr_zero(reduced)];
  StringRef role =
      mesh.getAxisRole(axis) == AxisRole::context ? "context" : "data";
  if (copies)
    return op->emitOpError()
           << "adds the gradients of @" << pa << "'s copies on pipeline stages "
           << std::min(a.first, b.first) << " and "
           << std::max(a.first, b.first) << " after their reduction over "
           << role << " axis '" << axis << "' (" << *mesh.getAxisSize(axis)
           << " ranks) (Megatron-LM #844): exchange and add the stages' "
              "contributions first, then reduce once";
  return op->emitOpError()
         << "adds gradients of tie group '" << group.getValue()
         << "' after their reduction over " << role << " axis '" << axis
         << "' (" << *mesh.getAxisSize(axis)
         << " ranks) (Megatron-LM #844): sum the members' contributions "
            "first, then reduce once";
}

LogicalResult Prover::add(Operation *op, const Abstract &lhs,
                          const Abstract &rhs, Abstract &out) {
  if (lhs.unprovable || rhs.unprovable) {
    out.unprovable = lhs.unprovable ? lhs.unprovable : rhs.unprovable;
    return success();
  }
  if (!tieGroups.empty() || schedule)
    for (auto &[a, ta] : lhs.terms)
      for (auto &[b, tb] : rhs.terms)
        if (failed(checkTieSum(op, a, ta, b, tb)))
          return failure();
  out.terms = lhs.terms;
  for (auto &[tag, t] : rhs.terms) {
    auto [it, inserted] = out.terms.insert({tag, t});
    if (inserted)
      continue;
    Term &have = it->second;
    if (have.pending != t.pending)
      return op->emitOpError()
             << "adds the contribution of " << describeUse(tag)
             << " summed over " << describeAxis(have.pending ^ t.pending)
             << " to the same contribution not summed there: one value "
                "cannot mix reduced and unreduced gradients";
    have.coefficient =
        llvm::checkedAdd(have.coefficient, t.coefficient).value_or(INT64_MAX);
    have.summed |= t.summed;
    have.recounted |= t.recounted;
    if (t.recountedAt)
      have.recountedAt = t.recountedAt;
  }
  return success();
}

void Prover::reduce(Operation *op, StringRef axis, ReductionKind kind,
                    const Abstract &in, Abstract &out) {
  out = in;
  if (in.unprovable || in.terms.empty())
    return;
  uint64_t bit = bitOf(axis);
  if (!bit) {
    out.terms.clear();
    out.unprovable = op;
    return;
  }
  int64_t n = *mesh.getAxisSize(axis);
  for (auto &[tag, t] : out.terms) {
    if (kind != ReductionKind::sum) {
      // The max, min or mean of copies of a whole value is that value; of
      // a partial one it is no sum of the contributions.
      if (t.pending & bit) {
        out.terms.clear();
        out.unprovable = op;
        return;
      }
      continue;
    }
    if (t.pending & bit) {
      t.pending &= ~bit;
      t.summed |= bit;
      continue;
    }
    t.coefficient = llvm::checkedMul(t.coefficient, n).value_or(INT64_MAX);
    t.recounted |= bit;
    t.recountedAt = op;
  }
}

LogicalResult Prover::transfer(Operation *op) {
  auto get = [&](Value v) -> const Abstract & {
    static const Abstract none;
    auto it = values.find(v);
    return it == values.end() ? none : it->second;
  };
  auto set = [&](Value v, Abstract a) {
    if (!a.empty())
      values[v] = std::move(a);
  };
  // Any op whose results are contributions starts them.
  bool tagged =
      op->hasAttr(tfm::TfmDialect::ContributesAttrHelper::getNameStr());
  auto generic = [&]() {
    Operation *culprit = nullptr;
    for (Value v : op->getOperands()) {
      const Abstract &a = get(v);
      if (!a.empty()) {
        culprit = a.unprovable ? a.unprovable : op;
        break;
      }
    }
    for (OpResult r : op->getResults()) {
      if (StringAttr tag = tagged ? tfm::getContributionTag(r) : StringAttr()) {
        Abstract a;
        Term t;
        t.pending = pendingOf(r);
        a.terms.insert({{stageOf(op), tag}, t});
        set(r, std::move(a));
      } else if (culprit) {
        Abstract a;
        a.unprovable = culprit;
        set(r, std::move(a));
      }
    }
    return success();
  };
  if (tagged)
    return generic();
  // A micro-batch loop: its body once (a pipeline's schedule ran it
  // already), each result the yielded sum counted once per micro-batch.
  if (auto loop = dyn_cast<tfm::MicroBatchLoopOp>(op)) {
    Block &body = loop.getBody().front();
    for (Operation &inner : body.without_terminator())
      if (!schedule && failed(transfer(&inner)))
        return failure();
    int64_t m = loop.getMicroBatches();
    for (auto [r, v] :
         llvm::zip(loop.getResults(), body.getTerminator()->getOperands())) {
      Abstract a = get(v);
      for (auto &[tag, t] : a.terms)
        t.coefficient = llvm::checkedMul(t.coefficient, m).value_or(INT64_MAX);
      set(r, std::move(a));
    }
    return success();
  }
  // What a pipeline stage receives is what its peer sent.
  if (Operation *send = schedule ? schedule->sendOf(op) : nullptr;
      send && isa<RecvOp>(op)) {
    set(op->getResult(0), get(cast<SendOp>(send).getInput()));
    return success();
  }
  // The rest as the op declares (GradTransferOpInterface); an op without
  // the declaration is opaque.
  auto decl = dyn_cast<GradTransferOpInterface>(op);
  GradTransfer transfer = decl ? decl.getGradTransfer() : GradTransfer();
  switch (transfer.kind) {
  case GradTransfer::sum: {
    if (op->getNumOperands() != 2 || op->getNumResults() != 1)
      break;
    Abstract out;
    if (failed(add(op, get(op->getOperand(0)), get(op->getOperand(1)), out)))
      return failure();
    set(op->getResult(0), std::move(out));
    return success();
  }
  case GradTransfer::reduce:
    // Each operand is reduced into its result.
    for (auto [in, res] : llvm::zip(op->getOperands(), op->getResults())) {
      Abstract out;
      reduce(op, transfer.axis, transfer.reduction, get(in), out);
      set(res, std::move(out));
    }
    return success();
  case GradTransfer::same:
    // One gradient in, the same contributions out: its element type, scale
    // or layout changes.
    if (op->getNumOperands() != 1 || op->getNumResults() != 1)
      break;
    set(op->getResult(0), get(op->getOperand(0)));
    return success();
  case GradTransfer::opaque:
    break;
  }
  return generic();
}

LogicalResult Prover::checkResult(func::ReturnOp ret, unsigned i,
                                  FlatSymbolRefAttr param) {
  auto it = values.find(ret.getOperand(i));
  Abstract none;
  const Abstract &got = it == values.end() ? none : it->second;
  auto fail = [&]() {
    return ret.emitOpError()
           << "the gradient of " << param << " reaching its update ";
  };
  if (got.unprovable) {
    InFlightDiagnostic diag =
        fail() << "cannot be proven to be the sum of its contributions: '"
               << got.unprovable->getName()
               << "' combines gradient contributions in a way the proof does "
                  "not follow";
    diag.attachNote(got.unprovable->getLoc()) << "combined here";
    return diag;
  }
  // The expected contributions: those of the parameter and of every other
  // member of its tie group, in every stage's function reading them, each
  // use counted once per micro-batch.
  auto func = ret->getParentOfType<func::FuncOp>();
  int64_t self = stageOf(func);
  StringAttr group = groupOf(param.getValue());
  int64_t want = 1;
  if (auto m = func->getAttrOfType<IntegerAttr>(
          tfm::TfmDialect::MicroBatchesAttrHelper::getNameStr()))
    want = m.getInt();
  auto member = [&](StringRef p) {
    return p == param.getValue() || (group && groupOf(p) == group);
  };
  std::string inGroup =
      group ? (" (tie group '" + group.getValue() + "')").str() : "";
  for (auto &[tag, t] : got.terms)
    if (!member(paramOf(tag)))
      return fail() << "contains the contribution of " << describeUse(tag)
                    << ", another parameter's";
  for (func::FuncOp holder : funcs) {
    int64_t stage = stageOf(holder);
    auto uses = holder->getAttrOfType<DictionaryAttr>(
        tfm::TfmDialect::GradUsesAttrHelper::getNameStr());
    for (NamedAttribute u : uses) {
      StringRef p = u.getName().getValue();
      if (!member(p))
        continue;
      int64_t n = cast<IntegerAttr>(u.getValue()).getInt();
      SmallVector<int64_t> missing;
      for (int64_t k = 0; k < n; ++k)
        if (!got.terms.count(
                {stage, tfm::makeContributionTag(ret.getContext(), p, k)}))
          missing.push_back(k);
      if (missing.empty())
        continue;
      if (int64_t(missing.size()) == n &&
          (p != param.getValue() || stage != self))
        return fail() << "misses the contribution of @" << p
                      << describeStage(stage) << inGroup;
      return fail() << "misses the contribution of use #" << missing.front()
                    << " of @" << p << describeStage(stage) << inGroup;
    }
  }
  for (auto &[tag, t] : got.terms)
    if (t.pending)
      return fail() << "is not summed over " << describeAxis(t.pending)
                    << ": each rank holds only its contribution (GPT-NeoX "
                       "#1257); all-reduce it over '"
                    << axes[llvm::countr_zero(t.pending)]
                    << "' first (sp-sync-grads)";
  for (auto &[tag, t] : got.terms) {
    if (t.coefficient == want)
      continue;
    if (t.recounted) {
      InFlightDiagnostic diag =
          fail() << "counts the contribution of " << describeUse(tag) << " "
                 << t.coefficient << " times over " << describeAxis(t.recounted)
                 << ": it is summed there where it is already "
                    "whole";
      diag.attachNote(t.recountedAt->getLoc()) << "summed again here";
      return diag;
    }
    InFlightDiagnostic diag = fail() << "counts the contribution of "
                                     << describeUse(tag) << " " << t.coefficient
                                     << " times, expected " << want;
    if (want != 1)
      diag << " (one per micro-batch)";
    return diag;
  }
  return success();
}

LogicalResult Prover::run() {
  if (schedule) {
    if (failed(schedule->run([&](Operation *op) { return transfer(op); })))
      return failure();
  } else {
    for (Block &block : funcs.front().getBody())
      for (Operation &op : block)
        if (failed(transfer(&op)))
          return failure();
  }
  for (func::FuncOp func : funcs)
    if (failed(checkResults(func)))
      return failure();
  return success();
}

LogicalResult Prover::checkResults(func::FuncOp func) {
  for (Block &block : func.getBody()) {
    auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
    if (!ret)
      continue;
    for (unsigned i = 0; i < ret.getNumOperands(); ++i)
      if (auto param = func.getResultAttrOfType<FlatSymbolRefAttr>(
              i, tfm::TfmDialect::GradOfAttrHelper::getNameStr()))
        if (failed(checkResult(ret, i, param)))
          return failure();
  }
  return success();
}

LogicalResult dist::proveGradientAccounting(func::FuncOp func, MeshOp mesh) {
  return Prover(func, mesh, nullptr).run();
}

LogicalResult dist::proveGradientAccounting(ArrayRef<func::FuncOp> stages,
                                            MeshOp mesh,
                                            const PipelineSchedule &schedule) {
  return Prover(stages, mesh, &schedule).run();
}
