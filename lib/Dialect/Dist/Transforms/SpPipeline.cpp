//===- SpPipeline.cpp - the forward split into pipeline stages ------------===//
//
// sp-pipeline: the partitioned tfm.forward becomes one function per stage of
// the mesh's pipeline axis (the stage of each op from PipelineStages.cpp),
// the values crossing a stage boundary sent and received on that axis. See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "PipelineStages.h"

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPPIPELINEPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

namespace {
/// Builds the stage functions of `forward` from its stage assignment.
class StageSplitter {
public:
  StageSplitter(func::FuncOp forward, const StageAssignment &assignment,
                int64_t stages, FlatSymbolRefAttr mesh, StringAttr axis)
      : forward(forward), stageOf(assignment.stageOf), stages(stages),
        mesh(mesh), axis(axis), b(forward.getContext()) {}

  void run();

private:
  /// The stage function `stage`, inserted before `forward`.
  void buildStage(int64_t stage);
  /// The value standing for `v` in the stage being built: mapped, or a
  /// shared value cloned (with the shared values it reads) at the builder.
  Value materialize(Value v, IRMapping &map);

  func::FuncOp forward;
  const DenseMap<Operation *, int64_t> &stageOf;
  int64_t stages;
  FlatSymbolRefAttr mesh;
  StringAttr axis;
  OpBuilder b;
  /// The values crossing the boundary after stage k, in definition order.
  SmallVector<SmallVector<Value>> crossing;
};
} // namespace

Value StageSplitter::materialize(Value v, IRMapping &map) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  assert(def && !stageOf.count(def) && "a stage value not yet defined");
  for (Value operand : def->getOperands())
    materialize(operand, map);
  b.clone(*def, map);
  return map.lookup(v);
}

void StageSplitter::buildStage(int64_t stage) {
  b.setInsertionPoint(forward);
  func::FuncOp fn = forward.cloneWithoutRegions();
  b.insert(fn);
  fn.setSymName((forward.getSymName() + "_stage" + Twine(stage)).str());
  fn->setAttr(TfmDialect::PipelineStageAttrHelper::getNameStr(),
              b.getI64IntegerAttr(stage));
  fn->setAttr(TfmDialect::PipelineStagesAttrHelper::getNameStr(),
              b.getI64IntegerAttr(stages));
  Block &old = forward.getBody().front();
  Block *block = fn.addEntryBlock();
  IRMapping map;
  map.map(old.getArguments(), block->getArguments());
  b.setInsertionPointToEnd(block);
  // What the previous stage sends, in its order.
  if (stage > 0)
    for (Value v : crossing[stage - 1])
      map.map(v, b.create<RecvOp>(v.getLoc(), v.getType(), mesh, axis,
                                  b.getI64IntegerAttr(-1)));
  for (Operation &op : old.without_terminator()) {
    auto it = stageOf.find(&op);
    if (it == stageOf.end() || it->second != stage)
      continue;
    for (Value v : op.getOperands())
      materialize(v, map);
    b.clone(op, map);
  }
  if (stage + 1 < stages)
    for (Value v : crossing[stage])
      b.create<SendOp>(v.getLoc(), materialize(v, map), mesh, axis,
                       b.getI64IntegerAttr(1));
  auto ret = cast<func::ReturnOp>(old.getTerminator());
  Value loss = ret.getOperand(0);
  Value result = stage + 1 == stages
                     ? materialize(loss, map)
                     : b.create<FillOp>(loss.getLoc(), loss.getType(),
                                        b.getF64FloatAttr(0.0))
                           .getResult();
  b.create<func::ReturnOp>(ret.getLoc(), result);
}

void StageSplitter::run() {
  Block &body = forward.getBody().front();
  // The latest stage reading each value computed on one stage.
  crossing.assign(stages, {});
  auto stageOfUser = [&](Operation *user) -> int64_t {
    if (isa<func::ReturnOp>(user))
      return stages - 1;
    auto it = stageOf.find(user);
    // A shared op reads only shared values; a parameter read none.
    return it == stageOf.end() ? -1 : it->second;
  };
  for (Operation &op : body.without_terminator()) {
    auto it = stageOf.find(&op);
    if (it == stageOf.end())
      continue;
    for (Value r : op.getResults()) {
      int64_t last = it->second;
      for (Operation *user : r.getUsers())
        last = std::max(last, stageOfUser(user));
      for (int64_t k = it->second; k < last; ++k)
        crossing[k].push_back(r);
    }
  }
  for (int64_t k = 0; k < stages; ++k)
    buildStage(k);
  forward.erase();
}

namespace {
struct SpPipelinePass : dist::impl::SpPipelinePassBase<SpPipelinePass> {
  using SpPipelinePassBase::SpPipelinePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<MeshOp> mesh = getMesh(module);
    if (failed(mesh))
      return signalPassFailure();
    std::optional<StringRef> axis =
        *mesh ? mesh->getAxisWithRole(AxisRole::pipeline) : std::nullopt;
    if (!axis)
      return;
    int64_t stages = *mesh->getAxisSize(*axis);
    if (stages == 1)
      return;
    StringRef marker = TfmDialect::ForwardAttrHelper::getNameStr();
    FailureOr<SmallVector<Operation *>> forwards =
        TfmDialect::getMarkedFunctions(module, marker, "sp-pipeline");
    if (failed(forwards))
      return signalPassFailure();
    if (forwards->empty()) {
      module.emitError() << "sp-pipeline: the module has no function marked "
                         << marker;
      return signalPassFailure();
    }
    auto forward = dyn_cast<func::FuncOp>(forwards->front());
    if (forwards->size() > 1 ||
        forward->hasAttr(TfmDialect::PipelineStageAttrHelper::getNameStr())) {
      forwards->front()->emitOpError()
          << "sp-pipeline: the forward is already split into pipeline stages";
      return signalPassFailure();
    }
    if (!forward || !llvm::hasSingleElement(forward.getBody()) ||
        forward.getNumResults() != 1) {
      forwards->front()->emitOpError()
          << "sp-pipeline: the forward must be a func.func of one block "
             "returning the loss";
      return signalPassFailure();
    }
    FailureOr<StageAssignment> assignment =
        assignStages(forward, stages, layers);
    if (failed(assignment))
      return signalPassFailure();
    StageSplitter(forward, *assignment, stages,
                  FlatSymbolRefAttr::get(mesh->getSymNameAttr()),
                  StringAttr::get(module.getContext(), *axis))
        .run();
  }
};
} // namespace
