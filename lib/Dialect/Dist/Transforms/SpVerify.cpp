//===- SpVerify.cpp - recompute and check every layout --------------------===//

#include "seqpar/Dialect/Dist/Transforms/LayoutRules.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

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

static LogicalResult verifyParamShard(tfm::GetParamOp op, MeshOp mesh) {
  auto param =
      SymbolTable::lookupNearestSymbolFrom<tfm::ParamOp>(op, op.getNameAttr());
  auto global = cast<RankedTensorType>(param.getType());
  LayoutAttr layout = LayoutAttr::fromType(global);
  if (!layout)
    return success();
  for (auto [i, axis] : llvm::enumerate(layout.getAxes())) {
    Sharding s = layout.getSharding(i);
    int64_t n = *mesh.getAxisSize(axis.getValue());
    if (s.isSplit() && global.getDimSize(s.dim) % (n * s.blocks) != 0)
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

static LogicalResult verifyOp(Operation *op, MeshOp mesh) {
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
    if (failed(verifyParamShard(get, mesh)))
      return failure();
  for (Attribute a : mesh.getAxisNames()) {
    StringRef axis = cast<StringAttr>(a).getValue();
    if (isa<func::ReturnOp>(op)) {
      for (auto [i, v] : llvm::enumerate(op->getOperands()))
        if (!shardingOf(v, axis).isReplicated())
          return op->emitOpError()
                 << "returns value #" << i << " that is "
                 << shardingOf(v, axis).str() << " on mesh axis '" << axis
                 << "'; a function result must be whole on every rank";
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
  auto meshes = llvm::to_vector(module.getOps<MeshOp>());
  if (meshes.size() > 1)
    return meshes[1].emitOpError() << "a module has at most one mesh";
  if (meshes.empty()) {
    WalkResult r = module.walk([&](Operation *op) {
      auto hasLayout = [](Type t) { return bool(LayoutAttr::fromType(t)); };
      if (llvm::any_of(op->getOperandTypes(), hasLayout) ||
          llvm::any_of(op->getResultTypes(), hasLayout)) {
        op->emitOpError() << "uses layouts but the module has no dist.mesh";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }
  MeshOp mesh = meshes.front();
  for (auto param : module.getOps<tfm::ParamOp>())
    if (failed(verifyLayoutOnMesh(param.getType(), mesh, [&]() {
          return param.emitOpError() << "layout ";
        })))
      return failure();
  WalkResult r = module.walk([&](func::FuncOp func) {
    for (Operation &op : func.getBody().getOps())
      if (failed(verifyOp(&op, mesh)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

namespace {
struct SpVerifyPass : dist::impl::SpVerifyPassBase<SpVerifyPass> {
  void runOnOperation() override {
    if (failed(verifyLayouts(getOperation())))
      signalPassFailure();
  }
};
} // namespace
