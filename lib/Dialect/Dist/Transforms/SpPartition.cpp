//===- SpPartition.cpp - the sp-partition pass ----------------------------===//
//
// sp-partition's options and mesh: checks the degrees and axis names, adds
// the dist.mesh (pp outermost, then dp, cp and tp, each axis with its role;
// no layout mentions pp: sp-pipeline splits the program by stages) and
// hands the module to the Partitioner (Partitioner.cpp), then verifies every
// layout.
//
//===----------------------------------------------------------------------===//

#include "Partitioner.h"

#include "seqpar/Dialect/Dist/Analysis/BufferPlan.h"
#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPPARTITIONPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

namespace {
/// sp-partition takes one-device IR: a type that already carries a layout
/// means the module was partitioned (or written as if it were) and has no
/// mesh to interpret the layout with.
static LogicalResult checkOneDevice(ModuleOp module) {
  auto hasLayout = [](Type t) { return bool(LayoutAttr::fromType(t)); };
  WalkResult result = module.walk([&](Operation *op) {
    SmallVector<Type> types(op->getResultTypes());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          types.push_back(arg.getType());
    if (auto param = dyn_cast<tfm::ParamOp>(op))
      types.push_back(param.getType());
    if (auto func = dyn_cast<func::FuncOp>(op))
      llvm::append_range(types, func.getFunctionType().getResults());
    for (Type t : types)
      if (hasLayout(t)) {
        op->emitOpError() << "has the distributed type " << t
                          << " but sp-partition takes one-device IR (no "
                             "#dist.layout) and the module has no dist.mesh";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct SpPartitionPass : dist::impl::SpPartitionPassBase<SpPartitionPass> {
  using SpPartitionPassBase::SpPartitionPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (dp < 1) {
      module.emitError() << "sp-partition: dp must be >= 1, got "
                         << static_cast<int64_t>(dp);
      return signalPassFailure();
    }
    if (tp < 1) {
      module.emitError() << "sp-partition: tp must be >= 1, got "
                         << static_cast<int64_t>(tp);
      return signalPassFailure();
    }
    if (cp < 1) {
      module.emitError() << "sp-partition: cp must be >= 1, got "
                         << static_cast<int64_t>(cp);
      return signalPassFailure();
    }
    if (pp < 1) {
      module.emitError() << "sp-partition: pp must be >= 1, got "
                         << static_cast<int64_t>(pp);
      return signalPassFailure();
    }
    std::optional<int64_t> tpdp = llvm::checkedMul<int64_t>(tp, dp);
    std::optional<int64_t> tpdpcp =
        tpdp ? llvm::checkedMul<int64_t>(*tpdp, cp) : std::nullopt;
    if (!tpdpcp) {
      module.emitError() << "sp-partition: the mesh size tp * dp * cp = "
                         << static_cast<int64_t>(tp) << " * "
                         << static_cast<int64_t>(dp) << " * "
                         << static_cast<int64_t>(cp) << " overflows int64";
      return signalPassFailure();
    }
    if (!llvm::checkedMul<int64_t>(*tpdpcp, pp)) {
      module.emitError() << "sp-partition: the mesh size tp * dp * cp * pp = "
                         << static_cast<int64_t>(tp) << " * "
                         << static_cast<int64_t>(dp) << " * "
                         << static_cast<int64_t>(cp) << " * "
                         << static_cast<int64_t>(pp) << " overflows int64";
      return signalPassFailure();
    }
    if (!module.getOps<MeshOp>().empty()) {
      module.emitError() << "sp-partition: the module is already partitioned "
                            "(it has a dist.mesh)";
      return signalPassFailure();
    }
    // A buffer plan is made for the partitioned program; the ops this pass
    // rebuilds would lose their offsets.
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(kArenaBytesAttr)) {
        func.emitError() << "sp-partition: @" << func.getSymName()
                         << " already has an arena plan (" << kArenaBytesAttr
                         << "): partition before sp-plan-buffers";
        return signalPassFailure();
      }
    if (failed(checkOneDevice(module)))
      return signalPassFailure();
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    SmallVector<StringRef> axes;
    SmallVector<int64_t> sizes;
    SmallVector<int32_t> roles;
    if (tensorAxis.empty() || dataAxis.empty() || contextAxis.empty() ||
        tensorAxis.getValue() == dataAxis.getValue() ||
        contextAxis.getValue() == tensorAxis.getValue() ||
        contextAxis.getValue() == dataAxis.getValue()) {
      module.emitError() << "sp-partition: tensor-axis, data-axis and "
                            "context-axis must be non-empty and different, "
                            "got '"
                         << tensorAxis << "', '" << dataAxis << "' and '"
                         << contextAxis << "'";
      return signalPassFailure();
    }
    if (pipelineAxis.empty() ||
        pipelineAxis.getValue() == tensorAxis.getValue() ||
        pipelineAxis.getValue() == dataAxis.getValue() ||
        pipelineAxis.getValue() == contextAxis.getValue()) {
      module.emitError() << "sp-partition: pipeline-axis must be non-empty "
                            "and differ from tensor-axis, data-axis and "
                            "context-axis, got '"
                         << pipelineAxis << "'";
      return signalPassFailure();
    }
    // pp outermost (the stages hold whole replicas' parts), then dp, cp,
    // then tp (Megatron's order): the tp ranks of a sequence part are
    // adjacent.
    if (pp > 1) {
      axes.push_back(pipelineAxis);
      sizes.push_back(pp);
      roles.push_back(int32_t(AxisRole::pipeline));
    }
    if (dp > 1) {
      axes.push_back(dataAxis);
      sizes.push_back(dp);
      roles.push_back(int32_t(AxisRole::data));
    }
    if (cp > 1) {
      axes.push_back(contextAxis);
      sizes.push_back(cp);
      roles.push_back(int32_t(AxisRole::context));
    }
    axes.push_back(tensorAxis);
    sizes.push_back(tp);
    roles.push_back(int32_t(AxisRole::tensor));
    auto mesh = b.create<MeshOp>(
        module.getLoc(), "mesh", b.getStrArrayAttr(axes),
        b.getDenseI64ArrayAttr(sizes), b.getDenseI32ArrayAttr(roles));
    // With one rank there is nothing to split: the mesh is all that changes.
    if (tp > 1 || dp > 1 || cp > 1) {
      if (failed(partitionModule(module, mesh,
                                 {tp, dp, cp, sequenceParallel,
                                  cpAttention == CpAttention::ring})))
        return signalPassFailure();
    }
    if (failed(verifyLayouts(module)))
      signalPassFailure();
  }
};
} // namespace
