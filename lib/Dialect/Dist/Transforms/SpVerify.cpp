//===- SpVerify.cpp - recompute and check every layout --------------------===//

#include "seqpar/Dialect/Dist/Analysis/BufferPlan.h"
#include "seqpar/Dialect/Dist/Analysis/GradAccounting.h"
#include "seqpar/Dialect/Dist/Analysis/PipelineSchedule.h"
#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPVERIFYPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// The local size of dimension `d` of a global shape on `mesh`.
static int64_t localSize(LayoutAttr layout, MeshOp mesh, int64_t d,
                         int64_t global) {
  for (auto [i, axis] : llvm::enumerate(layout.getAxes())) {
    Sharding s = layout.getSharding(i);
    if (s.isSplit() && s.dim == d)
      global /= *mesh.getAxisSize(axis.getValue());
  }
  return global;
}

static LogicalResult verifyParamShard(tfm::GetParamOp op, MeshOp mesh,
                                      SymbolTableCollection &symbols) {
  auto param =
      symbols.lookupNearestSymbolFrom<tfm::ParamOp>(op, op.getNameAttr());
  auto global = cast<RankedTensorType>(param.getType());
  LayoutAttr layout = LayoutAttr::fromType(global);
  if (!layout)
    return success();
  for (auto [i, axis] : llvm::enumerate(layout.getAxes())) {
    Sharding s = layout.getSharding(i);
    int64_t n = *mesh.getAxisSize(axis.getValue());
    // n * blocks beyond int64 exceeds every dimension: it cannot divide one.
    std::optional<int64_t> parts = llvm::checkedMul<int64_t>(n, s.blocks);
    if (s.isSplit() && (!parts || global.getDimSize(s.dim) % *parts != 0))
      return param.emitOpError()
             << "dimension " << s.dim << " (" << global.getDimSize(s.dim)
             << ") cannot be split into " << s.blocks << " block(s) over " << n
             << " ranks of mesh axis '" << axis.getValue() << "'";
  }
  RankedTensorType local = op.getResult().getType();
  for (int64_t d = 0; d < global.getRank(); ++d) {
    int64_t want = localSize(layout, mesh, d, global.getDimSize(d));
    if (local.getDimSize(d) != want)
      return op.emitOpError()
             << "the shard of @" << op.getName() << " must have " << want
             << " elements in dimension " << d << " on mesh @"
             << mesh.getSymName() << ", got " << local.getDimSize(d);
  }
  return success();
}

/// Function results are whole on every rank, except parameter gradients
/// (`tfm.grad_of = @p`), which must have their parameter's layout: a partial
/// gradient has not been reduced and would update each copy of the
/// parameter differently (GPT-NeoX #1257).
static LogicalResult verifyResults(func::ReturnOp ret, MeshOp mesh,
                                   StringRef axis,
                                   SymbolTableCollection &symbols) {
  auto func = ret->getParentOfType<func::FuncOp>();
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    Sharding got = shardingOf(v, axis);
    auto param = func.getResultAttrOfType<FlatSymbolRefAttr>(
        i, tfm::TfmDialect::GradOfAttrHelper::getNameStr());
    if (!param) {
      if (!got.isReplicated())
        return ret.emitOpError()
               << "returns value #" << i << " that is " << got.str()
               << " on mesh axis '" << axis
               << "'; a function result must be whole on every rank";
      continue;
    }
    auto decl = symbols.lookupNearestSymbolFrom<tfm::ParamOp>(ret, param);
    if (!decl)
      return ret.emitOpError() << "result #" << i << " is the gradient of "
                               << param << ", which is not a tfm.param";
    LayoutAttr layout = LayoutAttr::fromType(decl.getType());
    Sharding want = layout ? layout.getSharding(axis) : Sharding();
    if (got == want)
      continue;
    // A distributed optimizer (ZeRO-1) gets each rank's slice of the
    // summed gradient: reduced, then split along the first dimension over
    // the data and context axes.
    std::optional<AxisRole> role = mesh.getAxisRole(axis);
    if (func->hasAttr(tfm::TfmDialect::ZeroAttrHelper::getNameStr()) &&
        (role == AxisRole::data || role == AxisRole::context) &&
        want.isReplicated() && got == Sharding::split(0))
      continue;
    if (got.isPartial())
      return ret.emitOpError()
             << "the gradient of " << param << " is partial (P) on mesh axis '"
             << axis << "': each rank holds only its contribution, so the "
             << "copies of the parameter would diverge; all-reduce it over '"
             << axis << "' first (sp-sync-grads)";
    return ret.emitOpError() << "the gradient of " << param << " is "
                             << got.str() << " on mesh axis '" << axis
                             << "' but the parameter is " << want.str();
  }
  return success();
}

/// The members of a tie group (copies of one weight) receive one gradient,
/// the sum of every member's contributions. This is all that is checked of
/// a function without tfm-autodiff's record of its contributions; with one,
/// the gradient-accounting proof (GradAccounting.h) checks the sums.
static LogicalResult verifyTieGroups(func::ReturnOp ret,
                                     SymbolTableCollection &symbols) {
  auto func = ret->getParentOfType<func::FuncOp>();
  llvm::StringMap<std::pair<FlatSymbolRefAttr, Value>> groups;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto param = func.getResultAttrOfType<FlatSymbolRefAttr>(
        i, tfm::TfmDialect::GradOfAttrHelper::getNameStr());
    auto decl = param
                    ? symbols.lookupNearestSymbolFrom<tfm::ParamOp>(ret, param)
                    : tfm::ParamOp();
    if (!decl || !decl.getTieGroup())
      continue;
    StringRef group = *decl.getTieGroup();
    auto [it, inserted] = groups.try_emplace(group, param, v);
    if (!inserted && it->second.second != v)
      return ret.emitOpError()
             << "the members of tie group '" << group << "' (" << param
             << " and " << it->second.first
             << ") receive different gradients; they must share one, the "
                "sum of every member's contributions";
  }
  return success();
}

static LogicalResult verifyOp(Operation *op, MeshOp mesh,
                              SymbolTableCollection &symbols) {
  auto checkTypes = [&](ValueRange values, StringRef what) {
    for (auto [i, v] : llvm::enumerate(values))
      if (failed(verifyLayoutOnMesh(v.getType(), mesh, [&]() {
            return op->emitOpError()
                   << "layout of " << what << " #" << i << " ";
          })))
        return failure();
    return success();
  };
  if (failed(checkTypes(op->getOperands(), "operand")) ||
      failed(checkTypes(op->getResults(), "result")))
    return failure();
  if (auto get = dyn_cast<tfm::GetParamOp>(op))
    if (failed(verifyParamShard(get, mesh, symbols)))
      return failure();
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    auto func = ret->getParentOfType<func::FuncOp>();
    // A pipeline's stages are proven together (verifyPipelines).
    bool alone = tfm::TfmDialect::getPipelineStages(func) == 1;
    if (hasGradientRecord(func)
            ? alone && failed(proveGradientAccounting(func, mesh))
            : failed(verifyTieGroups(ret, symbols)))
      return failure();
  }
  for (Attribute a : mesh.getAxisNames()) {
    StringRef axis = cast<StringAttr>(a).getValue();
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (failed(verifyResults(ret, mesh, axis, symbols)))
        return failure();
      continue;
    }
    FailureOr<SmallVector<Sharding>> want = inferResultShardings(op, axis);
    if (failed(want))
      return failure();
    for (auto [i, s] : llvm::enumerate(*want)) {
      Sharding got = shardingOf(op->getResult(i), axis);
      if (got != s)
        return op->emitOpError()
               << "result #" << i << " is " << got.str() << " on mesh axis '"
               << axis << "' but its operands make it " << s.str();
    }
  }
  return success();
}

LogicalResult dist::verifyLayouts(ModuleOp module) {
  FailureOr<MeshOp> found = getMesh(module);
  if (failed(found))
    return failure();
  MeshOp mesh = *found;
  if (!mesh) {
    WalkResult r = module.walk([&](Operation *op) {
      auto hasLayout = [](Type t) { return bool(LayoutAttr::fromType(t)); };
      if (llvm::any_of(op->getOperandTypes(), hasLayout) ||
          llvm::any_of(op->getResultTypes(), hasLayout)) {
        op->emitOpError() << "uses layouts but the module has no dist.mesh";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
    // One device: no layouts, but the gradients are still accounted for.
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && hasGradientRecord(func) &&
          failed(proveGradientAccounting(func, MeshOp())))
        return failure();
    return success();
  }
  for (auto param : module.getOps<tfm::ParamOp>())
    if (failed(verifyLayoutOnMesh(param.getType(), mesh, [&]() {
          return param.emitOpError() << "layout ";
        })))
      return failure();
  // Symbols are looked up through tables built once (the IR does not change
  // here): a lookup without one scans the module, once per parameter read.
  SymbolTableCollection symbols;
  // Ops nested in a function (a micro-batch loop's body) too, each before
  // the ops after it.
  WalkResult r = module.walk([&](func::FuncOp func) {
    WalkResult inner = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == func)
        return WalkResult::advance();
      return failed(verifyOp(op, mesh, symbols)) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
    });
    return inner.wasInterrupted() ? WalkResult::interrupt()
                                  : WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  return verifyPipelines(module, mesh);
}

/// "file:line:col" for a file location (possibly named or fused), the
/// printed location otherwise.
static std::string locationText(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  FileLineColLoc file;
  loc->walk([&](Location l) {
    file = dyn_cast<FileLineColLoc>(l);
    return file ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (file)
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    os << loc;
  return s;
}

/// A step with an optimizer (update ops, or sp-optimizer's `tfm.optimizer`
/// mark) updates every parameter it returns a gradient for (`tfm.grad_of`)
/// exactly once per step, with that gradient, and no other parameter.
static LogicalResult verifyParamUpdates(func::FuncOp func) {
  SmallVector<tfm::ParamUpdateOpInterface> updates;
  func.walk([&](tfm::ParamUpdateOpInterface u) { updates.push_back(u); });
  if (updates.empty() &&
      !func->hasAttr(tfm::TfmDialect::OptimizerAttrHelper::getNameStr()))
    return success();
  auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
  // The gradient of each parameter: result index and value.
  llvm::MapVector<Attribute, std::pair<unsigned, Value>> grads;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto param = func.getResultAttrOfType<FlatSymbolRefAttr>(
        i, tfm::TfmDialect::GradOfAttrHelper::getNameStr());
    if (!param)
      continue;
    auto [it, inserted] = grads.insert({param, {unsigned(i), v}});
    if (!inserted)
      return func.emitOpError()
             << "returns two gradients of parameter " << param << ", results #"
             << it->second.first << " and #" << i;
  }
  DenseMap<Attribute, Operation *> updatedBy;
  for (tfm::ParamUpdateOpInterface u : updates) {
    FlatSymbolRefAttr param = u.getParamAttr();
    auto [first, inserted] = updatedBy.insert({param, u});
    if (!inserted) {
      InFlightDiagnostic diag =
          u->emitOpError()
          << "updates parameter " << param << " a second time: the '"
          << first->second->getName() << "' at "
          << locationText(first->second->getLoc())
          << " already updates it, and a parameter is updated exactly once "
             "per step";
      diag.attachNote(first->second->getLoc())
          << "the first update of " << param;
      return diag;
    }
    auto grad = grads.find(param);
    if (grad == grads.end())
      return u->emitOpError()
             << "updates parameter " << param << ", but @" << func.getSymName()
             << " returns no gradient of it (no result has tfm.grad_of = "
             << param << ")";
    if (u.getGrad() != grad->second.second)
      return u->emitOpError()
             << "updates parameter " << param
             << " with a value that is not its gradient, result #"
             << grad->second.first << " of @" << func.getSymName();
  }
  for (auto &[param, grad] : grads)
    if (!updatedBy.count(param))
      return func.emitOpError()
             << "never updates parameter " << param
             << ", whose gradient it returns as result #" << grad.first
             << ": every parameter with a gradient is updated exactly once "
                "per step";
  return success();
}

namespace {
struct SpVerifyPass : dist::impl::SpVerifyPassBase<SpVerifyPass> {
  void runOnOperation() override {
    if (failed(verifyLayouts(getOperation())))
      return signalPassFailure();
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() &&
          (failed(verifyParamUpdates(func)) || failed(readBufferPlan(func))))
        return signalPassFailure();
  }
};
} // namespace
